// The render kit shared by the game page and the table companion: the end screen, the public
// missions list, mission cards, the turn status, screen-reader announcements and the lists of
// games this browser takes part in. It renders what the server sends; it holds no rule.
import { SEAT_LETTERS, errorText as bodyErrorText, h, scoreChart, t, tiebreakText, txt } from "./common.js";

const $ = (id) => document.getElementById(id);

/** Say `text` to screen readers (the page's #live region, or #alert when `assertive`). */
export function announce(text, assertive = false) {
  const el = $(assertive ? "alert" : "live");
  el.textContent = "";
  setTimeout(() => { el.textContent = text; }, 20);
}

/** What went wrong with a request (`api` of common.js): the server's message in `lang`. */
export function errorText(err, lang) {
  const body = err?.data?.error;
  return body ? bodyErrorText(body, lang) : String(err?.message || err);
}

/** The mission card `id` of a board's data (`GET /api/boards/{board}`), or undefined. */
export function cardOf(boardData, id) {
  return (boardData?.missions?.cards || []).find((c) => c.id.toUpperCase() === String(id).toUpperCase());
}

/** Who is doing what, for another seat's turn: `name` places, takes its extra tile or marks. */
export function turnStatus(lang, phase, name) {
  if (phase === "mark") return t(lang, "status.mark", { name });
  if (phase === "extra") return t(lang, "status.extra", { name });
  return t(lang, "status.places", { name });
}

/** One public mission on display (I-10): its values, text, who has fulfilled it and the ×2
 * markers on it; `who(q)` names a seat, `extra` is appended (a mark button, or nothing). */
export function publicMission(lang, boardData, view, id, who, extra = "") {
  const c = cardOf(boardData, id);
  const ful = (view.fulfilled?.[id] || []).map(who);
  const marks = (view.marks || []).map((m, q) => (m.includes(id) ? q : -1)).filter((q) => q >= 0);
  return h("li", { class: "mission", "data-id": id }, h("b", {}, id), " ",
    c?.values ? h("span", { class: "small" }, t(lang, "missions.first", { a: c.values[0], b: c.values[1] })) : "",
    h("div", {}, txt(c?.text, lang)),
    h("div", { class: "small" }, ful.length ? t(lang, "missions.fulfilled", { names: ful.join(", ") }) : t(lang, "missions.open")),
    marks.length ? h("div", { class: "marks" }, t(lang, "missions.marks", { names: marks.map((q) => `×2 ${who(q)}`).join(", ") })) : "",
    extra);
}

/** The end screen's parts (E-2…E-4): the winners, the tiebreak, the breakdown per category and
 * the score chart. `series` is one row of scores per step; `colours` the seats' colours. */
export function endScreen({ lang, view, model, names, colours, series, xLabel, tableClass = "" }) {
  const v = view;
  const n = v.players;
  const who = (q) => `${names[q] ?? ""} (${SEAT_LETTERS[q]})`;
  const cats = Object.keys(v.breakdown[0] || {});
  const swatch = (q) => h("span", { class: "swatch small", style: `background:${colours[q]}` }, SEAT_LETTERS[q]);
  const table = h("table", { class: "breakdown" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t(lang, "end.category")),
      ...Array.from({ length: n }, (_, q) => h("th", { scope: "col" }, swatch(q), " ", names[q])))),
    h("tbody", {}, ...cats.map((c) => h("tr", { "data-cat": c }, h("th", { scope: "row" }, t(lang, `cat.${c}`)),
      ...Array.from({ length: n }, (_, q) => h("td", {}, v.breakdown[q][c])))),
    h("tr", { class: "total" }, h("th", { scope: "row" }, t(lang, "end.total")),
      ...Array.from({ length: n }, (_, q) => h("td", { class: "final-score", "data-seat": q }, v.scores[q])))));
  const tiebreak = tiebreakText(v, names, lang);
  return [h("h2", { id: "end-h" }, t(lang, "end.title")),
    h("p", { class: "winner" }, t(lang, v.winners.length > 1 ? "end.shared" : "end.winner", { names: v.winners.map(who).join(", ") })),
    tiebreak ? h("p", { class: "tiebreak" }, tiebreak) : "",
    h("div", { class: "end-grid" }, h("div", tableClass ? { class: tableClass } : {}, table),
      h("div", { class: "end-chart" }, h("h3", { id: "chart-h" }, t(lang, "chart.title")), scoreChart(series, n, xLabel, colours)))];
}

