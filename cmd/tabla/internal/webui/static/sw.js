// sw.js — the library's service worker (issue 38): the library readable
// offline. The pages, scripts and styles are kept at install; every game,
// analysis, listing and download the pages read is kept as it comes (the
// network first: a page online always shows the server's latest), and
// served from the cache when the server cannot be reached — a laptop away
// from the table, a phone off the club's Wi-Fi. What needs the server to
// think (the engine's lines, a variation's moves) fails offline as it
// would. The cache holds at most MAX answers, the oldest dropped first.
"use strict";
const CACHE = "tabla-library-v1", MAX = 400;
const SHELL = ["./", "game.html", "stats.html", "style.css", "analysis.css", "catalogue.js", "i18n.js", "app.js", "words.js",
  "board.js", "game.js", "library.js", "stats.js", "manifest.webmanifest", "icon.svg", "icon-192.png", "icon-512.png"];

// the listing too, read by the page that installed the worker before the
// worker could see it: without it the library would not open offline
// until a second visit (not waited for: the first listing of a big
// library takes its time)
const LISTING = ["api/info", "api/games", "api/stats"];

self.addEventListener("install", ev => {
  ev.waitUntil(caches.open(CACHE).then(c => {
    for (const u of LISTING) fetch(u).then(r => r.ok && c.put(u, r)).catch(() => { /* kept at the next visit */ });
    return c.addAll(SHELL);
  }).then(() => self.skipWaiting()));
});

self.addEventListener("activate", ev => {
  ev.waitUntil(caches.keys()
    .then(keys => Promise.all(keys.filter(k => k.startsWith("tabla-library-") && k !== CACHE).map(k => caches.delete(k))))
    .then(() => self.clients.claim()));
});

// kept: what a page reads to show a game again; not the engine's
// answers, which are new each time
function keep(url) {
  return !/\/api\/(evaluate|explore|progress)$/.test(url.pathname);
}

async function trim(c) {
  const keys = await c.keys();
  for (let i = 0; i < keys.length - MAX; i++) await c.delete(keys[i]);
}

async function networkFirst(req) {
  const c = await caches.open(CACHE);
  try {
    const r = await fetch(req);
    if (r.ok && r.type === "basic") {
      // a listing that says a game is still being analysed is kept too:
      // offline, the page shows what the server last said
      await c.delete(req);
      await c.put(req, r.clone());
      trim(c);
    }
    return r;
  } catch (err) {
    const hit = await c.match(req) || (req.mode === "navigate" && await c.match(req, { ignoreSearch: true }));
    if (hit) return hit;
    throw err;
  }
}

self.addEventListener("fetch", ev => {
  const req = ev.request, url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== self.location.origin || !url.pathname.startsWith(new URL(self.registration.scope).pathname) || !keep(url)) return;
  ev.respondWith(networkFirst(req));
});
