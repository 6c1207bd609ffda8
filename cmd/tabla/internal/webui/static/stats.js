// stats.js — the figures of `tabla stats` over the library as charts: the
// results per game and side, the game lengths, the first moves.
"use strict";
const el = Tabla.el;

function panel(title) {
  const d = document.createElement("div");
  d.className = "panel chart";
  const h = document.createElement("div"); h.className = "label"; h.textContent = title; d.appendChild(h);
  document.getElementById("charts").appendChild(d);
  return d;
}
function svgIn(d, w, h) { const s = el("svg", { viewBox: "0 0 " + w + " " + h }, d); return s; }
function text(s, x, y, t, attrs) { const e = el("text", Object.assign({ x, y }, attrs || {}), s); e.textContent = t; return e; }

function results(gs) {
  const d = panel(gs.game + ": results of " + gs.games + " games");
  d.dataset.chart = "results-" + gs.game;
  const parts = gs.sides.map(s => [s + " won", Tabla.sideColour(s), gs.wins[s] || 0])
    .concat([["draw", "#8a93a6", gs.draws], ["unfinished", "#4a5366", gs.unfinished]]);
  const s = svgIn(d, 340, 34 + 20 * parts.length);
  let x = 10;
  for (const [label, col, n] of parts) {
    if (!n) continue;
    const w = 320 * n / gs.games;
    el("title", {}, el("rect", { x, y: 6, width: Math.max(w, 1), height: 20, fill: col }, s)).textContent = label + ": " + n;
    x += w;
  }
  parts.forEach(([label, col, n], i) => {
    const y = 44 + 20 * i;
    el("rect", { x: 10, y: y - 10, width: 12, height: 12, fill: col }, s);
    text(s, 28, y, label + ": " + n + " (" + Tabla.pct(n / gs.games) + ")");
  });
  const fin = gs.games - gs.unfinished - gs.draws;
  if (fin > 0) {
    const p = document.createElement("small");
    p.textContent = "first mover's side won " + gs.first_seat_wins + " of " + fin + " finished (" + Tabla.pct(gs.first_seat_wins / fin) + ")";
    d.appendChild(p);
  }
}

function lengths(gs) {
  const d = panel(gs.game + ": game lengths (plies), mean " + gs.mean_length.toFixed(1) + ", median " + gs.median_length);
  d.dataset.chart = "lengths-" + gs.game;
  const bins = 12, lo = gs.min_length, hi = gs.max_length + 1, counts = new Array(bins).fill(0);
  for (const l of gs.lengths) counts[Math.min(bins - 1, Math.floor((l - lo) * bins / Math.max(1, hi - lo)))]++;
  const top = Math.max(...counts), s = svgIn(d, 340, 130);
  counts.forEach((c, i) => {
    const h = 90 * c / Math.max(1, top), w = 320 / bins;
    const a = lo + Math.floor(i * (hi - lo) / bins), b = lo + Math.floor((i + 1) * (hi - lo) / bins) - 1;
    el("title", {}, el("rect", { x: 10 + i * w + 1, y: 100 - h, width: w - 2, height: h, fill: "#4c8bf5" }, s)).textContent = a + "–" + b + " plies: " + c + " games";
  });
  el("line", { x1: 10, x2: 330, y1: 100, y2: 100, stroke: "#6b7489" }, s);
  text(s, 10, 118, String(lo), { class: "muted" });
  text(s, 330, 118, String(hi - 1), { "text-anchor": "end", class: "muted" });
}

function firstMoves(gs) {
  const d = panel(gs.game + ": first moves");
  d.dataset.chart = "first-" + gs.game;
  const fm = gs.first_moves, top = Math.max(1, ...fm.map(f => f.games)), s = svgIn(d, 340, 10 + 20 * Math.max(1, fm.length));
  fm.forEach((f, i) => {
    const y = 6 + 20 * i, w = 130 * f.games / top;
    text(s, 90, y + 12, f.move, { "text-anchor": "end" });
    el("rect", { x: 96, y, width: Math.max(w, 1), height: 14, fill: "#4c8bf5" }, s);
    text(s, 100 + w, y + 12, f.games + " · " + Tabla.pct(f.wins / f.games) + " won", { class: "muted" });
  });
}

async function start() {
  const r = await fetch("api/stats");
  if (!r.ok) { document.getElementById("summary").textContent = await Tabla.failText(r, "api/stats"); return; }
  const st = await r.json();
  document.getElementById("summary").textContent = st.files + " records" + (st.unreadable ? ", " + st.unreadable + " unreadable" : "");
  for (const gs of st.by_game) { results(gs); lengths(gs); firstMoves(gs); }
}
start();
