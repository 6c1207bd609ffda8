// game.js — the analysis board: one game at any ply drawn as on the live
// page (board.js), the move list, the win-probability curve (tap or drag
// to jump), the tiers of every move (inaccuracy ?!, mistake ?, blunder ??,
// missed win) and each seat's accuracy, the better move drawn as an arrow
// at a mistake, the engine's best lines with their depth, variations
// played on the board (tap a piece, tap a lit cell) with the evaluation
// following, stepping by keys, swipes and the wheel, a link to any ply
// (game.html?id=…&ply=17, and &m=MOVE… for a variation) and the exports.
// The analysis runs on the server with a progress bar. As on lichess
// (issue 38): an evaluation bar beside the board, ↑/↓ and Home/End to the
// ends, f or ⇅ to flip the board, the players' names, the event, the
// clocks and each move's time from the record, and the variations kept as
// a tree in the browser, shown in the move list after the move they
// branch from, in links and in the annotated download.
"use strict";
const $ = id => document.getElementById(id);
const params = new URLSearchParams(location.search);
const id = params.get("id") || "";
let game = null, board = null, ana = null, k = 0;
// var: the variation being explored ({ply, line, data}), null on the game
let variation = null, selected = null, legalAt = null, legalSeq = 0, evalSeq = 0, evalTimer = 0;
// resume: the one-move variation ← just left, which → plays again
let resume = null;
const TIER = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const TIERWORD = { inaccuracy: T("tier.inaccuracy"), mistake: T("tier.mistake"), blunder: T("tier.blunder") };

function flags(m) {
  if (!m) return "";
  let s = "";
  if (m.missed_win) s += '<span class="flag-missed" title="' + Tabla.escapeHTML(T("tier.missed")) + '">' + Tabla.escapeHTML(T("tier.missed")) + "</span>";
  if (m.tier) s += '<span class="flag-' + m.tier + '" data-tier="' + m.tier + '" title="' + Tabla.escapeHTML(T("tier.lost", { tier: TIERWORD[m.tier], n: Math.round(100 * m.loss) })) + '">' + TIER[m.tier] + " " + Tabla.escapeHTML(TIERWORD[m.tier]) + "</span>";
  return s;
}
function flagged(m) { return !!m && (!!m.tier || !!m.missed_win); }

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

// arrowAt is the arrow drawn at step i: at a flagged move the better move
// the engine named for it (from the position before it, Best[i-1]), else
// the engine's move from this position (Best[i]).
function arrowAt(i) {
  if (!ana || !ana.best) return null;
  const m = i > 0 ? ana.report.moves[i - 1] : null;
  if (flagged(m) && m.best && m.best !== m.move && ana.best[i - 1]) return Object.assign({ kind: "better" }, ana.best[i - 1]);
  return ana.best[i] || null;
}

// A long game comes a page of steps at a time (api/game's from and count):
// game.steps holds the page loaded, by step number, game.total counts them.
const PAGE = 1000;
let pageSeq = 0;
function pageIn(p) { const page = p.steps; game.steps = []; page.forEach((s, i) => { game.steps[p.from + i] = s; }); }
async function loadPage(i) {
  const seq = ++pageSeq, from = Math.max(0, i - PAGE / 2);
  const r = await fetch("api/game?id=" + encodeURIComponent(id) + "&from=" + from + "&count=" + PAGE);
  if (!r.ok || seq !== pageSeq) return false;
  pageIn(await r.json());
  moveList();
  return true;
}

