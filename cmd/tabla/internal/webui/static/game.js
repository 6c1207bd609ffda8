// game.js — the analysis board: one game at any ply drawn as on the live
// page (board.js), the move list, ←/→ to step, the win-probability curve
// (click to jump), blunders and missed wins, the engine's move as an arrow,
// RAY's exact odds. The analysis runs on the server with a progress bar.
"use strict";
const $ = id => document.getElementById(id);
const id = new URLSearchParams(location.search).get("id") || "";
let game = null, board = null, ana = null, k = 0;

function flags(m) {
  if (!m) return "";
  let s = "";
  if (m.missed_win) s += '<span class="flag-missed" title="missed win">missed win</span>';
  if (m.blunder) s += '<span class="flag-blunder" title="blunder: lost ' + (100 * m.loss).toFixed(0) + ' points">blunder</span>';
  return s;
}

// values: every side's win probability at step i
function values(i) {
  if (!ana) return null;
  return i === 0 ? ana.report.start : (ana.report.moves[i - 1] || {}).values;
}

// last: the cells the move into step i changed (shown dim white, as the
// board shows the last move)
function lastCells(i) {
  if (i === 0) return [];
  const a = game.steps[i - 1].pieces || {}, b = game.steps[i].pieces || {};
  return Object.keys(b).filter(c => a[c] !== b[c]);
}

