// app.js — the library's pages as an app (issue 38): the light or dark
// theme, and the service worker that keeps the pages and the games read
// for reading offline (sw.js). Loaded in the head, before the page is
// drawn: the theme is set at once (no flash of the other one) — the one
// chosen with the switch, remembered in the browser like the language, or
// else the system's (prefers-color-scheme), followed as it changes. The
// switch goes into the header once the page is read.
"use strict";
const Theme = (() => {
  const KEY = "tabla.theme", system = matchMedia("(prefers-color-scheme: light)");
  function stored() { try { return localStorage.getItem(KEY); } catch (_) { return null; } }
  function current() { const s = stored(); return s === "light" || s === "dark" ? s : system.matches ? "light" : "dark"; }
  function apply() {
    const t = current();
    document.documentElement.dataset.theme = t;
    const b = document.getElementById("themeswitch");
    if (b && typeof T === "function") {
      // the button says what it does: to the other theme
      b.textContent = t === "dark" ? "☀" : "☾";
      b.title = T(t === "dark" ? "theme.tolight" : "theme.todark");
      b.setAttribute("aria-label", b.title);
    }
  }
  function set(t) { try { localStorage.setItem(KEY, t); } catch (_) { /* private mode: this page only */ } apply(); }
  system.addEventListener("change", apply);
  apply();
  document.addEventListener("DOMContentLoaded", () => {
    const b = document.createElement("button");
    b.id = "themeswitch";
    b.onclick = () => set(current() === "dark" ? "light" : "dark");
    (document.querySelector("header") || document.body).appendChild(b);
    apply();
  });
  // the service worker: where the browser allows one (https, or this
  // machine: http://127.0.0.1, localhost)
  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("sw.js").catch(err => console.warn("service worker:", err));
  }
  return { current, set };
})();