function go(i) {
  variation = null; selected = null; resume = null;
  $("varbox").hidden = true;
  k = Math.max(0, Math.min(game.total - 1, i));
  if (!game.steps[k] || (k > 0 && !game.steps[k - 1])) { // off the page loaded
    const want = k;
    loadPage(k).then(ok => { if (ok && k === want && game.steps[k]) go(k); });
    return;
  }
  const s = game.steps[k];
  board.render({ pieces: s.pieces, leds: Tabla.positionLEDs(s.painted, lastCells(k)), arrow: arrowAt(k) });
  // move numbers as written in a record (no thousands' separator)
  $("ply").textContent = k === 0 ? T("ana.start") : T("ana.ply", { k: String(k), n: String(game.total - 1) });
  document.querySelectorAll("#movelist li").forEach(li => li.classList.toggle("current", +li.dataset.step === k));
  const cur = document.querySelector("#movelist li.current"), list = $("movelist");
  if (cur) { // keep the current move in view, scrolling the list only
    if (cur.offsetTop < list.scrollTop) list.scrollTop = cur.offsetTop;
    else if (cur.offsetTop + cur.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = cur.offsetTop + cur.offsetHeight - list.clientHeight;
  }
  let pos = stateText(s);
  if (s.move) pos = "<b>" + Tabla.escapeHTML(I18N.seat(s.seat) + " " + s.move) + "</b>" + (s.roll ? " <small>" + Tabla.escapeHTML(T("ana.onroll", { roll: Words.face(s.roll) })) + "</small>" : "") + " — " + Tabla.escapeHTML(pos);
  else pos = Tabla.escapeHTML(pos);
  if (s.next_roll) pos += " <small>" + Tabla.escapeHTML(T("ana.thenrolls", { who: I18N.seat(s.to_move || ""), roll: Words.face(s.next_roll) })) + "</small>";
  if (s.eliminated && s.eliminated.length) pos += "<br><small>" + Tabla.escapeHTML(T("ana.out", { who: s.eliminated.map(I18N.seat).join(", ") })) + "</small>";
  if (s.hands) pos += "<br><small>" + Tabla.escapeHTML(T("ana.inhand", { hands: Object.keys(s.hands).map(seat => I18N.seat(seat) + " " + handText(s.hands[seat])).join("; ") })) + "</small>";
  const m = ana && k > 0 ? ana.report.moves[k - 1] : null;
  if (flagged(m)) {
    pos += '<div class="badges" id="verdict">' + flags(m) + " <small>" + Tabla.pct(m.before) + " → " + Tabla.pct(m.after) + "</small>";
    if (m.best && m.best !== m.move) pos += '<div class="better">' + Tabla.escapeHTML(T("ana.better")) + ' <b id="bettermove">' + Tabla.escapeHTML(m.best) + "</b> " + Tabla.escapeHTML(T("ana.thearrow")) + "</div>";
    pos += "</div>";
  }
  $("position").innerHTML = pos;
  renderOdds(values(k));
  renderPlayers(s);
  renderCursor();
  markTree();
  history.replaceState(null, "", "?" + lineQuery(k, []) + flipQuery());
  legalAt = null;
  fetchLegal();
  evaluateSoon();
}

function handText(h) {
  if (typeof h !== "object") return String(h);
  return Object.keys(h).filter(x => h[x]).map(x => h[x] + "×" + x).join(" ") || T("ana.none");
}

// stateText: whose turn it is at a step, or the result, in words.
function stateText(s) {
  if (s.status === "won") return "🏆 " + T("ana.won", { who: I18N.seat(s.winner) });
  if (s.status === "draw") return T("turn.draw");
  return T(s.awaiting === "roll" ? "turn.roll" : "turn.move", { who: I18N.seat(s.to_move || "?") });
}

function renderOdds(v) {
  renderBar(v);
  const t = $("odds");
  t.innerHTML = "";
  $("best").innerHTML = "";
  if (!v) return;
  game.sides.forEach((side, i) => {
    const tr = t.insertRow();
    tr.insertCell().innerHTML = '<span class="dot" style="background:' + Tabla.sideColour(side) + '"></span>' + Tabla.escapeHTML(I18N.seat(side));
    tr.insertCell().textContent = Tabla.pct(v[i] || 0);
  });
  if (variation) return;
  const a = arrowAt(k);
  if (a && a.kind !== "better") $("best").innerHTML = "<small>" + Tabla.escapeHTML(T("ana.enginemove")) + " <b>" + Tabla.escapeHTML(a.move) + "</b> " + Tabla.escapeHTML(T("ana.thearrow")) + "</small>";
}

// renderBar: the evaluation bar, each side's win probability a share of
// its height in the side's colour (the first side at the bottom, at the
// top once the board is flipped); empty until there is an evaluation.
function renderBar(v) {
  const bar = $("evalbar");
  bar.innerHTML = "";
  bar.classList.toggle("flipped", !!board.flipped);
  fitBar();
  if (!v) { bar.title = ""; return; }
  const sum = game.sides.reduce((a, _, i) => a + (v[i] || 0), 0) || 1;
  const words = [];
  game.sides.forEach((side, i) => {
    const d = document.createElement("div");
    d.dataset.side = side;
    d.style.background = Tabla.sideColour(side);
    d.style.height = (100 * (v[i] || 0) / sum).toFixed(2) + "%";
    bar.appendChild(d);
    words.push(I18N.seat(side) + " " + Tabla.pct(v[i] || 0));
  });
  bar.title = words.join(", ");
  bar.setAttribute("aria-label", T("ana.evalbar") + ": " + bar.title);
}

// fitBar stands the bar beside the board as drawn: as tall as the
// drawing, just left of it (a tall board leaves room at its sides).
function fitBar() {
  const bar = $("evalbar"), svg = $("board"), vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
  if (!vb || !vb.width || !vb.height || !r.width) return;
  const scale = Math.min(r.width / vb.width, r.height / vb.height), w = vb.width * scale, h = vb.height * scale;
  bar.style.height = h.toFixed(1) + "px";
  bar.style.transform = "translate(" + ((r.width - w) / 2).toFixed(1) + "px," + ((r.height - h) / 2).toFixed(1) + "px)";
}

// renderPlayers: the players' names by their seats, the event, and each
// seat's clock at step s, as the record keeps them (the header's names,
// event, round, site and date; the clock charged with each move's time).
function renderPlayers(s) {
  const h = game.header || {}, names = h.names || {};
  const ev = [h.event, h.round ? T("who.round.n", { round: h.round }) : "", h.site, h.date].filter(Boolean).join(" · ");
  const clocks = s && s.clocks;
  const any = ev || Object.keys(names).length || clocks;
  $("players").hidden = !any;
  if (!any) return;
  $("eventline").textContent = ev;
  $("eventline").hidden = !ev;
  const list = $("playerlist");
  list.innerHTML = "";
  const seats = board && board.flipped ? game.seats.slice().reverse() : game.seats;
  for (const seat of seats) {
    const row = document.createElement("div");
    row.className = "player" + (s && s.to_move === seat && s.status === "playing" ? " tomove" : "");
    row.dataset.seat = seat;
    let html = '<span class="dot" style="background:' + Tabla.sideColour(seat) + '"></span>';
    html += names[seat] ? '<span class="pname">' + Tabla.escapeHTML(names[seat]) + '</span> <span class="seatname">' + Tabla.escapeHTML(I18N.seat(seat)) + "</span>"
      : '<span class="pname">' + Tabla.escapeHTML(I18N.seat(seat)) + "</span>";
    if (clocks && seat in clocks) html += '<span class="clock' + (clocks[seat] < 10000 ? " low" : "") + '" title="' + Tabla.escapeHTML(T("ana.clockleft")) + '">' + Tabla.escapeHTML(Tabla.clockText(clocks[seat])) + "</span>";
    row.innerHTML = html;
    list.appendChild(row);
  }
}

// moveTime: the time a move took, as the live page shows it
function moveTime(ms) {
  return '<span class="ms" title="' + Tabla.escapeHTML(T("moves.time")) + '">' + Tabla.escapeHTML(ms < 60000 ? T("unit.seconds", { s: I18N.tenths(ms / 1000) }) : Tabla.clockText(ms)) + "</span>";
}

// accuracy: each seat's accuracy and its moves by tier.
function renderAccuracy() {
  const t = $("acc");
  t.innerHTML = "<tr><th></th><th>" + Tabla.escapeHTML(T("ana.acc.head")) + '</th><th title="' + Tabla.escapeHTML(T("tier.inaccuracies")) + '">?!</th><th title="' + Tabla.escapeHTML(T("tier.mistakes")) + '">?</th><th title="' + Tabla.escapeHTML(T("tier.blunders")) + '">??</th></tr>';
  for (const p of ana.report.players) {
    const tr = t.insertRow();
    tr.dataset.seat = p.seat;
    tr.insertCell().innerHTML = '<span class="dot" style="background:' + Tabla.sideColour(p.seat) + '"></span>' + Tabla.escapeHTML(I18N.seat(p.seat));
    const a = tr.insertCell(); a.className = "accuracy"; a.textContent = p.accuracy >= 0 ? Tabla.pctWhole(p.accuracy / 100) : "—";
    if (p.accuracy < 0) a.title = T("ana.acc.none");
    for (const n of [p.inaccuracies, p.mistakes, p.blunders]) tr.insertCell().textContent = n || 0;
  }
  $("acchelp1").textContent = T("ana.help.1", { n: Math.round(100 * ana.blunder) });
  $("accbox").hidden = false;
}

// The curve: one line per side over the steps, the flagged moves on the
// mover's line (blunders and mistakes circles, inaccuracies small, missed
// wins squares), a cursor at the current step. A tap or a drag anywhere
// jumps to the nearest step.
const C = { w: 600, h: 190, l: 34, r: 8, t: 8, b: 22 };
function cx(i) { return C.l + (C.w - C.l - C.r) * i / Math.max(1, game.total - 1); }
function cy(p) { return C.t + (C.h - C.t - C.b) * (1 - p); }
function drawCurve() {
  const svg = $("curve"), el = Tabla.el;
  svg.innerHTML = "";
  for (const p of [0, .5, 1]) {
    el("line", { x1: C.l, x2: C.w - C.r, y1: cy(p), y2: cy(p), class: "grid" }, svg);
    el("text", { x: C.l - 4, y: cy(p) + 4, "text-anchor": "end", class: "axis" }, svg).textContent = Tabla.pct(p);
  }
  const n = game.total - 1, step = Math.max(1, Math.ceil(n / 10 / 5) * 5);
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
    if (!flagged(m)) return;
    const x = cx(i + 1), y = cy(m.after), col = Tabla.sideColour(m.side);
    const r = m.tier === "inaccuracy" ? 3 : 4.5;
    const shape = m.missed_win ? el("rect", { x: x - 4.5, y: y - 4.5, width: 9, height: 9, class: "mark missed", stroke: col }, svg)
                               : el("circle", { cx: x, cy: y, r, class: "mark " + m.tier, stroke: col }, svg);
    shape.dataset.step = i + 1;
    el("title", {}, shape).textContent = (i + 1) + ". " + I18N.seat(m.seat) + " " + m.move + ": " + (m.missed_win ? T("tier.missed") : TIERWORD[m.tier]) + ", " + Tabla.pct(m.before) + " → " + Tabla.pct(m.after) + (m.best ? " " + T("ana.betterwas", { move: m.best }) : "");
  });
  // columns per step (titles and tests), not for a long game; the svg's
  // own handler jumps
  const w = (C.w - C.l - C.r) / Math.max(1, n);
  for (let i = 0; i <= n && n <= 2 * PAGE; i++) {
    const r = el("rect", { x: cx(i) - w / 2, y: 0, width: w, height: C.h, class: "hitcol" }, svg);
    r.dataset.step = i;
  }
  renderCursor();
}
function renderCursor() {
  const c = document.getElementById("cursor");
  if (c) { c.setAttribute("x1", cx(k)); c.setAttribute("x2", cx(k)); }
}
function curveStep(ev) {
  const r = $("curve").getBoundingClientRect(), x = (ev.clientX - r.left) * C.w / r.width;
  const n = game.total - 1;
  return Math.max(0, Math.min(n, Math.round((x - C.l) / ((C.w - C.l - C.r) / Math.max(1, n)))));
}

