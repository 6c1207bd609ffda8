package browsertest

import (
	"context"
	"fmt"
	"testing"
)

// SwitchLanguage switches the page to lang with the language switch of
// its header (as a player does: the choice is kept, the page drawn again
// in it) and waits for the page to be back, ready when the JavaScript
// expression ready is true.
func SwitchLanguage(t testing.TB, ctx context.Context, lang, ready string) {
	t.Helper()
	Eval[int](t, ctx, fmt.Sprintf(`(() => { const s = document.getElementById("langswitch"); if (!s) throw new Error("no language switch"); s.value = %q; s.dispatchEvent(new Event("change")); return 0; })()`, lang))
	WaitJS(t, ctx, "the page in "+lang, fmt.Sprintf(`document.documentElement.lang === %q && typeof I18N === "object" && I18N.lang === %q && document.readyState === "complete" && (%s)`, lang, lang, ready),
		`document.documentElement.lang + " " + document.readyState`)
}

// LanguageProblems lists what a page shows wrongly in its language: a
// visible text (a text node, a title, a placeholder, an aria-label) that
// is a catalogue key, or a text of the English catalogue (a whole text,
// or a template's words around its arguments) when the page's language
// words it otherwise; and a visible element whose text overflows its box
// (scrollWidth > clientWidth, scroll containers aside).
const LanguageProblems = `(() => {
  const en = I18N_CATALOGUES.en, mine = I18N_CATALOGUES[I18N.lang], out = [];
  const forms = v => typeof v === "string" ? [v] : Object.values(v || {});
  const exact = new Set(), pats = [], keys = new Set(Object.keys(en));
  if (I18N.lang !== "en") for (const k in en) {
    const other = forms(mine[k]);
    for (const f of forms(en[k])) {
      if (other.includes(f) || !/[A-Za-z]{3}/.test(f.replace(/\{\w+\}/g, ""))) continue;
      if (/\{\w+\}/.test(f)) pats.push([k, new RegExp("^" + f.split(/\{\w+\}/).map(x => x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\\S]+") + "$")]);
      else exact.add(f.trim());
    }
  }
  const english = s => exact.has(s) ? s : (pats.find(([k, p]) => p.test(s)) || [])[0];
  const visible = el => {
    if (!el || el.closest("[hidden], script, style, #langswitch")) return false;
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && cs.visibility !== "hidden" && cs.display !== "none";
  };
  const where = el => el.id ? "#" + el.id : el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ? "." + el.className.split(" ")[0] : "");
  const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = w.nextNode());) {
    const s = n.textContent.trim(), el = n.parentElement;
    if (!s || !visible(el) || el.closest("title")) continue;
    if (keys.has(s)) out.push("key shown in " + where(el) + ": " + s);
    else { const e = english(s); if (e) out.push("English in " + where(el) + " (" + e + "): " + s); }
  }
  for (const el of document.querySelectorAll("[title], [placeholder], [aria-label]")) {
    if (!visible(el)) continue;
    for (const a of ["title", "placeholder", "aria-label"]) {
      const v = (el.getAttribute(a) || "").trim();
      if (!v) continue;
      if (keys.has(v)) out.push("key as " + a + " of " + where(el) + ": " + v);
      else { const e = english(v); if (e) out.push("English " + a + " of " + where(el) + " (" + e + "): " + v); }
    }
  }
  for (const el of document.querySelectorAll("body *")) {
    if (!visible(el) || el.closest("svg") || /auto|scroll/.test(getComputedStyle(el).overflowX)) continue;
    if (![...el.childNodes].some(c => c.nodeType === 3 && c.textContent.trim())) continue;
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0) out.push("text overflows " + where(el) + " (" + el.scrollWidth + " > " + el.clientWidth + " px): " + el.textContent.trim().slice(0, 60));
  }
  return out;
})()`

// CheckLanguages switches the page to Turkish and back to English and
// checks it in both (LanguageProblems), saving a screenshot of the
// Turkish page as shot (none when ""). ready is the page's ready
// condition (JavaScript).
func CheckLanguages(t *testing.T, ctx context.Context, page, ready, shot string) {
	t.Helper()
	for _, lang := range []string{"tr", "en"} {
		SwitchLanguage(t, ctx, lang, ready)
		var problems []string
		WaitPage(t, page+" in "+lang+" without problems", func(l *Look) bool {
			problems = Read[[]string](l, ctx, LanguageProblems)
			return len(problems) == 0
		}, func(*Look) string { return fmt.Sprint(problems) })
		if lang == "tr" && shot != "" {
			Screenshot(t, ctx, shot)
		}
	}
}

// ZoomOverCells lists the board's cells that a zoom button covers (their
// drawn boxes, as far as the board shows them, meet a button's box).
const ZoomOverCells = `(() => {
  const svg = document.getElementById("board").getBoundingClientRect(), out = [];
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const buttons = [...document.querySelectorAll("#zoombar button")].filter(b => b.offsetParent !== null).map(b => b.getBoundingClientRect());
  for (const h of document.querySelectorAll("#board .hit")) {
    const r = h.getBoundingClientRect();
    const shown = { left: Math.max(r.left, svg.left), right: Math.min(r.right, svg.right), top: Math.max(r.top, svg.top), bottom: Math.min(r.bottom, svg.bottom) };
    if (shown.left >= shown.right || shown.top >= shown.bottom) continue;
    if (buttons.some(b => meet(b, shown))) out.push(h.dataset.cell);
  }
  return out;
})()`

// HiddenLit lists the lit cells of a role that a player cannot see: not
// wholly inside the board as drawn, inside the window, under the page's
// header.
func HiddenLit(role string) string {
	return `(() => {
  const svg = document.getElementById("board").getBoundingClientRect(), head = document.querySelector("header"), out = [];
  const top = Math.max(0, svg.top, head ? head.getBoundingClientRect().bottom : 0), bottom = Math.min(svg.bottom, window.innerHeight);
  for (const l of document.querySelectorAll('#board .leds [data-role="` + role + `"]')) {
    const r = l.getBoundingClientRect();
    if (r.left < svg.left - 1 || r.right > svg.right + 1 || r.top < top - 1 || r.bottom > bottom + 1) out.push(l.dataset.cell + " at " + Math.round(r.left) + "," + Math.round(r.top));
  }
  return out;
})()`
}
