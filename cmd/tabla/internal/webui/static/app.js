// tabla simulator page: draws the board from /api/board, follows /api/events,
// and turns taps, drags and buttons into physical actions (SCRIPTS.md).
"use strict";
const NS = "http://www.w3.org/2000/svg";
const COLOURS = { red:"#d8333a", yellow:"#f2c531", blue:"#2f6fd6", black:"#1b1b1b", white:"#f4f4f4" };
const svg = document.getElementById("board");
let board = null, state = null, cellIndex = {}, selectedKind = null, plugged = true;
let drag = null;

function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

async function post(action) {
  const r = await fetch("api/action", { method:"POST", headers:{"Content-Type":"application/json"}, body: JSON.stringify(action) });
  if (!r.ok) { setMessage(await r.text()); return; }
  render(await r.json());
}

function setMessage(text) { document.getElementById("message").textContent = text || ""; }

// Geometry: y grows upwards on the board, downwards in SVG.
function pos(c) { return { x: c.x, y: -c.y }; }

function cellShape(c, g) {
  const p = pos(c);
  if (board.kind === "hex") {
    const r = 0.56, pts = [];
    for (let i = 0; i < 6; i++) { const a = Math.PI / 180 * (60 * i - 30); pts.push((p.x + r * Math.cos(a)).toFixed(3) + "," + (p.y + r * Math.sin(a)).toFixed(3)); }
    return el("polygon", { points: pts.join(" ") }, g);
  }
  if (board.kind === "square" && !c.goal) return el("rect", { x: p.x - .47, y: p.y - .47, width: .94, height: .94, rx: .08 }, g);
  if (c.goal) return el("rect", { x: p.x - 2.9, y: p.y - .4, width: 5.8, height: .8, rx: .3 }, g);
  return el("circle", { cx: p.x, cy: p.y, r: .36 }, g);
}

function drawBoard() {
  svg.innerHTML = "";
  let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
  for (const c of board.cells) { const p = pos(c); minX = Math.min(minX, p.x); maxX = Math.max(maxX, p.x); minY = Math.min(minY, p.y); maxY = Math.max(maxY, p.y); }
  const pad = board.kind === "graph" ? .7 : .8;
  const extra = board.cells.some(c => c.goal) ? 2.5 : 0;
  svg.setAttribute("viewBox", [minX - pad - extra, minY - pad, maxX - minX + 2 * (pad + extra), maxY - minY + 2 * pad].join(" "));
  const edges = el("g", {}, svg);
  if (board.kind === "graph") {
    board.cells.forEach((c, i) => (c.adj || []).forEach(j => { if (j > i) { const a = pos(c), b = pos(board.cells[j]); el("line", { x1:a.x, y1:a.y, x2:b.x, y2:b.y, class:"edge" }, edges); } }));
  }
  const cells = el("g", {}, svg), leds = el("g", { id:"leds" }, svg), pieces = el("g", { id:"pieces" }, svg), hits = el("g", {}, svg);
  const small = board.cells.length > 300;
  board.cells.forEach((c, i) => {
    cellIndex[c.name] = i;
    const s = cellShape(c, cells);
    s.setAttribute("class", "cell" + (c.goal ? " goal" : "") + (c.mark === "target" ? " target" : ""));
    const p = pos(c);
    if (!small || c.goal) {
      const t = el("text", { x: p.x, y: p.y + (c.goal ? .08 : .4), class: "label-cell", "text-anchor": "middle" }, cells);
      t.textContent = c.name;
    }
    const h = cellShape(c, hits);
    h.setAttribute("class", "hit");
    h.dataset.cell = c.name;
  });
  svg.onpointerdown = onDown;
  svg.onpointerup = onUp;
}

function cellAt(ev) {
  const t = document.elementFromPoint(ev.clientX, ev.clientY);
  return t && t.dataset ? t.dataset.cell : undefined;
}