function moveList() {
  const ol = $("movelist");
  ol.innerHTML = "";
  const add = (i, html) => { const li = document.createElement("li"); li.dataset.step = i; li.innerHTML = html; li.onclick = () => go(i); ol.appendChild(li); };
  if (game.steps[0]) add(0, '<span class="n"></span><span>' + Tabla.escapeHTML(T("ana.start")) + "</span>");
  game.steps.forEach((s, i) => {
    if (i === 0) return;
    const m = ana ? ana.report.moves[i - 1] : null;
    add(i, '<span class="n">' + i + '.</span><span class="dot" style="background:' + Tabla.sideColour(s.seat) + '"></span>' +
      (s.roll ? '<span class="roll">' + Tabla.escapeHTML(s.roll) + ":</span>" : "") + "<span>" + Tabla.escapeHTML(s.move) + '</span><span class="badges">' + flags(m) + "</span>" +
      (s.ms != null ? moveTime(s.ms) : ""));
  });
  treeList();
}

// --- the tree of variations --------------------------------------------------

// tree: the variations played on this game, kept in this browser: lines
// {ply, line} played from step ply, none the beginning of another; lines
// from one step that share their beginning are a variation and its
// sub-variations. At most MAXVARS, the oldest forgotten first.
const TREEKEY = "tabla.vars." + id, MAXVARS = 64;
let tree = loadTree();
function loadTree() {
  try {
    const t = JSON.parse(localStorage.getItem(TREEKEY) || "[]");
    return Array.isArray(t) ? t.filter(v => v && Number.isInteger(v.ply) && Array.isArray(v.line) && v.line.length && v.line.every(m => typeof m === "string")).slice(-MAXVARS) : [];
  } catch (_) { return []; }
}
function isPrefix(a, b) { return a.length <= b.length && a.every((m, i) => m === b[i]); }
// remember adds a line to the tree (replacing a line it continues)
function remember(ply, line) {
  if (!line.length || tree.some(v => v.ply === ply && isPrefix(line, v.line))) return;
  tree = tree.filter(v => !(v.ply === ply && isPrefix(v.line, line)));
  tree.push({ ply, line: line.slice() });
  if (tree.length > MAXVARS) tree = tree.slice(-MAXVARS);
  try { localStorage.setItem(TREEKEY, JSON.stringify(tree)); } catch (_) { /* private mode: this page only */ }
  treeList();
  markTree();
}
// continuation: a line of the tree that goes on from the variation shown
function continuation(ply, line) {
  return tree.find(v => v.ply === ply && v.line.length > line.length && isPrefix(line, v.line)) || null;
}
// annotatedHref: the annotated record with the tree's variations
function annotatedHref() {
  return "download/annotated?id=" + encodeURIComponent(id) + tree.map(v => "&v=" + encodeURIComponent(JSON.stringify([v.ply].concat(v.line)))).join("");
}

