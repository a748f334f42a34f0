// Accounts on the page (issue 25): is this browser signed in, the seat tokens it holds (sent
// at sign-in so the account gets those seats), where to go back after signing in, and the
// passkey ceremonies' JSON (base64url fields <-> ArrayBuffers).
import { api } from "./common.js";

const SIGNED = "rebirth.account";
const NEXT = "rebirth.signin.next";

/** The signed-in account (`GET /api/account`) or null; remembers the answer for `maybeSignedIn`. */
export async function currentAccount() {
  try {
    const me = await api("/api/account");
    localStorage.setItem(SIGNED, "1");
    return me;
  } catch {
    localStorage.removeItem(SIGNED);
    return null;
  }
}

/** Whether this browser was signed in when it last asked (no request). */
export const maybeSignedIn = () => localStorage.getItem(SIGNED) === "1";

/** Forget that this browser is signed in (after signing out or a refused session). */
export const forgetSignedIn = () => localStorage.removeItem(SIGNED);

/** Every seat token this browser holds (web/seat.js keeps them per game and seat). */
export function heldSeatTokens() {
  const out = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key || !key.startsWith("rebirth.seat.")) continue;
    try {
      const e = JSON.parse(localStorage.getItem(key) || "null");
      if (e && e.role === "seat" && typeof e.token === "string") out.push(e.token);
    } catch { /* a damaged entry is skipped */ }
  }
  return out.slice(0, 200);
}

/** A path of this site to come back to (never another site's address). */
export function safeNext(path) {
  return typeof path === "string" && path.startsWith("/") && !path.startsWith("//") && !path.startsWith("/\\")
    ? path : null;
}

/** Remember where to go after signing in (the mail's link may open in another tab). */
export function keepNext(path) {
  const p = safeNext(path);
  if (p) localStorage.setItem(NEXT, p); else localStorage.removeItem(NEXT);
}

/** Where to go after signing in, once. */
export function takeNext() {
  const p = safeNext(localStorage.getItem(NEXT));
  localStorage.removeItem(NEXT);
  return p;
}

/** The sign-in page, coming back to `path` afterwards. */
export const signinPath = (path) => `/signin?next=${encodeURIComponent(path)}`;

/** Tell the server about seats claimed while signed in (ignored when not signed in). */
export async function attachSeats(tokens) {
  if (!maybeSignedIn() || !tokens.length) return;
  try { await api("/api/account/seats", { method: "POST", body: { tokens } }); } catch { /* a guest after all */ }
}

const b64u = {
  toBuf(s) {
    const b = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
    return Uint8Array.from(b, (c) => c.charCodeAt(0)).buffer;
  },
  fromBuf(buf) {
    let s = "";
    for (const x of new Uint8Array(buf)) s += String.fromCharCode(x);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  },
};

/** `navigator.credentials.create` options from the server's JSON. */
export function creationOptions(o) {
  return { ...o, challenge: b64u.toBuf(o.challenge), user: { ...o.user, id: b64u.toBuf(o.user.id) },
    excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: b64u.toBuf(c.id) })) };
}

/** `navigator.credentials.get` options from the server's JSON. */
export function requestOptions(o) {
  return { ...o, challenge: b64u.toBuf(o.challenge),
    allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: b64u.toBuf(c.id) })) };
}

/** A new or used credential as the JSON the server checks (WebAuthn's own `toJSON` shape). */
export function credentialJson(cred) {
  const r = cred.response;
  const response = { clientDataJSON: b64u.fromBuf(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = b64u.fromBuf(r.attestationObject);
    response.transports = r.getTransports ? r.getTransports() : [];
  } else {
    response.authenticatorData = b64u.fromBuf(r.authenticatorData);
    response.signature = b64u.fromBuf(r.signature);
    if (r.userHandle) response.userHandle = b64u.fromBuf(r.userHandle);
  }
  return { id: cred.id, rawId: b64u.fromBuf(cred.rawId), type: cred.type, response,
    clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
    authenticatorAttachment: cred.authenticatorAttachment || undefined };
}