function onDown(ev) {
  const cell = ev.target.dataset.cell;
  if (!cell || !state) return;
  ev.preventDefault();
  const occupied = state.pieces && state.pieces[cell];
  if (document.getElementById("removeTool").checked) { if (occupied) post({ remove: cell }); return; }
  if (occupied) { drag = { from: cell, x: ev.clientX, y: ev.clientY }; post({ lift: cell }); return; }
  drag = null;
  // A lifted piece goes down first; else a piece of the kind picked in the
  // palette; else ask the board anyway (it knows its hand better than a page
  // that may not have heard of the last lift yet).
  if (state.lifted && state.lifted.length) { place(cell); return; }
  place(cell, selectedKind || undefined);
}

function onUp(ev) {
  if (!drag) return;
  const moved = Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) > 8;
  const to = cellAt(ev);
  const from = drag.from;
  drag = null;
  if (moved && to && to !== from) place(to); // a drag: put it where it was dropped
  else if (moved && to === from) place(from); // dragged and put back
  // a tap keeps the piece in hand: the next tap on a cell places it
}

function place(cell, piece) {
  const a = { place: cell };
  if (piece) a.piece = piece;
  post(a).then(() => { if (document.getElementById("noise").checked) post({ fault: "bounce", cell, times: 2 }); });
}

function drawPiece(g, c, kind) {
  const p = pos(c);
  if (board.kind === "hex") {
    const r = .46, pts = [];
    for (let i = 0; i < 6; i++) { const a = Math.PI / 180 * (60 * i - 30); pts.push((p.x + r * Math.cos(a)) + "," + (p.y + r * Math.sin(a))); }
    el("polygon", { points: pts.join(" "), fill: COLOURS[kind] || "#888", class: "piece" }, g);
    return;
  }
  if (/^[0-9]$/.test(kind)) { // GYGES: rings by height
    const n = +kind;
    for (let k = n; k >= 1; k--) el("circle", { cx: p.x, cy: p.y, r: .14 + .1 * k, fill: k % 2 ? "#e9dcc0" : "#b89a6a", class: "piece" }, g);
    const t = el("text", { x: p.x, y: p.y, class: "piece-text", fill: "#222" }, g); t.textContent = kind;
    return;
  }
  el("circle", { cx: p.x, cy: p.y, r: board.kind === "graph" ? .28 : .36, fill: COLOURS[kind] || "#888", class: "piece" }, g);
}

// fitHex zooms a hex board (six: 217 cells, small on a phone) to the
// hexagons on the table plus two rings, at least radius 4 around 0,0: a
// placement must touch a hexagon, so no legal cell is ever outside the view.
function fitHex(s) {
  if (board.kind !== "hex") return;
  let minX = -4, maxX = 4, minY = -3.5, maxY = 3.5;
  for (const name in (s.pieces || {})) {
    const c = board.cells[cellIndex[name]]; if (!c) continue;
    const p = pos(c);
    minX = Math.min(minX, p.x - 2); maxX = Math.max(maxX, p.x + 2);
    minY = Math.min(minY, p.y - 1.8); maxY = Math.max(maxY, p.y + 1.8);
  }
  svg.setAttribute("viewBox", [minX - .8, minY - .8, maxX - minX + 1.6, maxY - minY + 1.6].join(" "));
}

