// board.js — the one drawing of a tabla board. The simulator, the live
// table page and the analysis board all draw with it: cells from the board
// file's coordinates, the LEDs as lit, the pieces, a piece in hand, and a
// move as an arrow.
"use strict";
const Tabla = (() => {
  const NS = "http://www.w3.org/2000/svg";
  // piece colours
  const COLOURS = { red:"#d8333a", yellow:"#f2c531", blue:"#2f6fd6", black:"#1b1b1b", white:"#f4f4f4" };
  // seat and side colours in text and charts (on the dark page): the LED
  // colours, black shown violet as on the board
  const SIDES = { red:"#e5484d", yellow:"#f2c531", blue:"#3b82f6", black:"#9a6cf0", white:"#e8e8e8",
                  south:"#3b82f6", north:"#f2a531" };
  // the LED colour of a seat (as the referee lights it), for painted cells
  const LEDS = { red:[255,0,0], yellow:[255,170,0], blue:[0,80,255], black:[150,0,255], white:[255,255,255] };

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function escapeHTML(s) { return String(s).replace(/[&<>"]/g, c => ({ "&":"&amp;", "<":"&lt;", ">":"&gt;", '"':"&quot;" }[c])); }
  function sideColour(s) { return SIDES[s] || SIDES[String(s).replace(/[0-9]+$/, "")] || "#17becf"; }

  class Board {
    // svg: the <svg> element; view: GET api/board or api/game's board.
    constructor(svg, view) {
      this.svg = svg; this.view = view; this.index = {};
      view.cells.forEach((c, i) => { this.index[c.name] = i; });
      this.draw();
    }
    cell(name) { const i = this.index[name]; return i === undefined ? null : this.view.cells[i]; }
    // y grows upwards on the board, downwards in SVG
    pos(c) { return { x: c.x, y: -c.y }; }
    shape(c, g) {
      const p = this.pos(c), kind = this.view.kind;
      if (kind === "hex") {
        const r = 0.56, pts = [];
        for (let i = 0; i < 6; i++) { const a = Math.PI / 180 * (60 * i - 30); pts.push((p.x + r * Math.cos(a)).toFixed(3) + "," + (p.y + r * Math.sin(a)).toFixed(3)); }
        return el("polygon", { points: pts.join(" ") }, g);
      }
      if (kind === "square" && !c.goal) return el("rect", { x: p.x - .47, y: p.y - .47, width: .94, height: .94, rx: .08 }, g);
      if (c.goal) return el("rect", { x: p.x - 2.9, y: p.y - .4, width: 5.8, height: .8, rx: .3 }, g);
      return el("circle", { cx: p.x, cy: p.y, r: .36 }, g);
    }
    draw() {
      const svg = this.svg, v = this.view;
      svg.innerHTML = "";
      let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
      for (const c of v.cells) { const p = this.pos(c); minX = Math.min(minX, p.x); maxX = Math.max(maxX, p.x); minY = Math.min(minY, p.y); maxY = Math.max(maxY, p.y); }
      const pad = v.kind === "graph" ? .7 : .8;
      const extra = v.cells.some(c => c.goal) ? 2.5 : 0;
      this.viewBox = [minX - pad - extra, minY - pad, maxX - minX + 2 * (pad + extra), maxY - minY + 2 * pad];
      svg.setAttribute("viewBox", this.viewBox.join(" "));
      const defs = el("defs", {}, svg);
      const m = el("marker", { id: "arrowhead", viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 3.2, markerHeight: 3.2, orient: "auto-start-reverse" }, defs);
      el("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }, m);
      const edges = el("g", {}, svg);
      if (v.kind === "graph") {
        v.cells.forEach((c, i) => (c.adj || []).forEach(j => { if (j > i) { const a = this.pos(c), b = this.pos(v.cells[j]); el("line", { x1:a.x, y1:a.y, x2:b.x, y2:b.y, class:"edge" }, edges); } }));
      }
      const cells = el("g", {}, svg);
      this.leds = el("g", { class: "leds" }, svg);
      this.pieces = el("g", { class: "pieces" }, svg);
      this.marks = el("g", { class: "marks" }, svg);
      this.hits = el("g", {}, svg);
      const small = v.cells.length > 300;
      for (const c of v.cells) {
        const s = this.shape(c, cells);
        s.setAttribute("class", "cell" + (c.goal ? " goal" : "") + (c.mark === "target" ? " target" : ""));
        const p = this.pos(c);
        if (!small || c.goal) {
          const t = el("text", { x: p.x, y: p.y + (c.goal ? .08 : .4), class: "label-cell", "text-anchor": "middle" }, cells);
          t.textContent = c.name;
        }
        const h = this.shape(c, this.hits);
        h.setAttribute("class", "hit");
        h.dataset.cell = c.name;
      }
    }
    piece(g, c, kind) {
      const p = this.pos(c), v = this.view;
      if (v.kind === "hex") {
        const r = .46, pts = [];
        for (let i = 0; i < 6; i++) { const a = Math.PI / 180 * (60 * i - 30); pts.push((p.x + r * Math.cos(a)) + "," + (p.y + r * Math.sin(a))); }
        el("polygon", { points: pts.join(" "), fill: COLOURS[kind] || "#888", class: "piece", "data-piece": kind, "data-cell": c.name }, g);
        return;
      }
      if (/^[0-9]$/.test(kind)) { // GYGES: rings by height
        const n = +kind;
        for (let k = n; k >= 1; k--) el("circle", { cx: p.x, cy: p.y, r: .14 + .1 * k, fill: k % 2 ? "#e9dcc0" : "#b89a6a", class: "piece", "data-piece": kind, "data-cell": c.name }, g);
        const t = el("text", { x: p.x, y: p.y, class: "piece-text", fill: "#222" }, g); t.textContent = kind;
        return;
      }
      el("circle", { cx: p.x, cy: p.y, r: v.kind === "graph" ? .28 : .36, fill: COLOURS[kind] || "#888", class: "piece", "data-piece": kind, "data-cell": c.name }, g);
      if (kind === "?") { const t = el("text", { x: p.x, y: p.y, class: "piece-text", fill: "#eee" }, g); t.textContent = "?"; }
    }
    // fitHex zooms a hex board (six: 217 cells, small on a phone) to the
    // hexagons on the table plus two rings, at least radius 4 around 0,0: a
    // placement must touch a hexagon, so no legal cell is ever outside.
    fitHex(pieces) {
      if (this.view.kind !== "hex") return;
      let minX = -4, maxX = 4, minY = -3.5, maxY = 3.5;
      for (const name in (pieces || {})) {
        const c = this.cell(name); if (!c) continue;
        const p = this.pos(c);
        minX = Math.min(minX, p.x - 2); maxX = Math.max(maxX, p.x + 2);
        minY = Math.min(minY, p.y - 1.8); maxY = Math.max(maxY, p.y + 1.8);
      }
      this.svg.setAttribute("viewBox", [minX - .8, minY - .8, maxX - minX + 1.6, maxY - minY + 1.6].join(" "));
    }
    // render draws a position: pieces (cell → kind), leds (cell → {r,g,b,
    // blink, role}), holding (cells a lifted piece came from), arrow
    // ({from:[…], to:[…]}: the engine's move).
    render(s) {
      this.fitHex(s.pieces);
      this.leds.innerHTML = ""; this.pieces.innerHTML = ""; this.marks.innerHTML = "";
      for (const name in (s.leds || {})) {
        const c = this.cell(name); if (!c) continue;
        const l = s.leds[name], p = this.pos(c);
        el("circle", { cx: p.x, cy: p.y, r: c.goal ? .35 : .5, fill: "rgb(" + l.r + "," + l.g + "," + l.b + ")", opacity: .55,
          class: "led" + (l.blink ? " blink" + l.blink : ""), "data-cell": name, "data-role": l.role || "" }, this.leds);
      }
      for (const name in (s.pieces || {})) { const c = this.cell(name); if (c) this.piece(this.pieces, c, s.pieces[name]); }
      for (const name of (s.holding || [])) {
        const c = this.cell(name); if (!c) continue;
        const p = this.pos(c); el("circle", { cx: p.x, cy: p.y, r: .4, class: "holding" }, this.pieces);
      }
      if (s.arrow) this.arrow(s.arrow);
    }
    arrow(a) {
      const from = (a.from || []).map(n => this.cell(n)).filter(Boolean), to = (a.to || []).map(n => this.cell(n)).filter(Boolean);
      const g = el("g", { class: "arrow" }, this.marks);
      if (a.move) el("title", {}, g).textContent = "engine: " + a.move;
      to.forEach((t, i) => {
        const q = this.pos(t);
        if (i < from.length) {
          const p = this.pos(from[i]), dx = q.x - p.x, dy = q.y - p.y, d = Math.hypot(dx, dy) || 1, cut = Math.min(.3, d / 3);
          el("line", { x1: p.x + dx / d * cut, y1: p.y + dy / d * cut, x2: q.x - dx / d * cut, y2: q.y - dy / d * cut, "marker-end": "url(#arrowhead)" }, g);
        } else {
          el("circle", { cx: q.x, cy: q.y, r: .42, class: "arrow-ring" }, g);
        }
      });
    }
  }

  // paintLEDs: DAHA's painted cells as the board lights them (the owner's
  // colour, dim), and the last move's cells dim white — the analysis board
  // shows a position as the table would.
  function positionLEDs(painted, last) {
    const out = {};
    for (const cell in (painted || {})) {
      const c = LEDS[painted[cell]] || [255, 255, 255];
      out[cell] = { r: c[0] / 5 | 0, g: c[1] / 5 | 0, b: c[2] / 5 | 0, role: "paint" };
    }
    for (const cell of (last || [])) out[cell] = { r: 40, g: 40, b: 40, role: "last" };
    return out;
  }

  function pct(p) { return (100 * p).toFixed(p >= .995 || p < .005 ? 0 : 1) + "%"; }

  return { Board, el, escapeHTML, sideColour, positionLEDs, pct, NS };
})();