function go(i) {
  k = Math.max(0, Math.min(game.steps.length - 1, i));
  const s = game.steps[k];
  const arrow = ana && ana.best ? ana.best[k] : null;
  board.render({ pieces: s.pieces, leds: Tabla.positionLEDs(s.painted, lastCells(k)), arrow });
  $("ply").textContent = k === 0 ? "start" : "move " + k + " of " + (game.steps.length - 1);
  document.querySelectorAll("#movelist li").forEach(li => li.classList.toggle("current", +li.dataset.step === k));
  const cur = document.querySelector("#movelist li.current"), list = $("movelist");
  if (cur) { // keep the current move in view, scrolling the list only
    if (cur.offsetTop < list.scrollTop) list.scrollTop = cur.offsetTop;
    else if (cur.offsetTop + cur.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = cur.offsetTop + cur.offsetHeight - list.clientHeight;
  }
  let pos;
  if (s.status === "won") pos = "🏆 " + s.winner + " won";
  else if (s.status === "draw") pos = "Draw";
  else pos = (s.to_move || "?") + " to " + s.awaiting;
  if (s.move) pos = "<b>" + Tabla.escapeHTML(s.seat + " " + s.move) + "</b>" + (s.roll ? " <small>on a roll of " + Tabla.escapeHTML(s.roll) + "</small>" : "") + " — " + Tabla.escapeHTML(pos);
  else pos = Tabla.escapeHTML(pos);
  if (s.next_roll) pos += " <small>(then " + Tabla.escapeHTML(s.to_move || "") + " rolls " + Tabla.escapeHTML(s.next_roll) + ")</small>";
  if (s.eliminated && s.eliminated.length) pos += "<br><small>out: " + s.eliminated.map(Tabla.escapeHTML).join(", ") + "</small>";
  if (s.hands) pos += "<br><small>in hand: " + Object.keys(s.hands).map(seat => Tabla.escapeHTML(seat + " " + handText(s.hands[seat]))).join("; ") + "</small>";
  const m = ana && k > 0 ? ana.report.moves[k - 1] : null;
  if (m && (m.blunder || m.missed_win)) pos += '<div class="badges">' + flags(m) + " <small>" + Tabla.pct(m.before) + " → " + Tabla.pct(m.after) + (m.best ? ", engine: " + Tabla.escapeHTML(m.best) : "") + "</small></div>";
  $("position").innerHTML = pos;
  renderOdds();
  renderCursor();
}

function handText(h) {
  if (typeof h !== "object") return String(h);
  return Object.keys(h).filter(x => h[x]).map(x => h[x] + "×" + x).join(" ") || "none";
}

function renderOdds() {
  const v = values(k), t = $("odds");
  t.innerHTML = "";
  $("best").innerHTML = "";
  if (!v) return;
  game.sides.forEach((side, i) => {
    const tr = t.insertRow();
    tr.insertCell().innerHTML = '<span class="dot" style="background:' + Tabla.sideColour(side) + '"></span>' + Tabla.escapeHTML(side);
    tr.insertCell().textContent = Tabla.pct(v[i] || 0);
  });
  const a = ana.best ? ana.best[k] : null;
  if (a) $("best").innerHTML = '<small>engine\'s move here: <b>' + Tabla.escapeHTML(a.move) + "</b> (arrow)</small>";
}

// The curve: one line per side over the steps, blunders (circles) and
// missed wins (squares) on the mover's line, a cursor at the current step.
const C = { w: 600, h: 190, l: 34, r: 8, t: 8, b: 22 };
function cx(i) { return C.l + (C.w - C.l - C.r) * i / Math.max(1, game.steps.length - 1); }
function cy(p) { return C.t + (C.h - C.t - C.b) * (1 - p); }
function drawCurve() {
  const svg = $("curve"), el = Tabla.el;
  svg.innerHTML = "";
  for (const p of [0, .5, 1]) {
    el("line", { x1: C.l, x2: C.w - C.r, y1: cy(p), y2: cy(p), class: "grid" }, svg);
    el("text", { x: C.l - 4, y: cy(p) + 4, "text-anchor": "end", class: "axis" }, svg).textContent = (100 * p) + "%";
  }
  const n = game.steps.length - 1, step = Math.max(1, Math.ceil(n / 10 / 5) * 5);
  for (let i = 0; i <= n; i += step) el("text", { x: cx(i), y: C.h - 6, "text-anchor": "middle", class: "axis" }, svg).textContent = i;
  el("line", { class: "cursor", id: "cursor", y1: C.t, y2: C.h - C.b }, svg);
  if (!ana) return;
  const rep = ana.report;
  rep.sides.forEach((side, si) => {
    const pts = [cx(0) + "," + cy(rep.start[si] || 0)];
    rep.moves.forEach((m, i) => pts.push(cx(i + 1) + "," + cy((m.values || [])[si] || 0)));
    el("polyline", { points: pts.join(" "), fill: "none", stroke: Tabla.sideColour(side), "stroke-width": 2, "stroke-linejoin": "round", "data-side": side }, svg);
  });
  rep.moves.forEach((m, i) => {
    if (!m.blunder && !m.missed_win) return;
    const x = cx(i + 1), y = cy(m.after), col = Tabla.sideColour(m.side);
    const shape = m.missed_win ? el("rect", { x: x - 4.5, y: y - 4.5, width: 9, height: 9, class: "mark missed", stroke: col }, svg)
                               : el("circle", { cx: x, cy: y, r: 4.5, class: "mark blunder", stroke: col }, svg);
    shape.dataset.step = i + 1;
    el("title", {}, shape).textContent = (i + 1) + ". " + m.seat + " " + m.move + ": " + (m.missed_win ? "missed win" : "blunder") + ", " + Tabla.pct(m.before) + " → " + Tabla.pct(m.after) + (m.best ? " (engine: " + m.best + ")" : "");
  });
  // a click anywhere in a step's column jumps there
  const w = (C.w - C.l - C.r) / Math.max(1, n);
  for (let i = 0; i <= n; i++) {
    const r = el("rect", { x: cx(i) - w / 2, y: 0, width: w, height: C.h, class: "hitcol" }, svg);
    r.dataset.step = i;
    r.onclick = () => go(i);
  }
  renderCursor();
}
function renderCursor() {
  const c = document.getElementById("cursor");
  if (c) { c.setAttribute("x1", cx(k)); c.setAttribute("x2", cx(k)); }
}

function moveList() {
  const ol = $("movelist");
  ol.innerHTML = "";
  const add = (i, html) => { const li = document.createElement("li"); li.dataset.step = i; li.innerHTML = html; li.onclick = () => go(i); ol.appendChild(li); };
  add(0, '<span class="n"></span><span>start</span>');
  game.steps.forEach((s, i) => {
    if (i === 0) return;
    const m = ana ? ana.report.moves[i - 1] : null;
    add(i, '<span class="n">' + i + '.</span><span class="dot" style="background:' + Tabla.sideColour(s.seat) + '"></span>' +
      (s.roll ? '<span class="roll">' + Tabla.escapeHTML(s.roll) + ":</span>" : "") + "<span>" + Tabla.escapeHTML(s.move) + '</span><span class="badges">' + flags(m) + "</span>");
  });
}

async function analysis() {
  let r = await fetch("api/analysis?id=" + encodeURIComponent(id));
  if (!r.ok) { $("progresstext").textContent = await Tabla.failText(r, "api/analysis"); $("progressbox").hidden = false; return; }
  let d = await r.json();
  if (d.progress.state === "none" || d.progress.state === "failed" && !analysis.retried) {
    analysis.retried = d.progress.state === "failed";
    r = await fetch("api/analysis?id=" + encodeURIComponent(id), { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    if (!r.ok) { $("progresstext").textContent = await Tabla.failText(r, "api/analysis"); $("progressbox").hidden = false; return; }
    d = await r.json();
  }
  const p = d.progress;
  if (p.state === "done" && d.report) {
    ana = d;
    $("progressbox").hidden = true;
    $("level").textContent = "(level " + d.level + ", " + d.report.algorithm + (game.entry.game === "ray" ? "; RAY: exact odds" : "") + ")";
    $("oddslabel").textContent = game.entry.game === "ray" ? "Exact odds (independent walkers)" : "Win chances";
    $("dlcurve").classList.remove("off");
    moveList(); drawCurve(); go(k);
    return;
  }
  $("progressbox").hidden = false;
  if (p.state === "failed") { console.warn("analysis failed:", p.error); $("progresstext").textContent = "The analysis could not be finished. Reload the page to try again."; return; }
  $("bar").style.width = (p.total ? 100 * p.done / p.total : 0) + "%";
  $("progresstext").textContent = p.state === "queued" ? "analysis queued…" : "analysing: " + p.done + " of " + (p.total || "?") + " positions";
  setTimeout(analysis, 400);
}

async function start() {
  const r = await fetch("api/game?id=" + encodeURIComponent(id));
  if (!r.ok) { document.querySelector("main").innerHTML = '<p class="error"></p>'; document.querySelector(".error").textContent = await Tabla.failText(r, "api/game"); return; }
  game = await r.json();
  const e = game.entry;
  document.title = "tabla — " + e.game + " " + e.id;
  $("title").textContent = e.game + (e.variant && e.variant !== "basic" ? " " + e.variant : "") + " — " + e.id;
  $("info").innerHTML = game.seats.map(s => '<span class="dot" style="background:' + Tabla.sideColour(s) + '"></span>' + Tabla.escapeHTML(s)).join(" ") +
    "<br><small>" + Tabla.escapeHTML(new Date(e.date).toLocaleString()) + " · " + e.plies + " plies · " + Tabla.escapeHTML(e.result) + "</small>";
  $("dlrecord").href = "download/record?id=" + encodeURIComponent(id);
  $("dlcurve").href = "download/curve.svg?id=" + encodeURIComponent(id);
  board = new Tabla.Board($("board"), game.board);
  moveList(); drawCurve(); go(0);
  $("first").onclick = () => go(0);
  $("prev").onclick = () => go(k - 1);
  $("next").onclick = () => go(k + 1);
  $("last").onclick = () => go(game.steps.length - 1);
  document.addEventListener("keydown", ev => {
    if (ev.target.tagName === "INPUT") return;
    const to = { ArrowLeft: k - 1, ArrowRight: k + 1, Home: 0, End: game.steps.length - 1 }[ev.key];
    if (to !== undefined) { ev.preventDefault(); go(to); }
  });
  analysis();
}
start();
