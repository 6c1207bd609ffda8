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
    // y grows upwards on the board, downwards in SVG; a flipped board
    // (flip) is turned half a turn, the far side nearest
    pos(c) { return this.flipped ? { x: -c.x, y: c.y } : { x: c.x, y: -c.y }; }
    // flip turns the board half a turn (or back): drawn again, unzoomed;
    // the caller renders its position again.
    flip(on = !this.flipped) {
      this.flipped = on;
      this.zoom = 1; this.centre = null;
      this.draw();
      this.svg.dataset.flipped = on ? "1" : "";
    }
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
      // a big board's labels show once it is zoomed in (zoom)
      const small = v.cells.length > 300;
      this.zoomable = small || v.kind === "hex";
      for (const c of v.cells) {
        const s = this.shape(c, cells);
        s.setAttribute("class", "cell" + (c.goal ? " goal" : "") + (c.mark === "target" ? " target" : ""));
        const p = this.pos(c);
        const t = el("text", { x: p.x, y: p.y + (c.goal ? .08 : small ? .12 : .4), class: "label-cell" + (small && !c.goal ? " small" : ""), "text-anchor": "middle", "data-label": c.name }, cells);
        t.textContent = c.name;
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
      this.viewBox = [minX - .8, minY - .8, maxX - minX + 1.6, maxY - minY + 1.6];
    }
    // Zoom and pan (RAY, six: small cells on a phone). zoom is the scale
    // against the fitted board (1: all of it), centre the point shown in
    // the middle; the buttons, a pinch, the wheel and a drag change them.
    applyZoom() {
      const [x, y, w, h] = this.viewBox, k = this.zoom || 1;
      if (k <= 1) { this.zoom = 1; this.centre = null; }
      const vw = w / this.zoom, vh = h / this.zoom;
      let c = this.centre || { x: x + w / 2, y: y + h / 2 };
      c = { x: Math.min(Math.max(c.x, x + vw / 2), x + w - vw / 2), y: Math.min(Math.max(c.y, y + vh / 2), y + h - vh / 2) };
      if (this.zoom > 1) this.centre = c;
      this.svg.setAttribute("viewBox", [c.x - vw / 2, c.y - vh / 2, vw, vh].map(n => +n.toFixed(3)).join(" "));
      this.svg.classList.toggle("zoomed", this.zoom >= 2); // labels shown
      this.svg.classList.toggle("panzoom", this.zoom > 1); // a drag pans
      this.svg.dataset.zoom = this.zoom.toFixed(2);
    }
    // zoomBy scales by f around the client point (px, py), or the middle.
    zoomBy(f, px, py) {
      const old = this.zoom || 1, k = Math.min(8, Math.max(1, old * f));
      if (k === old) return;
      const r = this.svg.getBoundingClientRect(), vb = this.svg.viewBox.baseVal;
      const ax = px === undefined ? .5 : (px - r.left) / r.width, ay = py === undefined ? .5 : (py - r.top) / r.height;
      const p = { x: vb.x + ax * vb.width, y: vb.y + ay * vb.height }; // stays under the finger
      const nw = vb.width * old / k, nh = vb.height * old / k;
      this.zoom = k;
      this.centre = { x: p.x - (ax - .5) * nw, y: p.y - (ay - .5) * nh };
      this.applyZoom();
    }
    // reveal pans a zoomed board so that the named cells are all in view
    // (a lifted piece and its destinations), zooming out only as far as
    // they need; then scrolls the board into the window, its top under
    // the page's header.
    reveal(names) {
      const pts = names.map(n => this.cell(n)).filter(Boolean).map(c => this.pos(c));
      if (!pts.length) return;
      if ((this.zoom || 1) > 1) {
        const m = .7, [x, y, w, h] = this.viewBox;
        const minX = Math.min(...pts.map(p => p.x)) - m, maxX = Math.max(...pts.map(p => p.x)) + m;
        const minY = Math.min(...pts.map(p => p.y)) - m, maxY = Math.max(...pts.map(p => p.y)) + m;
        this.zoom = Math.max(1, Math.min(this.zoom, w / (maxX - minX), h / (maxY - minY)));
        const vw = w / this.zoom, vh = h / this.zoom, c = this.centre || { x: x + w / 2, y: y + h / 2 };
        // the least pan that brings the box in
        const cx = Math.min(Math.max(c.x, maxX - vw / 2), minX + vw / 2), cy = Math.min(Math.max(c.y, maxY - vh / 2), minY + vh / 2);
        this.centre = { x: cx, y: cy };
        this.applyZoom();
      }
      const r = this.svg.getBoundingClientRect(), head = document.querySelector("header");
      const top = head ? Math.max(0, head.getBoundingClientRect().bottom) : 0;
      if (r.top < top) window.scrollBy(0, r.top - top);
    }
    // panBy moves the board by (dx, dy) client pixels.
    panBy(dx, dy) {
      if ((this.zoom || 1) <= 1) return;
      const r = this.svg.getBoundingClientRect(), vb = this.svg.viewBox.baseVal;
      this.centre = { x: vb.x + vb.width / 2 - dx * vb.width / r.width, y: vb.y + vb.height / 2 - dy * vb.height / r.height };
      this.applyZoom();
    }
    // gestures: a pinch (two pointers) zooms, one pointer dragged on a
    // zoomed board pans when canPan(ev) allows it; the wheel zooms (unless
    // wheel is false: the analysis board's wheel steps). panned is true
    // from the pointerdown of a gesture that moved the board.
    gestures(canPan, wheel = true) {
      const svg = this.svg, down = new Map();
      let last = null, pinch = null;
      svg.addEventListener("pointerdown", ev => {
        down.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
        if (down.size === 1) { this.panned = false; last = canPan(ev) ? { x: ev.clientX, y: ev.clientY, moved: false } : null; }
        if (down.size === 2) { const [a, b] = [...down.values()]; pinch = Math.hypot(a.x - b.x, a.y - b.y); last = null; this.panned = true; }
      });
      svg.addEventListener("pointermove", ev => {
        if (!down.has(ev.pointerId)) return;
        down.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
        if (down.size === 2 && pinch) {
          const [a, b] = [...down.values()], d = Math.hypot(a.x - b.x, a.y - b.y);
          this.zoomBy(d / pinch, (a.x + b.x) / 2, (a.y + b.y) / 2);
          pinch = d;
          return;
        }
        if (!last || (this.zoom || 1) <= 1) return;
        const dx = ev.clientX - last.x, dy = ev.clientY - last.y;
        if (!last.moved && Math.hypot(dx, dy) < 8) return;
        last.moved = true; this.panned = true;
        this.panBy(dx, dy);
        last.x = ev.clientX; last.y = ev.clientY;
      });
      const up = ev => { down.delete(ev.pointerId); if (down.size < 2) pinch = null; if (!down.size) last = null; };
      svg.addEventListener("pointerup", up);
      svg.addEventListener("pointercancel", up);
      if (wheel) svg.addEventListener("wheel", ev => {
        if (!ev.ctrlKey && (this.zoom || 1) <= 1 && ev.deltaY > 0) return; // let the page scroll
        ev.preventDefault();
        this.zoomBy(Math.exp(-ev.deltaY / 300), ev.clientX, ev.clientY);
      }, { passive: false });
    }
    // render draws a position: pieces (cell → kind), leds (cell → {r,g,b,
    // blink, role}), holding (cells a lifted piece came from), arrow
    // ({from:[…], to:[…]}: the engine's move).
    // last ({from:[…], to:[…]}: the last move's cells, marked), hint (an
    // arrow like arrow, named "hint").
    render(s) {
      this.fitHex(s.pieces);
      this.applyZoom();
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
      if (s.last) this.lastMove(s.last);
      if (s.arrow) this.arrow(s.arrow);
    }
    // lastMove marks the cells a move left (a dashed ring) and reached (a
    // bold ring), above the pieces and the LEDs.
    lastMove(m) {
      const g = el("g", { class: "lastmove" }, this.marks);
      for (const [cls, names] of [["last-from", m.from], ["last-to", m.to]]) {
        for (const n of (names || [])) {
          const c = this.cell(n); if (!c) continue;
          const p = this.pos(c);
          el("circle", { cx: p.x, cy: p.y, r: this.view.kind === "graph" ? .4 : .44, class: cls, "data-last": cls.slice(5), "data-cell": n }, g);
        }
      }
    }
    arrow(a) {
      const from = (a.from || []).map(n => this.cell(n)).filter(Boolean), to = (a.to || []).map(n => this.cell(n)).filter(Boolean);
      const g = el("g", { class: "arrow" }, this.marks);
      if (a.kind) g.classList.add(a.kind);
      if (a.move) { el("title", {}, g).textContent = T(a.kind === "hint" ? "arrow.hint" : a.kind === "better" ? "arrow.better" : "arrow.engine", { move: a.move }); g.dataset.move = a.move; }
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

  // failText words a failed request of the library pages for people; the
  // server's detail goes to the console (and the server's log).
  async function failText(r, what) {
    let detail = "";
    try { detail = await r.text(); } catch (_) { /* no body */ }
    console.warn(what, r.status, detail);
    if (r.status === 404) return T("lib.err.gone");
    if (r.status === 422) return T("lib.err.unreadable");
    if (r.status >= 500) return T("lib.err.server");
    return T("lib.err.other");
  }

  // pct: a probability as a percentage in the page's language ("%12,5" in Turkish)
  const pctFormat = [0, 1].map(d => new Intl.NumberFormat(typeof I18N === "object" ? I18N.locale : "en-GB", { style: "percent", minimumFractionDigits: d, maximumFractionDigits: d }));
  function pct(p) { return pctFormat[p >= .995 || p < .005 ? 0 : 1].format(p); }
  // pctWhole: a percentage in whole points ("66%", "%66")
  function pctWhole(p) { return pctFormat[0].format(p); }

  // resultText: a library entry's result in words ("north won", "draw",
  // "unfinished"); its result field is English ("red won").
  function resultText(e) {
    if (e.winner) return T("result.won", { who: I18N.seat(e.winner) });
    if (e.result === "draw") return T("result.draw");
    if (e.result === "unfinished") return T("result.unfinished");
    return e.result || "";
  }

  // clockText: a clock's time left as a player reads it: "4:05",
  // "1:02:03", tenths under 10 s ("9,4" in Turkish)
  function clockText(ms) {
    const t = Math.ceil(ms / 1000), h = Math.floor(t / 3600), m = Math.floor(t % 3600 / 60), sec = t % 60;
    if (ms < 10000) return I18N.tenths(ms / 1000);
    return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(sec).padStart(2, "0");
  }

  return { Board, el, escapeHTML, sideColour, positionLEDs, pct, pctWhole, failText, resultText, clockText, NS };
})();
