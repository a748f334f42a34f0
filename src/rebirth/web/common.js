// Shared helpers of every page: language, catalogs, REST, elements, the score chart.
// The page never computes a rule; it renders what the server sends (the seats' colours too:
// `facts.colours` of GET /api/boards/{board}).

export const SEAT_LETTERS = ["A", "B", "C", "D"];
export const NEUTRAL_COLOUR = "#777777";

const catalogs = { events: {}, page: {} };

let languages = [];

/** The declared languages (`[{code, name}]`, menu order) as the server's registry lists them
 * (GET /api/languages): the page holds no list of its own. Call once before `pickLang`. */
export async function loadLanguages() {
  if (!languages.length) {
    const r = await fetch("/api/languages");
    languages = (await r.json()).languages || [];
  }
  return languages;
}

function known(l) {
  return !!l && languages.some((x) => x.code === l);
}

/** The page language: ?lang=, then the stored choice, then the browser's (after `loadLanguages`). */
export function pickLang() {
  const q = new URLSearchParams(location.search).get("lang");
  const stored = localStorage.getItem("rebirth.lang");
  const nav = (navigator.language || "en").slice(0, 2);
  for (const l of [q, stored, nav]) if (known(l)) return l;
  return "en";
}

/** The language this browser's user chose (a `?lang=` link or the language menu), or null. */
export function chosenLang() {
  const q = new URLSearchParams(location.search).get("lang");
  const stored = localStorage.getItem("rebirth.lang");
  for (const l of [q, stored]) if (known(l)) return l;
  return null;
}

/** Whether `l` is one of the served languages (a game's stored language, say). */
export function isLang(l) {
  return known(l);
}

/** Fill a language menu (`<select>`) with the served languages, each named in itself. */
export function fillLangMenu(sel, lang) {
  sel.replaceChildren(...languages.map((x) => h("option", { value: x.code, lang: x.code }, x.name)));
  sel.value = lang;
}

/** Show the page in `lang`; `remember` stores it as the user's choice (the language menu). */
export function setLang(lang, remember = true) {
  if (remember) localStorage.setItem("rebirth.lang", lang);
  document.documentElement.lang = lang;
}

/** Load the event catalog and the page strings of `lang` (and English as the fallback). */
export async function loadCatalogs(lang) {
  for (const l of new Set(["en", lang])) {
    if (catalogs.events[l]) continue;
    const r = await fetch(`/api/i18n/${l}`);
    const body = await r.json();
    catalogs.events[l] = body.events || {};
    catalogs.page[l] = body.page || {};
  }
}

function fill(tpl, args, fn) {
  return tpl.replace(/\{\{|\}\}|\{([a-z_]+)\}/g, (m, name) =>
    m === "{{" ? "{" : m === "}}" ? "}" : fn(args[name]));
}

/** An engine message (docs/messages.md): key + args, names of the seats. */
export function render(key, args, lang, names) {
  const tpl = (catalogs.events[lang] || {})[key] ?? catalogs.events.en[key] ?? key;
  return fill(tpl, args || {}, (v) => value(v, lang, names));
}

function value(v, lang, names) {
  if (v === undefined || v === null) return "";
  if (typeof v === "number" || typeof v === "string") return String(v);
  if ("seat" in v) return names[v.seat] ?? `#${v.seat + 1}`;
  if ("msg" in v) return render(v.msg, v.args ?? {}, lang, names);
  return v[lang] ?? v.en;
}

/** A server error body's sentence (`{"error": {"code", "key", "args", "message"}}`): the
 * engine's key + args rendered with the catalogs when the server sends them, else its
 * prerendered `message[lang]`. */
export function errorText(error, lang) {
  if (!error) return "";
  if (error.key && catalogs.events.en && error.key in catalogs.events.en) return render(error.key, error.args, lang, []);
  return txt(error.message, lang);
}

/** A page string. */
export function t(lang, key, args = {}) {
  const tpl = (catalogs.page[lang] || {})[key] ?? (catalogs.page.en || {})[key] ?? key;
  return fill(tpl, args, (v) => (v === undefined ? "" : String(v)));
}

/** A page string that counts `n`: the key's `.one` or `.other` form as the language's plural
 * rules choose (Intl.PluralRules: French says "1 point" and "0 point", English "0 points"),
 * with `{n}` and `args` filled in. */
export function tn(lang, key, n, args = {}) {
  const form = new Intl.PluralRules(lang).select(n) === "one" ? "one" : "other";
  return t(lang, `${key}.${form}`, { n, ...args });
}

/** A data-driven text (`{en, de, …}`) in the language, English where it lacks one. */
export function txt(v, lang) {
  if (!v) return "";
  return typeof v === "string" ? v : v[lang] ?? v.en;
}

