// stats.js — the figures of `tabla stats` over the library as charts: the
// results per game and side, the game lengths, the first moves. A tap on a
// bar opens its game (a bar of one game) or the library showing its games;
// the bars' tap areas are at least 44 px on every screen.
"use strict";
const el = Tabla.el;

// link makes an SVG element open href on a tap (and the keyboard's Enter).
function link(node, href) {
  node.dataset.open = href;
  node.setAttribute("role", "link");
  node.setAttribute("tabindex", "0");
  node.addEventListener("click", () => { location.href = href; });
  node.addEventListener("keydown", ev => { if (ev.key === "Enter") location.href = href; });
  return node;
}
function libraryLink(params) { return "./?" + new URLSearchParams(params).toString(); }
function gameLink(id) { return "game.html?id=" + encodeURIComponent(id); }

function panel(title) {
  const d = document.createElement("div");
  d.className = "panel chart";
  const h = document.createElement("div"); h.className = "label"; h.textContent = title; d.appendChild(h);
  document.getElementById("charts").appendChild(d);
  return d;
}
function svgIn(d, w, h) { const s = el("svg", { viewBox: "0 0 " + w + " " + h }, d); return s; }
// tapUnits: how many of the chart's units (its SVG is 340 wide, scaled to
// its panel) make 44 CSS px, a finger's tap, at least 20
function tapUnits(s) { const w = s.getBoundingClientRect().width || 340; return Math.max(20, Math.ceil(44 * 340 / w)); }
function text(s, x, y, t, attrs) { const e = el("text", Object.assign({ x, y }, attrs || {}), s); e.textContent = t; return e; }

function results(gs) {
  const d = panel(T("stats.results", { game: gs.game, n: gs.games }));
  d.dataset.chart = "results-" + gs.game;
  const parts = gs.sides.map(s => [T("result.won", { who: I18N.seat(s) }), Tabla.sideColour(s), gs.wins[s] || 0])
    .concat([[T("result.draw"), "#8a93a6", gs.draws], [T("result.unfinished"), "#4a5366", gs.unfinished]]);
  const s = svgIn(d, 340, 34 + 44 * parts.length), pitch = tapUnits(s);
  s.setAttribute("viewBox", "0 0 340 " + (34 + pitch * parts.length));
  const results = gs.sides.map(side => "side:" + side).concat(["draw", "unfinished"]);
  let x = 10;
  parts.forEach(([label, col, n], i) => {
    if (!n) return;
    const w = 320 * n / gs.games;
    // the bar shows the shares; its rows below are the links (a thin
    // share would be too small to tap)
    const r = el("rect", { x, y: 6, width: Math.max(w, 1), height: 20, fill: col }, s);
    el("title", {}, r).textContent = label + ": " + n;
    x += w;
  });
  parts.forEach(([label, col, n], i) => {
    const y = 44 + pitch * i;
    el("rect", { x: 10, y: y - 10, width: 12, height: 12, fill: col }, s);
    text(s, 28, y, label + ": " + I18N.number(n) + " (" + Tabla.pct(n / gs.games) + ")");
    if (n) link(el("rect", { x: 0, y: y - pitch / 2 - 4, width: 340, height: pitch, fill: "transparent", class: "hitrow" }, s), libraryLink({ game: gs.game, result: results[i] }));
  });
  const fin = gs.games - gs.unfinished - gs.draws;
  if (fin > 0) {
    const p = document.createElement("small");
    p.textContent = T("stats.firstwon", { won: gs.first_seat_wins, n: fin, pct: Tabla.pct(gs.first_seat_wins / fin) });
    d.appendChild(p);
  }
}

