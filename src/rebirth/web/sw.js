// The service worker (issue 26 item 2; served at /sw.js, scope /, by server/api/pwa.py, which
// fills in the shell and its version). It caches the static shell (the pages' modules, styles
// and icons) and the offline page at install, serves the shell from that cache for a fast start,
// and shows the offline page when a page cannot be loaded. It never touches /api/ or the
// WebSocket, and never caches a page. It also shows web pushes (server/notifications/push.py):
// a click opens (or focuses) the seat's page — the push names no secret; this browser holds the
// seat's token.
const VERSION = "rebirth-__VERSION__";
const SHELL = "__SHELL__";

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(VERSION);
    await cache.addAll(SHELL);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key !== VERSION) await caches.delete(key);
    await self.clients.claim();
  })());
});

/** Requests the worker leaves to the browser: other origins, anything but GET, the REST API and
 * the WebSocket's path. */
function untouched(req, url) {
  return req.method !== "GET" || url.origin !== self.location.origin
    || url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws/")
    || url.pathname === "/sw.js";
}

self.addEventListener("fetch", (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (untouched(req, url)) return;
  if (req.mode === "navigate") {
    // Pages always from the network (never cached); the offline page when it cannot be reached.
    event.respondWith(fetch(req).catch(async () => (await caches.match("/offline")) || Response.error()));
    return;
  }
  if (url.pathname.startsWith("/static/")) {
    // The version is the hash of the shell's contents: a cached file is the current one.
    event.respondWith((async () => {
      const cache = await caches.open(VERSION);
      const hit = await cache.match(req, { ignoreSearch: false });
      if (hit) return hit;
      const res = await fetch(req);
      if (res.ok && SHELL.includes(url.pathname)) await cache.put(req, res.clone());
      return res;
    })());
  }
});

self.addEventListener("push", (event) => {
  let d = {};
  try { d = event.data ? event.data.json() : {}; } catch { d = {}; }
  event.waitUntil(self.registration.showNotification(d.title || "", {
    body: d.body || "", tag: d.tag, renotify: !!d.tag, data: { url: d.url || "/" },
    icon: "/static/icon-192.png", badge: "/static/icon-192.png",
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url || "/", self.location.origin);
  if (target.origin !== self.location.origin) return;
  event.waitUntil((async () => {
    const wins = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    // The seat's page already open: bring it forward; else open it.
    const open = wins.find((c) => new URL(c.url).pathname === target.pathname);
    if (open) return open.focus();
    return self.clients.openWindow(target.href);
  })());
});