// treeList writes the tree into the move list as lichess does: after the
// move a variation replaces (the game's move ply+1), its moves in a row,
// a sub-variation in brackets after the move it replaces. A tap on a
// move opens the variation there.
function treeList() {
  const ol = $("movelist");
  ol.querySelectorAll("li.vars").forEach(li => li.remove());
  $("dlannotated").href = annotatedHref();
  const plies = [...new Set(tree.map(v => v.ply))].sort((a, b) => a - b);
  for (const ply of plies) {
    const anchor = ol.querySelector('li[data-step="' + (ply + 1) + '"]') || ol.querySelector('li[data-step="' + ply + '"]');
    if (!anchor) continue; // off the page loaded
    const root = new Map();
    for (const v of tree) {
      if (v.ply !== ply) continue;
      let n = root;
      for (const m of v.line) { if (!n.has(m)) n.set(m, new Map()); n = n.get(m); }
    }
    const li = document.createElement("li");
    li.className = "vars";
    li.dataset.ply = ply;
    writeNode(li, root, ply, []);
    anchor.after(li);
  }
}
function writeNode(out, node, ply, path) {
  let entries = [...node.entries()];
  while (entries.length) {
    const [m, child] = entries[0];
    writeMove(out, ply, path.concat([m]));
    for (const [alt, sub] of entries.slice(1)) {
      const paren = document.createElement("span");
      paren.className = "vparen";
      paren.append("(");
      writeMove(paren, ply, path.concat([alt]));
      writeNode(paren, sub, ply, path.concat([alt]));
      paren.append(") ");
      out.appendChild(paren);
    }
    path = path.concat([m]);
    entries = [...child.entries()];
  }
}
function writeMove(out, ply, path) {
  const m = path[path.length - 1];
  const n = ply + path.filter(x => !x.startsWith("roll:")).length;
  const sp = document.createElement("span");
  sp.className = "vmove";
  sp.dataset.ply = ply;
  sp.dataset.line = JSON.stringify(path);
  sp.innerHTML = (m.startsWith("roll:") ? "" : '<span class="vn">' + n + ".</span>") + Tabla.escapeHTML(m.replace(/^roll:/, T("ana.roll.move") + " "));
  sp.onclick = () => enterVariation(ply, path);
  out.appendChild(sp);
  out.append(" ");
}
// markTree marks the tree's move shown
function markTree() {
  const want = variation ? JSON.stringify(variation.line) : null;
  document.querySelectorAll("#movelist .vmove").forEach(sp => sp.classList.toggle("current", !!variation && +sp.dataset.ply === variation.ply && sp.dataset.line === want));
}
// enterVariation shows the tree's line from step ply
function enterVariation(ply, line) {
  variation = { ply, line: line.slice(), data: null };
  selected = null; resume = null;
  explore();
}

// --- variations -----------------------------------------------------------

function lineQuery(ply, line) {
  return "id=" + encodeURIComponent(id) + "&ply=" + ply + line.map(m => "&m=" + encodeURIComponent(m)).join("");
}