function lengths(gs) {
  const d = panel(T("stats.lengths", { game: gs.game, mean: I18N.number(+gs.mean_length.toFixed(1)), median: gs.median_length }));
  d.dataset.chart = "lengths-" + gs.game;
  const s = svgIn(d, 340, 130);
  // as many bins as columns of 44 px fit, 12 at most
  const bins = Math.max(1, Math.min(12, Math.floor(320 / tapUnits(s)))), lo = gs.min_length, hi = gs.max_length + 1, counts = new Array(bins).fill(0), ids = counts.map(() => []);
  const binOf = l => Math.min(bins - 1, Math.floor((l - lo) * bins / Math.max(1, hi - lo)));
  gs.lengths.forEach((l, i) => { counts[binOf(l)]++; ids[binOf(l)].push(gs.ids[i]); });
  const top = Math.max(...counts);
  counts.forEach((c, i) => {
    const h = 90 * c / Math.max(1, top), w = 320 / bins;
    const a = lo + Math.floor(i * (hi - lo) / bins), b = lo + Math.floor((i + 1) * (hi - lo) / bins) - 1;
    const r = el("rect", { x: 10 + i * w + 1, y: 100 - h, width: w - 2, height: h, fill: "#4c8bf5" }, s);
    el("title", {}, r).textContent = T("plies", { n: a + "–" + b }) + ": " + T("lib.games", { n: c });
    if (!c) return;
    const href = c === 1 ? gameLink(ids[i][0]) : libraryLink({ game: gs.game, plies: a + "-" + b });
    const hit = el("rect", { x: 10 + i * w, y: 0, width: w, height: 104, fill: "transparent", class: "hitcol" }, s);
    el("title", {}, hit).textContent = T("plies", { n: a + "–" + b }) + ": " + T("stats.open", { n: c });
    link(hit, href);
    hit.dataset.count = c;
  });
  el("line", { x1: 10, x2: 330, y1: 100, y2: 100, stroke: "#6b7489" }, s);
  text(s, 10, 118, String(lo), { class: "muted" });
  text(s, 330, 118, String(hi - 1), { "text-anchor": "end", class: "muted" });
}

function firstMoves(gs) {
  const d = panel(T("stats.first", { game: gs.game }));
  d.dataset.chart = "first-" + gs.game;
  const fm = gs.first_moves, top = Math.max(1, ...fm.map(f => f.games)), s = svgIn(d, 340, 10 + 44 * Math.max(1, fm.length)), pitch = tapUnits(s);
  s.setAttribute("viewBox", "0 0 340 " + (10 + pitch * Math.max(1, fm.length)));
  fm.forEach((f, i) => {
    const y = 6 + pitch * i + (pitch - 20) / 2, w = 130 * f.games / top;
    text(s, 90, y + 12, f.move, { "text-anchor": "end" });
    el("rect", { x: 96, y, width: Math.max(w, 1), height: 14, fill: "#4c8bf5" }, s);
    text(s, 100 + w, y + 12, I18N.number(f.games) + " · " + T("stats.won", { pct: Tabla.pct(f.wins / f.games) }), { class: "muted" });
    const hit = el("rect", { x: 0, y: 6 + pitch * i - 3, width: 340, height: pitch, fill: "transparent", class: "hitrow" }, s);
    el("title", {}, hit).textContent = f.move + ": " + T("stats.open", { n: f.games });
    link(hit, f.games === 1 ? gameLink(f.example) : libraryLink({ game: gs.game, first: f.move }));
    hit.dataset.count = f.games;
    hit.dataset.move = f.move;
  });
}

// watchIndex counts the files the first index has read while api/stats
// waits for it.
async function watchIndex(pending) {
  while (pending.waiting) {
    try {
      const p = await (await fetch("api/progress")).json();
      if (pending.waiting && p.indexing && p.total) document.getElementById("summary").textContent = T("lib.reading") + " " + T("lib.progress", { read: p.read, n: p.total });
    } catch (_) { /* the statistics' own error says it */ }
    await new Promise(ok => setTimeout(ok, 250));
  }
}

async function start() {
  const pending = { waiting: true };
  watchIndex(pending);
  const r = await fetch("api/stats");
  pending.waiting = false;
  if (!r.ok) { document.getElementById("summary").textContent = await Tabla.failText(r, "api/stats"); return; }
  const st = await r.json();
  document.getElementById("summary").textContent = T("stats.records", { n: st.files }) + (st.unreadable ? ", " + T("lib.unreadable", { n: st.unreadable }) : "");
  for (const gs of st.by_game) { results(gs); lengths(gs); firstMoves(gs); }
}
start();