function render(s) {
  state = s;
  if (!board) return;
  fitHex(s);
  const leds = document.getElementById("leds"), pieces = document.getElementById("pieces");
  leds.innerHTML = ""; pieces.innerHTML = "";
  for (const name in (s.leds || {})) {
    const c = board.cells[cellIndex[name]]; if (!c) continue;
    const l = s.leds[name], p = pos(c);
    const colour = "rgb(" + l.r + "," + l.g + "," + l.b + ")";
    el("circle", { cx: p.x, cy: p.y, r: c.goal ? .35 : .5, fill: colour, opacity: .55, class: "led" + (l.blink ? " blink" + l.blink : "") }, leds);
  }
  for (const name in (s.pieces || {})) { const c = board.cells[cellIndex[name]]; if (c) drawPiece(pieces, c, s.pieces[name]); }
  for (const h of (s.lifted || [])) {
    if (!h.from) continue;
    const c = board.cells[cellIndex[h.from]]; if (!c) continue;
    const p = pos(c); el("circle", { cx: p.x, cy: p.y, r: .4, class: "holding" }, pieces);
  }
  const turn = document.getElementById("turn");
  let text;
  if (s.status === "won") text = "🏆 " + s.winner + " wins";
  else if (s.status === "draw") text = "Draw";
  else text = (s.to_move || "?") + " to " + (s.awaiting || "move");
  const sync = s.in_sync === false ? '<span class="sync bad">board out of sync</span>' : '<span class="sync">in sync</span>';
  turn.innerHTML = sync + escapeHTML(text) + (s.mode && s.mode !== "play" ? " <small>(" + escapeHTML(s.mode) + ")</small>" : "");
  setMessage(s.message || (s.lifted && s.lifted.length ? "Holding " + s.lifted.map(h => h.piece || "a piece").join(", ") + " — tap a cell to put it down" : ""));
  const conn = document.getElementById("conn");
  conn.textContent = s.conn || "connected";
  conn.classList.toggle("down", (s.conn || "connected") !== "connected");
  plugged = (s.conn || "connected") === "connected";
  document.getElementById("plug").textContent = plugged ? "Pull cable" : "Plug cable back";
  document.getElementById("rolled").textContent = s.roll ? "shows " + s.roll + (s.roll_by ? " (" + s.roll_by + ")" : "") : "";
  const moves = document.getElementById("moves");
  moves.innerHTML = "";
  for (const m of (s.moves || [])) { const li = document.createElement("li"); li.textContent = m; moves.appendChild(li); }
  moves.scrollTop = moves.scrollHeight;
  renderHand(s);
}

function renderHand(s) {
  const hand = document.getElementById("hand"), pal = document.getElementById("palette");
  const kinds = board.pieces || [];
  const show = board.game === "gyges" || board.game === "six"; // the games whose pieces come from a hand
  hand.hidden = !show;
  pal.innerHTML = "";
  for (const k of kinds) {
    const b = document.createElement("button");
    b.className = "swatch" + (selectedKind === k ? " sel" : "");
    b.dataset.kind = k;
    const i = document.createElement("i"); i.style.background = COLOURS[k] || "#e9dcc0"; b.appendChild(i);
    let count = "";
    if (s.hands) for (const seat in s.hands) { const h = s.hands[seat]; if (typeof h === "object" && h[k]) count += " " + seat + ":" + h[k]; }
    b.appendChild(document.createTextNode(k + count));
    b.onclick = () => { selectedKind = selectedKind === k ? null : k; renderHand(state); };
    pal.appendChild(b);
  }
}

function escapeHTML(s) { return String(s).replace(/[&<>"]/g, c => ({ "&":"&amp;", "<":"&lt;", ">":"&gt;", '"':"&quot;" }[c])); }

async function start() {
  board = await (await fetch("api/board")).json();
  document.getElementById("title").textContent = board.title || board.game;
  document.title = "tabla — " + (board.title || board.game);
  drawBoard();
  if (board.die && board.die.length) {
    document.getElementById("dice").hidden = false;
    const faces = document.getElementById("faces");
    for (const f of board.die) {
      const b = document.createElement("button");
      b.textContent = f; b.title = "the board's electronic die shows " + f;
      b.dataset.face = f;
      b.onclick = () => post({ roll: /^[0-9]+$/.test(f) ? +f : f });
      faces.appendChild(b);
    }
  }
  document.querySelectorAll("[data-press]").forEach(b => b.onclick = () => post({ press: b.dataset.press }));
  document.getElementById("plug").onclick = () => post({ fault: plugged ? "unplug" : "replug" });
  render(await (await fetch("api/state")).json());
  const es = new EventSource("api/events");
  es.addEventListener("state", e => render(JSON.parse(e.data)));
  // EventSource reconnects by itself; say so while it is away, and redraw
  // from the first state it sends when it is back.
  es.onerror = () => { const c = document.getElementById("conn"); c.textContent = "page offline"; c.classList.add("down"); };
  es.onopen = () => { if (state) render(state); };
}
start();