// fetchLegal loads the legal moves of the position shown (the game's step
// or the variation's end), so that a tap on a piece can show where it goes.
async function fetchLegal() {
  const seq = ++legalSeq, ply = variation ? variation.ply : k, line = variation ? variation.line : [];
  const r = await fetch("api/explore?" + lineQuery(ply, line));
  if (!r.ok || seq !== legalSeq) return;
  legalAt = await r.json();
  if (variation) { variation.data = legalAt; renderVariation(); }
}

function play(move) {
  if (!variation) variation = { ply: k, line: [], data: null };
  // redo: the moves ← took back, the last first; → plays them again, and
  // any other move forgets them
  const redo = variation.redo || [];
  variation.redo = redo.length && redo[redo.length - 1] === move ? redo.slice(0, -1) : [];
  variation.prevArrow = legalAt && legalAt.legal ? legalAt.legal.find(a => a.move === move) || null : null;
  variation.engineArrow = null;
  variation.choices = null;
  variation.line = variation.line.concat([move]);
  selected = null;
  staleLines();
  explore();
}

async function explore() {
  $("varbox").hidden = false;
  legalAt = null;
  const seq = ++legalSeq;
  const r = await fetch("api/explore?" + lineQuery(variation.ply, variation.line));
  if (seq !== legalSeq || !variation) return;
  if (!r.ok) { $("varchoice").textContent = T("ana.cannot"); delete $("varchoice").dataset.key; console.warn("explore", r.status, await r.text()); variation.line.pop(); return; }
  legalAt = variation.data = await r.json();
  variation.line = legalAt.line.slice(); // canonical, as the server played it
  remember(variation.ply, variation.line);
  renderVariation();
  evaluateSoon();
}

// takeBack takes the variation's last move back (leaving it for the game
// when none is left).
function takeBack() {
  if (!variation) return;
  if (variation.line.length <= 1) { const left = variation; go(left.ply); resume = left; return; }
  variation.redo = (variation.redo || []).concat(variation.line.slice(-1));
  variation.line = variation.line.slice(0, -1);
  staleLines();
  explore();
}

function renderVariation() {
  const x = variation.data, s = x.step;
  const n = variation.line.length;
  const lastMove = n && !variation.line[n - 1].startsWith("roll:") ? variation.line[n - 1] : null;
  const leds = Tabla.positionLEDs(s.painted, []);
  if (selected) for (const a of x.legal) if (a.from.includes(selected)) for (const c of a.to) leds[c] = { r: 255, g: 255, b: 255, role: "dest" };
  const prev = variation.prevArrow && lastMove === variation.prevArrow.move ? variation.prevArrow : null;
  board.render({ pieces: s.pieces, leds, holding: selected ? [selected] : [], last: prev ? { from: prev.from, to: prev.to } : null, arrow: variation.engineArrow || null });
  $("ply").textContent = variation.ply === 0 ? T("ana.varfrom.start") : T("ana.varfrom", { n: variation.ply });
  const words = variation.line.map((m, i) => '<span class="varmove" data-i="' + i + '">' + Tabla.escapeHTML(m.replace(/^roll:/, T("ana.roll.move") + " ")) + "</span>");
  const state = stateText(s);
  $("varline").innerHTML = words.join(" ") + ' <small id="varstate">— ' + Tabla.escapeHTML(state) + "</small>";
  // the row of choices is drawn again only when they change: the engine's
  // lines coming in redraw the board, and a face or move being tapped then
  // must stay the button under the finger
  const ch = $("varchoice");
  const pass = x.legal.find(a => !a.to.length);
  const key = JSON.stringify([x.die || [], pass ? pass.move : "", variation.choices ? variation.choices.map(a => a.move) : null]);
  if (ch.dataset.key === key) { finishVariation(state); return; }
  ch.dataset.key = key;
  ch.innerHTML = "";
  if (x.die && x.die.length) {
    ch.appendChild(document.createTextNode(T("ana.roll") + ": "));
    for (const f of x.die) { const b = document.createElement("button"); b.textContent = f; b.className = "face"; b.onclick = () => play("roll:" + f); ch.appendChild(b); }
  }
  if (pass) { const b = document.createElement("button"); b.textContent = pass.move; b.onclick = () => play(pass.move); ch.appendChild(b); }
  if (variation.choices) {
    ch.appendChild(document.createTextNode(T("ana.which") + " "));
    for (const a of variation.choices) { const b = document.createElement("button"); b.textContent = a.move; b.className = "choice"; b.onclick = () => { variation.choices = null; play(a.move); }; ch.appendChild(b); }
  }
  finishVariation(state);
}

function finishVariation(state) {
  $("position").innerHTML = "<b>" + Tabla.escapeHTML(T("ana.variation")) + "</b> — " + Tabla.escapeHTML(state);
  document.querySelectorAll("#movelist li").forEach(li => li.classList.toggle("current", !li.classList.contains("vars") && +li.dataset.step === variation.ply));
  markTree();
  // a link to the variation: ?id=…&ply=4&m=…
  history.replaceState(null, "", "?" + lineQuery(variation.ply, variation.line) + flipQuery());
}