/** Fill every `[data-t]` element with its page string. */
export function translateDom(lang, root = document) {
  for (const el of root.querySelectorAll("[data-t]")) el.textContent = t(lang, el.dataset.t);
  for (const el of root.querySelectorAll("[data-t-label]")) el.setAttribute("aria-label", t(lang, el.dataset.tLabel));
}

export async function api(path, { method = "GET", body, token } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    referrerPolicy: "no-referrer" });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) {
    const err = new Error(errorText(data?.error, "en") || `HTTP ${r.status}`);
    err.data = data;
    throw err;
  }
  return data;
}

/** Create an element: h("div", {class: "x"}, child, "text"). */
export function h(tag, attrs = {}, ...children) {
  const el = attrs.svg ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "svg" || v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** What decided a tie for first, in words: the engine's own message (`view.tiebreak.msg`,
 * E-3/E-4), rendered with the event catalog like every event. */
export function tiebreakText(v, names, lang) {
  const how = v && v.tiebreak;
  if (!how || !how.msg) return "";
  return render(how.msg.msg, how.msg.args, lang, names);
}

/** An SVG element (see `h`). */
export const sv = (tag, attrs = {}, ...kids) => h(tag, { ...attrs, svg: true }, ...kids);

/** The scores over a game as an SVG line chart: one row of scores per step, one line per
 * player, told apart by dash pattern and an end letter as well as by colour (`colours`). */
export function scoreChart(series, n, xLabel, colours) {
  const W = 560; const H = 220; const pad = 30;
  const max = Math.max(10, ...series.flat());
  const x = (i) => pad + (i / Math.max(1, series.length - 1)) * (W - pad * 2);
  const y = (s) => H - pad - (s / max) * (H - pad * 2);
  const dashes = ["", "6 3", "2 3", "10 3 2 3"];
  const svg = sv("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-labelledby": "chart-h" },
    sv("line", { x1: pad, y1: H - pad, x2: W - pad, y2: H - pad, class: "axis" }),
    sv("line", { x1: pad, y1: pad, x2: pad, y2: H - pad, class: "axis" }),
    sv("text", { x: pad - 4, y: pad, class: "tick", "text-anchor": "end" }, max),
    sv("text", { x: pad - 4, y: H - pad, class: "tick", "text-anchor": "end" }, 0),
    sv("text", { x: W / 2, y: H - 6, class: "tick", "text-anchor": "middle" }, xLabel));
  for (let q = 0; q < n; q++) {
    const pts = series.map((row, i) => `${x(i).toFixed(1)},${y(row[q]).toFixed(1)}`).join(" ");
    svg.append(sv("polyline", { points: pts, fill: "none", stroke: colours[q], "stroke-width": 2.5,
      "stroke-dasharray": dashes[q] }));
  }
  for (const { q, at } of endLabelPlaces(series[series.length - 1], y, pad, H - pad)) {
    svg.append(sv("text", { x: W - pad + 4, y: at + 4, class: "tick end-label", "data-seat": q },
      SEAT_LETTERS[q]));
  }
  return svg;
}

/** Where each line's end letter goes: at its last value, but pushed apart (in the chart's own
 * units, so at every screen size) so that no two letters overlap — players often end at about
 * the same figure, e.g. all the losers of a 4-player game at 0 % win chance. `gap`: the height
 * of a letter's box (11 px text is 14 px high), plus one. */
export function endLabelPlaces(last, y, top, bottom, gap = 15) {
  const ends = last.map((v, q) => ({ q, at: y(v) })).sort((a, b) => a.at - b.at || a.q - b.q);
  for (let i = 1; i < ends.length; i++) ends[i].at = Math.max(ends[i].at, ends[i - 1].at + gap);
  // Pushed below the axis: move the stack back up, keeping the gaps.
  if (ends.length && ends[ends.length - 1].at > bottom) ends[ends.length - 1].at = bottom;
  for (let i = ends.length - 2; i >= 0; i--) ends[i].at = Math.min(ends[i].at, ends[i + 1].at - gap);
  if (ends.length && ends[0].at < top - gap) {
    // Only when more letters than fit the height: spread them evenly instead.
    const step = (bottom - top) / Math.max(1, ends.length - 1);
    ends.forEach((e, i) => { e.at = top + i * step; });
  }
  return ends;
}

/** The "BOT" badge next to a bot account's name (lobby, player page, game page; docs/bot-api.md). */
export function botBadge(lang) {
  return h("span", { class: "bot-badge", title: t(lang, "badge.bot.title") }, t(lang, "badge.bot"));
}
