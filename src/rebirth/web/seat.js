// Seats belong to whoever takes them (issue 15 item 7, docs/protocol.md "Invitations").
// A seat link is an invitation (`#i=CODE`): the first browser that opens it claims the seat and
// gets that seat's token, kept here in local storage per game and seat. The address bar then
// shows `#s=SEAT` (no secret), and later visits use the stored token. A spectator or admin link
// carries its token (`#t=`) as before. A transfer link (`#x=CODE`, issue 25 item 2) gives this
// browser its own token of a seat another device holds; a notification's link (`?seat=N`) names
// the seat without a secret: the browser that holds it opens it from its stored token.
import { api } from "./common.js";
import { attachSeats, signinPath } from "./account-kit.js";

const PREFIX = "rebirth.seat.";

/** The storage slot of a claim: the seat number, or "table" for a hot-seat device. */
const slotOf = (role, seat) => (role === "table" ? "table" : String(seat));

/** The claims this browser holds for `game`: [{slot, token, invite, role, seat}]. */
export function claimsOf(game) {
  const out = [];
  const start = `${PREFIX}${game}.`;
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key || !key.startsWith(start)) continue;
    try {
      const entry = JSON.parse(localStorage.getItem(key) || "null");
      if (entry && typeof entry.token === "string") out.push({ ...entry, slot: key.slice(start.length) });
    } catch { /* a damaged entry is skipped */ }
  }
  return out.sort((a, b) => a.slot.localeCompare(b.slot));
}

/** Claim the invitation `invite` of `game` (the server answers the token to the first claimer
 * only) and keep it; returns the stored entry. A refused claim throws with the server's text. */
export async function claimInvite(game, invite) {
  const res = await api(`/api/games/${encodeURIComponent(game)}/claim`, { method: "POST", body: { invite } });
  const entry = { token: res.token, invite, role: res.role, seat: res.seat };
  const slot = slotOf(res.role, res.seat);
  localStorage.setItem(`${PREFIX}${game}.${slot}`, JSON.stringify(entry));
  if (res.role === "seat") attachSeats([res.token]); // signed in: the seat is the account's too
  return { ...entry, slot };
}

/** A seat of the signed-in account on this device (`/game/<id>?seat=N`, no secret in the
 * link): the server makes this device a token of its own, kept like a claim. Not signed in:
 * the sign-in page, then back here. Another's seat: null (the page says it has no token). */
async function accountSeat(game, seat) {
  let res;
  try {
    res = await api(`/api/account/games/${encodeURIComponent(game)}/seats/${seat}/token`, { method: "POST" });
  } catch (e) {
    if (e?.data?.error?.code === "signin_required") {
      location.replace(signinPath(`/game/${encodeURIComponent(game)}?seat=${seat}`));
      return new Promise(() => {}); // the page is leaving
    }
    return null;
  }
  const entry = { token: res.token, role: "seat", seat: res.seat, account: true };
  localStorage.setItem(`${PREFIX}${game}.${res.seat}`, JSON.stringify(entry));
  return { ...entry, slot: String(res.seat) };
}

/** Keep a seat's token that the server gave this browser (an open seat taken, a paired
 * game's seat): the page then opens it from local storage, as a claimed invitation. */
export function keepSeat(game, seat, token) {
  const entry = { token, invite: null, role: "seat", seat };
  const slot = slotOf("seat", seat);
  localStorage.setItem(`${PREFIX}${game}.${slot}`, JSON.stringify(entry));
  return { ...entry, slot };
}

/** Claim a transfer code of `game` (once: a used or expired code throws with the server's
 * words) and keep the new token of the seat; returns the stored entry. */
export async function claimTransfer(game, code) {
  const res = await api(`/api/games/${encodeURIComponent(game)}/transfer/claim`, { method: "POST", body: { code } });
  const entry = { token: res.token, role: "seat", seat: res.seat, moved: true };
  const slot = slotOf("seat", res.seat);
  localStorage.setItem(`${PREFIX}${game}.${slot}`, JSON.stringify(entry));
  return { ...entry, slot };
}

/** The slot of a link's own token (`#t=`) until the server says whose it is. */
const LINK_SLOT = "link";

/** The first sync of a `#t=` link's token: keep it under its role's slot (the seat's number,
 * "table", "spectator", "admin") and show that slot in the address bar. */
export function settleLink(game, token, role, seat) {
  const key = `${PREFIX}${game}.${LINK_SLOT}`;
  const held = JSON.parse(localStorage.getItem(key) || "null");
  if (!held || held.token !== token || !role) return;
  const slot = role === "seat" ? slotOf(role, seat) : role;
  localStorage.setItem(`${PREFIX}${game}.${slot}`, JSON.stringify({ token, invite: null, role, seat }));
  localStorage.removeItem(key);
  if (new URLSearchParams(location.hash.slice(1)).get("s") === LINK_SLOT) {
    history.replaceState(null, "", seatPath(game, slot));
  }
}

/** The seat a notification's link (`?seat=N`) asks for, or null. */
export function askedSeat() {
  return new URLSearchParams(location.search).get("seat");
}

/** The game page's path for a claimed slot: no secret in it. */
export const seatPath = (game, slot) => `/game/${encodeURIComponent(game)}#s=${slot}`;

/** The token this page acts with: the link's own (`#t=`), the claim of its invitation (`#i=`,
 * claimed now or earlier by this browser) or the stored one of `#s=` (or of the only/first
 * seat held). After a claim the address no longer carries the invitation. Null: none. */
export async function pageToken(game) {
  const params = new URLSearchParams(location.hash.slice(1));
  const direct = params.get("t");
  if (direct) {
    // A link that carries its token (a rematch's seat, a spectator's, the admin's): kept like a
    // claim and gone from the address bar at once (issue 26 item 6); `#s=link` opens it again on
    // a reload until the first sync names its role and seat (settleLink).
    localStorage.setItem(`${PREFIX}${game}.${LINK_SLOT}`, JSON.stringify({ token: direct, role: null, seat: null }));
    history.replaceState(null, "", seatPath(game, LINK_SLOT));
    return direct;
  }
  const mine = claimsOf(game);
  const invite = params.get("i");
  const transfer = params.get("x");
  let entry = null;
  if (transfer) {
    // The code leaves the address bar before anything else can read or share it.
    history.replaceState(null, "", `/game/${encodeURIComponent(game)}`);
    entry = await claimTransfer(game, transfer);
  } else if (invite) {
    // The invitation leaves the address bar as soon as it is read, as a transfer code does.
    history.replaceState(null, "", `/game/${encodeURIComponent(game)}`);
    entry = mine.find((e) => e.invite === invite) || await claimInvite(game, invite);
  } else {
    // ?seat=<n>: a push notification's (or an account's) link, no secret: the seat this browser holds.
    const asked = new URLSearchParams(location.search).get("seat");
    const slot = params.get("s") ?? (asked !== null && /^\d+$/.test(asked) ? asked : null);
    entry = slot === null ? mine[0] || null : mine.find((e) => e.slot === slot) || null;
    // A seat of the account (a notification's or "My games"' link): this device gets its token.
    if (!entry && asked !== null && slot === asked) entry = await accountSeat(game, Number(asked));
  }
  if (!entry) return null;
  history.replaceState(null, "", seatPath(game, entry.slot));
  return entry.token;
}