// tap: a tap on a cell selects a piece that can move (its destinations
// lit), plays the move to a lit cell, or places on a cell a placement
// reaches; several moves between the same cells are offered as buttons.
function tap(cell) {
  const x = legalAt;
  if (!x || !x.legal) return;
  const start = !variation;
  const choose = moves => {
    if (!moves.length) return false;
    if (moves.length === 1) { play(moves[0].move); return true; }
    if (start) variation = { ply: k, line: [], data: x };
    variation.choices = moves;
    $("varbox").hidden = false;
    renderVariation();
    return true;
  };
  if (selected) {
    const moves = x.legal.filter(a => a.from.includes(selected) && a.to.includes(cell));
    if (choose(moves)) return;
  }
  if (x.legal.some(a => a.from.includes(cell))) {
    selected = selected === cell ? null : cell;
    if (start) { variation = { ply: k, line: [], data: x }; }
    if (variation) variation.choices = null;
    $("varbox").hidden = false;
    renderVariation();
    // the lifted piece and every destination in view (a zoomed board pans)
    if (selected) { board.reveal([selected].concat(...x.legal.filter(a => a.from.includes(selected)).map(a => a.to))); zoomChanged(); }
    return;
  }
  choose(x.legal.filter(a => !a.from.length && a.to.includes(cell)));
}

// --- engine lines ---------------------------------------------------------

function evaluateSoon() {
  const seq = staleLines();
  evalTimer = setTimeout(() => evaluate(seq), variation ? 0 : 250);
}

// staleLines takes the engine lines of the position left off the page at
// once (a variation's move waits for the server's reply before its own are
// asked for: the old ones must not stand beside it meanwhile) and drops an
// evaluation under way; it returns the next evaluation's number.
function staleLines() {
  clearTimeout(evalTimer);
  $("lines").innerHTML = "";
  $("linesdepth").textContent = T("ana.thinking");
  return ++evalSeq;
}

// evaluate asks for the engine's lines of the position shown; a request for
// a position left since is aborted (the server then drops it).
let evalAbort = null;
async function evaluate(seq) {
  const ply = variation ? variation.ply : k, line = variation ? variation.line : [];
  if (evalAbort) evalAbort.abort();
  const ac = evalAbort = new AbortController();
  let r;
  try { r = await fetch("api/evaluate?" + lineQuery(ply, line) + "&lines=3", { signal: ac.signal }); } catch (_) { return; }
  if (seq !== evalSeq) return;
  if (!r.ok) { $("linesdepth").textContent = ""; console.warn("evaluate", r.status, await r.text()); return; }
  let ev;
  try { ev = await r.json(); } catch (_) { return; } // aborted
  if (seq !== evalSeq) return;
  $("linesdepth").textContent = ev.side < 0 ? T("ana.over") : ev.depth ? T("ana.depth", { n: ev.depth }) + " · " + ev.algorithm : ev.algorithm;
  const ol = $("lines");
  ol.innerHTML = "";
  for (const l of ev.lines) {
    const li = document.createElement("li");
    li.dataset.move = l.move;
    const side = game.sides[ev.side] || "";
    li.innerHTML = '<span class="val">' + Tabla.pct(l.value) + "</span> " + (l.depth ? '<small class="depth">d' + l.depth + "</small> " : "") +
      '<span class="pv"><b>' + Tabla.escapeHTML(l.pv[0]) + "</b> " + Tabla.escapeHTML(l.pv.slice(1, 8).join(" ")) + "</span>";
    li.title = T(l.depth ? "ana.line.title.depth" : "ana.line.title", { who: I18N.seat(side), move: l.move, n: l.depth || 0 });
    li.onclick = () => play(l.move);
    ol.appendChild(li);
  }
  if (!variation && !ana) renderBar(ev.values); // the bar before the analysis is done
  if (variation) {
    renderOdds(ev.values);
    // the best line's move as the arrow of the variation's position
    const a = ev.lines.length && variation.data ? variation.data.legal.find(x => x.move === ev.lines[0].move) : null;
    variation.engineArrow = a || null;
    renderVariation();
  }
}

// --- exports --------------------------------------------------------------

// curvePNG draws the curve's SVG (the server's, self-contained) on a canvas
// at twice its size: a PNG Blob.
async function curvePNG() {
  const r = await fetch("download/curve.svg?id=" + encodeURIComponent(id));
  if (!r.ok) throw new Error("curve " + r.status);
  const svg = await r.text();
  const img = new Image();
  img.src = "data:image/svg+xml;base64," + btoa(unescape(encodeURIComponent(svg)));
  await img.decode();
  const c = document.createElement("canvas");
  c.width = (img.naturalWidth || 600) * 2; c.height = (img.naturalHeight || 200) * 2;
  const g = c.getContext("2d");
  g.fillStyle = "#ffffff"; g.fillRect(0, 0, c.width, c.height);
  g.drawImage(img, 0, 0, c.width, c.height);
  return new Promise(ok => c.toBlob(ok, "image/png"));
}