/** A list of this browser's games in local storage (newest first, at most `limit`); `same`
 * tells two entries for one game apart. Tokens stay in this browser, never on a server list. */
function savedList(key, limit, same) {
  const list = () => {
    try { return JSON.parse(localStorage.getItem(key) || "[]"); } catch { return []; }
  };
  return {
    list,
    remember(entry) {
      // What an earlier entry knew (e.g. the seat's name from the lobby) stays unless replaced.
      const old = list().find((g) => same(g, entry)) || {};
      const rest = list().filter((g) => !same(g, entry));
      const known = Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined && v !== null));
      rest.unshift({ ...old, ...known, when: Date.now() });
      localStorage.setItem(key, JSON.stringify(rest.slice(0, limit)));
    },
    forget(keep) { localStorage.setItem(key, JSON.stringify(list().filter(keep))); },
  };
}

const games = savedList("rebirth.games", 50, (a, b) => a.game === b.game && a.url === b.url);
const tables = savedList("rebirth.tables", 30, (a, b) => a.table === b.table);

/** The online games this browser takes part in (the lobby's "my games"). */
export const myGames = () => games.list();
export const rememberGame = (entry) => games.remember(entry);
export const forgetGame = (game) => games.forget((g) => g.game !== game);

/** The table games entered on this device (the table companion's list). */
export const myTables = () => tables.list();
export const rememberTable = (entry) => tables.remember(entry);

/** The presence mark after a seat's name: online/offline for a person; a bot is never "offline"
 * (it plays on the server), so it is marked as a bot instead. */
export function presenceMark(lang, kind, online, badged = false) {
  const dot = presenceDot(lang, online);
  // A program at a remote seat is online while its stream is open, so it gets the dot too; a
  // bot account's seat already wears the BOT badge, so the "Bot" mark would say it twice.
  if (kind === "remote") return badged ? dot : [h("span", { class: "botmark", title: t(lang, "kind.remote") }, t(lang, "game.bot")), " ", dot];
  if (kind && kind !== "human") return h("span", { class: "botmark", title: t(lang, `kind.${kind}`) }, t(lang, "game.bot"));
  return dot;
}

function presenceDot(lang, online) {
  const word = t(lang, online ? "game.online" : "game.offline");
  return h("span", { class: `dot ${online ? "on" : "off"}`, title: word }, h("span", { class: "sr-only" }, word));
}

/** Who holds each castle and who has been next to each cathedral and tower, step by step, from
 * the log's events (castle_claim / castle_take, cathedral, tower): the replay's structure owners
 * in the view's shape (castle_holders, cathedral_pieces, tower_visits). */
export function structureOwners(model) {
  const index = new Map(model.structures.map((s) => [`${s.kind}:${s.id}`, s.kindIndex]));
  const count = (kind) => model.structures.filter((s) => s.kind === kind).length;
  const castles = Array(count("castle")).fill(-1);
  const cathedrals = Array.from({ length: count("cathedral") }, () => []);
  const towers = Array.from({ length: count("tower") }, () => []);
  const add = (list, k, seat) => { if (k !== undefined && !list[k].includes(seat)) list[k].push(seat); };
  return {
    apply(events) {
      for (const e of events) {
        if (e.seat === null || e.seat === undefined) continue;
        if (e.kind === "castle_claim" || e.kind === "castle_take") {
          const k = index.get(`castle:${e.data?.castle}`);
          if (k !== undefined) castles[k] = e.seat;
        } else if (e.kind === "cathedral") add(cathedrals, index.get(`cathedral:${e.data?.cathedral}`), e.seat);
        else if (e.kind === "tower") add(towers, index.get(`tower:${e.data?.tower}`), e.seat);
      }
    },
    now: () => ({ castle_holders: [...castles], cathedral_pieces: cathedrals.map((x) => [...x]),
      tower_visits: towers.map((x) => [...x]) }),
  };
}
