// Seats belong to whoever takes them (issue 15 item 7, docs/protocol.md "Invitations").
// A seat link is an invitation (`#i=CODE`): the first browser that opens it claims the seat and
// gets that seat's token, kept here in local storage per game and seat. The address bar then
// shows `#s=SEAT` (no secret), and later visits use the stored token. A spectator or admin link
// carries its token (`#t=`) as before.
import { api } from "./common.js";

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
  return { ...entry, slot };
}

/** The game page's path for a claimed slot: no secret in it. */
export const seatPath = (game, slot) => `/game/${encodeURIComponent(game)}#s=${slot}`;

/** The token this page acts with: the link's own (`#t=`), the claim of its invitation (`#i=`,
 * claimed now or earlier by this browser) or the stored one of `#s=` (or of the only/first
 * seat held). After a claim the address no longer carries the invitation. Null: none. */
export async function pageToken(game) {
  const params = new URLSearchParams(location.hash.slice(1));
  const direct = params.get("t");
  if (direct) return direct;
  const mine = claimsOf(game);
  const invite = params.get("i");
  let entry = null;
  if (invite) {
    entry = mine.find((e) => e.invite === invite) || await claimInvite(game, invite);
  } else {
    // A push notification opens /game/<id>?seat=<n> (no secret): the seat this browser holds.
    const slot = params.get("s") ?? new URLSearchParams(location.search).get("seat");
    entry = slot === null ? mine[0] || null : mine.find((e) => e.slot === slot) || null;
  }
  if (!entry) return null;
  history.replaceState(null, "", seatPath(game, entry.slot));
  return entry.token;
}