async function downloadPNG() {
  const blob = await curvePNG();
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = id.replace(/^.*\//, "").replace(/\.jsonl$/, "") + ".png";
  document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

async function copyLink() {
  const u = location.href;
  $("linkout").value = u; $("linkout").hidden = false; $("linkout").select();
  try { await navigator.clipboard.writeText(u); $("copylink").textContent = T("ana.link.copied"); } catch (_) { /* shown in the box */ }
}

// --- analysis -------------------------------------------------------------

async function analysis() {
  let r = await fetch("api/analysis?id=" + encodeURIComponent(id));
  if (!r.ok) { $("progresstext").textContent = await Tabla.failText(r, "api/analysis"); $("progressbox").hidden = false; return; }
  let d = await r.json();
  if (d.progress.state === "none" || d.progress.state === "stopped" || d.progress.state === "failed" && !analysis.retried) {
    analysis.retried = d.progress.state === "failed";
    r = await fetch("api/analysis?id=" + encodeURIComponent(id), { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    if (!r.ok) { $("progresstext").textContent = await Tabla.failText(r, "api/analysis"); $("progressbox").hidden = false; return; }
    d = await r.json();
  }
  const p = d.progress;
  if (p.state === "done" && d.report) {
    ana = d;
    $("progressbox").hidden = true;
    $("level").textContent = "(" + T("ana.level", { n: d.level }) + ", " + d.report.algorithm + (game.entry.game === "ray" ? "; " + T("ana.rayexact") : "") + ")";
    $("oddslabel").textContent = T(game.entry.game === "ray" ? "ana.rayodds" : "ana.chances");
    $("dlcurve").classList.remove("off");
    $("dlannotated").classList.remove("off");
    $("dlpng").disabled = false;
    renderAccuracy();
    moveList(); drawCurve();
    if (variation) renderVariation(); else go(k);
    return;
  }
  $("progressbox").hidden = false;
  if (p.state === "failed") { console.warn("analysis failed:", p.error); $("progresstext").textContent = T("ana.failed"); return; }
  $("bar").style.width = (p.total ? 100 * p.done / p.total : 0) + "%";
  $("progresstext").textContent = p.state === "queued" ? T("ana.queued") : T("ana.progress", { done: p.done, n: p.total || 0 });
  setTimeout(analysis, 400);
}

// --- zoom -----------------------------------------------------------------

// Every tap target is 44 px, a board's cells too, for a finger or a mouse.
// On a wide screen (the board in a column of its own) a board whose cells
// are smaller grows, when the window has the height for it, until they are
// 46 px (STAR's 31-px cells at 1280×800 become 46 px, the whole board still
// in the window under the header). Where they stay smaller (STAR or RAY on
// a phone, a low window), a tap or click on the board zooms in around it
// until they are, and only then do taps play; + − ⤢ and a pinch zoom, a
// drag pans a zoomed board (a swipe then pans instead of stepping).
// #board's data-tap says which: "zoom" (a tap zooms), "cells" (a finger
// plays), "pointer" (a mouse plays).
const coarse = matchMedia("(pointer: coarse)"), wide = matchMedia("(min-width: 601px)");
function cellPx() { const h = document.querySelector("#board .hit"); return h ? h.getBoundingClientRect().width : 0; }
function tapMode() { return cellPx() < 44 ? "zoom" : coarse.matches ? "cells" : "pointer"; }
function zoomChanged() { $("board").dataset.tap = tapMode(); }
// growBoard lifts the style sheet's height limit of a wide screen's board
// as far as its cells need and the window allows.
function growBoard() {
  const svg = $("board");
  svg.style.maxHeight = "";
  const cell = cellPx() / (board.zoom || 1);
  if (!wide.matches || !cell || cell >= 44) return;
  const r = svg.getBoundingClientRect();
  const want = Math.ceil(r.height * 46 / cell), room = innerHeight - (r.top + scrollY) - 8;
  if (want > r.height && want <= room) svg.style.maxHeight = want + "px";
}
function setupZoom() {
  growBoard();
  fitBar();
  const small = cellPx() / (board.zoom || 1) < 44;
  $("zoombar").hidden = !(small || board.zoomable);
  zoomChanged();
}

// step: ←/→ (a swipe, the wheel) through the game; in a variation ← takes
// its last move back and → plays again what ← took back.
function step(d) {
  if (variation) {
    const redo = variation.redo || [];
    if (d < 0) { takeBack(); return; }
    if (redo.length) { play(redo[redo.length - 1]); return; }
    const c = continuation(variation.ply, variation.line); // the tree's line on
    if (c) play(c.line[variation.line.length]);
    return;
  }
  if (d > 0 && resume && resume.ply === k) { // the variation ← just left
    const left = resume;
    enterVariation(left.ply, left.line);
    variation.redo = (left.redo || []).slice();
    return;
  }
  go(k + d);
}

// toEnd: End and ↓ — the end of the variation shown (as far as the tree
// goes), or of the game
function toEnd() {
  if (variation) {
    const c = continuation(variation.ply, variation.line);
    if (c) enterVariation(variation.ply, c.line);
    return;
  }
  go(game.total - 1);
}

// flip turns the board half a turn (f, ⇅); a link keeps it (&flip=1)
function flip() {
  board.flip();
  if (variation) renderVariation(); else go(k);
  setupZoom();
}
function flipQuery() { return board && board.flipped ? "&flip=1" : ""; }

async function start() {
  Words.init("");
  const r = await fetch("api/game?id=" + encodeURIComponent(id));
  if (!r.ok) { document.querySelector("main").innerHTML = '<p class="error"></p>'; document.querySelector(".error").textContent = await Tabla.failText(r, "api/game"); return; }
  game = await r.json();
  pageIn(game);
  // a variation from beyond the game's end (a journal taken back since) is
  // forgotten
  if (tree.some(v => v.ply >= game.total)) {
    tree = tree.filter(v => v.ply < game.total);
    try { localStorage.setItem(TREEKEY, JSON.stringify(tree)); } catch (_) { /* private mode */ }
  }
  const e = game.entry;
  document.title = "tabla — " + e.game + " " + e.id;
  $("title").textContent = e.game + (e.variant && e.variant !== "basic" ? " " + T("variant." + e.variant) : "") + " — " + e.id;
  $("info").innerHTML = game.seats.map(s => '<span class="dot" style="background:' + Tabla.sideColour(s) + '"></span>' + Tabla.escapeHTML(I18N.seat(s))).join(" ") +
    "<br><small>" + Tabla.escapeHTML(new Date(e.date).toLocaleString(I18N.locale)) + " · " + Tabla.escapeHTML(T("plies", { n: e.plies })) + " · " + Tabla.escapeHTML(Tabla.resultText(e)) + "</small>";
  $("dlrecord").href = "download/record?id=" + encodeURIComponent(id);
  $("dlannotated").href = annotatedHref();
  $("dlcurve").href = "download/curve.svg?id=" + encodeURIComponent(id);
  $("dlcurve").download = id.replace(/^.*\//, "").replace(/\.jsonl$/, "") + ".svg"; // as the PNG
  $("dlpng").onclick = downloadPNG;
  $("copylink").onclick = copyLink;
  board = new Tabla.Board($("board"), game.board);
  if (params.get("flip") === "1") board.flip(true);
  moveList(); drawCurve();
  // a link to a ply: ?ply=17 (or #17, #ply=17), to a variation from it:
  // &m=MOVE…
  const want = params.get("ply") || (location.hash.match(/^#(?:ply=)?(\d+)$/) || [])[1];
  go(want ? +want : 0);
  if (params.getAll("m").length) enterVariation(k, params.getAll("m"));
  $("first").onclick = () => go(0);
  $("prev").onclick = () => step(-1);
  $("next").onclick = () => step(1);
  $("last").onclick = toEnd;
  $("flip").onclick = flip;
  $("backtogame").onclick = () => go(variation ? variation.ply : k);
  // the keys of lichess's analysis board: ←/→ a move, ↑/Home the start,
  // ↓/End the end (of the variation shown), f flips
  document.addEventListener("keydown", ev => {
    if (/^(INPUT|SELECT|TEXTAREA)$/.test(ev.target.tagName) || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (ev.key === "Escape" && variation) { ev.preventDefault(); go(variation.ply); return; }
    if (ev.key === "ArrowLeft" || ev.key === "ArrowRight") { ev.preventDefault(); step(ev.key === "ArrowLeft" ? -1 : 1); return; }
    if (ev.key === "Home" || ev.key === "ArrowUp") { ev.preventDefault(); go(0); return; }
    if (ev.key === "End" || ev.key === "ArrowDown") { ev.preventDefault(); toEnd(); return; }
    if (ev.key === "f" || ev.key === "F") { ev.preventDefault(); flip(); }
  });
  // the board: a tap plays (variations), a horizontal swipe steps; a
  // board too small for a finger or a mouse zooms first (setupZoom)
  const svg = $("board");
  board.gestures(() => true, false);
  $("zoomin").onclick = () => { board.zoomBy(2); zoomChanged(); };
  $("zoomout").onclick = () => { board.zoomBy(.5); zoomChanged(); };
  $("zoomfit").onclick = () => { board.zoom = 1; board.applyZoom(); zoomChanged(); };
  setupZoom();
  addEventListener("resize", setupZoom);
  coarse.addEventListener("change", setupZoom);
  wide.addEventListener("change", setupZoom);
  let down = null;
  svg.addEventListener("pointerdown", ev => { down = { x: ev.clientX, y: ev.clientY }; });
  svg.addEventListener("pointerup", ev => {
    if (!down) return;
    const dx = ev.clientX - down.x, dy = ev.clientY - down.y;
    down = null;
    if (board.panned) return; // a pinch, or a drag that panned the zoomed board
    if (Math.abs(dx) > 40 && Math.abs(dx) > 1.5 * Math.abs(dy)) { if ((board.zoom || 1) <= 1) step(dx < 0 ? 1 : -1); return; } // swipe left: next
    if (Math.hypot(dx, dy) > 10) return;
    const hit = ev.target.closest && ev.target.closest("[data-cell]");
    // a tap on a lit destination of the piece picked plays even where the
    // board is too small for a finger: the board zoomed out to show them
    // all (reveal), and they are the cells lit
    const lit = hit && selected && legalAt && legalAt.legal.some(a => a.from.includes(selected) && a.to.includes(hit.dataset.cell));
    if (tapMode() === "zoom" && !lit) { board.zoomBy(Math.max(2, 48 / cellPx()), ev.clientX, ev.clientY); zoomChanged(); return; }
    if (hit) tap(hit.dataset.cell);
  });
  // the wheel on the board or the curve steps (down: next): a mouse's
  // notch (50 px or more) one step, a touchpad's small deltas one step per
  // 100 px
  let wheelAcc = 0;
  const wheel = ev => {
    if (Math.abs(ev.deltaY) < Math.abs(ev.deltaX) || !ev.deltaY) return;
    ev.preventDefault();
    const dy = ev.deltaMode === 1 ? ev.deltaY * 40 : ev.deltaY;
    if (Math.abs(dy) >= 50) { wheelAcc = 0; step(dy > 0 ? 1 : -1); return; }
    wheelAcc += dy;
    if (Math.abs(wheelAcc) >= 100) { step(wheelAcc > 0 ? 1 : -1); wheelAcc = 0; }
  };
  svg.addEventListener("wheel", wheel, { passive: false });
  const curve = $("curve");
  curve.addEventListener("wheel", wheel, { passive: false });
  let scrub = false;
  curve.addEventListener("pointerdown", ev => { scrub = true; go(curveStep(ev)); });
  curve.addEventListener("pointermove", ev => { if (scrub && curveStep(ev) !== k) go(curveStep(ev)); });
  addEventListener("pointerup", () => { scrub = false; });
  analysis();
}
start();
