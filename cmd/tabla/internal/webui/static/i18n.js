// i18n.js — the players' language on every page (webui's and the hub's).
// The catalogues (catalogue.js, from cmd/tabla/internal/i18n) hold every
// text; the browser's languages choose one, the switch in the header
// overrides it and is remembered. I18N.t renders a key with arguments
// ({seat}), plural forms by Intl.PluralRules and numbers by
// Intl.NumberFormat; elements with data-i18n (and data-i18n-title,
// -placeholder, -aria-label) take their text from the catalogue, with
// the arguments of data-i18n-args.
"use strict";
const I18N = (() => {
  const C = typeof I18N_CATALOGUES === "object" ? I18N_CATALOGUES : { en: {} };
  // short on the page (a phone's header is narrow), whole in the menu's title
  const NAMES = { en: "EN", tr: "TR" }, LONG = { en: "English", tr: "Türkçe" };
  const KEY = "tabla.lang";
  function stored() { try { return localStorage.getItem(KEY); } catch (_) { return null; } }
  function pick() {
    const s = stored();
    if (s && C[s]) return s;
    for (const l of (navigator.languages || [navigator.language || "en"])) {
      const p = String(l).toLowerCase().split("-")[0];
      if (C[p]) return p;
    }
    return "en";
  }
  const lang = pick();
  const locale = lang === "tr" ? "tr-TR" : "en-GB";
  const plural = new Intl.PluralRules(locale), numbers = new Intl.NumberFormat(locale);

  // arg renders one argument: a number in the language's digits, a Text
  // from the server ({key, args}) in words, anything else as it is.
  function arg(v) {
    if (typeof v === "number") return numbers.format(v);
    if (v && typeof v === "object" && typeof v.key === "string") return t(v.key, v.args);
    return String(v);
  }
  // t renders a key with its arguments; a key the catalogue lacks is
  // said in English, or as the key itself (the tests find those).
  function t(key, args) {
    let v = C[lang][key];
    if (v === undefined) v = C.en[key];
    if (v === undefined) { console.warn("i18n: no text for", key); return key; }
    if (typeof v === "object") v = v[plural.select(+((args || {}).n) || 0)] || v.other;
    return v.replace(/\{(\w+)\}/g, (m, k) => args && k in args ? arg(args[k]) : m);
  }
  // has: the catalogue has the key
  function has(key) { return key in C.en; }
  // text renders a server's Text ({key, args}), or a plain string as it is
  function text(x) { return x && typeof x === "object" ? t(x.key, x.args) : (x || ""); }

  // Seats and sides as the language names them ("red2": "kırmızı 2").
  function seat(s) {
    if (s == null) return "";
    const m = /^([a-z]+)([0-9]*)$/.exec(String(s));
    if (!m || !has("seat." + m[1])) return String(s);
    return t("seat." + m[1]) + (m[2] ? " " + m[2] : "");
  }

  // apply gives the marked elements under root their texts (arguments,
  // if any, as JSON in data-i18n-args: the hub's printed pages).
  function apply(root) {
    for (const e of root.querySelectorAll("[data-i18n]")) {
      let args;
      try { args = e.dataset.i18nArgs ? JSON.parse(e.dataset.i18nArgs) : undefined; } catch (_) { console.warn("i18n: bad arguments of", e.dataset.i18n); }
      e.textContent = t(e.dataset.i18n, args);
    }
    for (const a of ["title", "placeholder", "aria-label"]) {
      for (const e of root.querySelectorAll("[data-i18n-" + a + "]")) e.setAttribute(a, t(e.getAttribute("data-i18n-" + a)));
    }
  }

  // switcher: the language switch in the header (or the page's top), a
  // choice kept in the browser; the page is drawn again in it.
  function switcher() {
    const s = document.createElement("select");
    s.id = "langswitch";
    s.setAttribute("aria-label", t("lang.switch"));
    s.title = t("lang.switch");
    for (const l of Object.keys(C)) {
      const o = document.createElement("option");
      o.value = l; o.textContent = NAMES[l] || l; o.title = LONG[l] || l; o.lang = l;
      if (l === lang) o.selected = true;
      s.appendChild(o);
    }
    s.onchange = () => { try { localStorage.setItem(KEY, s.value); } catch (_) { /* private mode: this page only */ } location.reload(); };
    const h = document.querySelector("header") || document.body;
    h.appendChild(s);
  }

  document.documentElement.lang = lang;
  apply(document);
  switcher();
  const tenths = new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  return { lang, locale, t, has, text, seat, apply, number: n => numbers.format(n), tenths: n => tenths.format(n) };
})();
const T = I18N.t;
