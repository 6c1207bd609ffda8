// table.js — one table on the club hub: its board as the hub has the game
// (with the table's LEDs while it is online), the move list, the engine's
// evaluation bar, and play from the browser for a seat (with the hub's
// token). Follows /api/tables/TABLE/events; draws with webui's board.js.
"use strict";
const $ = id => document.getElementById(id);
const table = new URLSearchParams(location.search).get("t") || "";
let board = null, boardKey = "", state = null, mySeat = localStorage.getItem("seat:" + table) || "";
$("title").textContent = table;
$("livelink").href = "/t/" + encodeURIComponent(table) + "/";
$("token").value = localStorage.getItem("hubtoken") || "";
$("token").onchange = () => localStorage.setItem("hubtoken", $("token").value);

// failure is the answer to the latest action when it was refused, shown
// until the next action is sent (state updates do not wipe it; an earlier
// action's late answer does not either). The next action wipes it at
// once, not on its answer: a refusal left on the screen while a move is
// on its way (or already carried out on the board) says the move was
// refused.
let failure = "", postSeq = 0;

async function post(path, body) {
  const seq = ++postSeq;
  failure = ""; showMessage();
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json", "Authorization": "Bearer " + $("token").value }, body: JSON.stringify(body) });
  const text = r.ok ? "" : await refusal(r, path);
  if (seq === postSeq) { failure = text; showMessage(); }
  return r.ok ? r.json() : null;
}

// refusal is a refused action's answer in plain words: the hub's message
// ({"error", "message"}); its developer text goes to the console only.
async function refusal(r, path) {
  const body = (await r.text().catch(() => "")).trim();
  console.warn(path, r.status, body);
  try { const j = JSON.parse(body); if (j.say) return I18N.text(j.say); if (j.message) return j.message; } catch (_) { /* not the hub's answer */ }
  if (r.status === 401 || r.status === 403) return T("hub.err.token");
  return T("hub.err.other");
}

function showMessage() {
  $("message").textContent = failure || (state && I18N.text(state.message_text)) || (state && state.live && liveMessage(state.live)) || (state && state.game && state.game.error ? T("hub.gameerror") : "");
}

// liveMessage: the table's board message in words (its Texts, or what the
// board needs from its lights), never the referee's developer text.
function liveMessage(l) {
  if (Array.isArray(l.message_text) && l.message_text.length) return l.message_text.map(I18N.text).join(" \u2014 ");
  if (l.in_sync === false && l.mode === "correct") return Words.needs(l, false).join(" ");
  return "";
}

function evalbar(v, g) {
  const bar = $("evalbar");
  bar.innerHTML = "";
  if (!v || !g) { bar.hidden = true; return; }
  bar.hidden = false;
  for (const side of g.sides) {
    const p = v.values[side] || 0, d = document.createElement("div");
    d.style.width = (100 * p) + "%"; d.style.background = Tabla.sideColour(side);
    d.textContent = p >= .12 ? I18N.seat(side) + " " + Tabla.pct(p) : "";
    d.title = I18N.seat(side) + " " + Tabla.pct(p);
    bar.appendChild(d);
  }
}

// legal shows the seat's moves (or its roll) for the game the page
// shows: only the latest request draws, and only once the seat's record
// has caught up with that position (it follows the table's game); one tap
// clears the buttons, so a move is never sent twice.
let legalSeq = 0;
async function legal(g) {
  const box = $("legal"), seq = ++legalSeq;
  box.innerHTML = "";
  if (!mySeat || !g || g.status !== "playing") return;
  const last = g.moves.length ? g.moves[g.moves.length - 1] : "";
  for (let tries = 0; tries < 50; tries++) {
    const r = await fetch("/api/tables/" + encodeURIComponent(table) + "/legal?seat=" + encodeURIComponent(mySeat));
    if (seq !== legalSeq || !r.ok) return;
    const turn = await r.json();
    if (seq !== legalSeq) return;
    if (turn.plies === g.plies && turn.last === last) { buttons(box, turn); return; }
    await new Promise(ok => setTimeout(ok, 100));
    if (seq !== legalSeq) return;
  }
}

function buttons(box, turn) {
  const send = move => { box.innerHTML = ""; post("/api/tables/" + encodeURIComponent(table) + "/move", { seat: mySeat, move }); };
  if (turn.awaiting === "roll") {
    const b = document.createElement("button"); b.textContent = T("die.roll");
    b.onclick = () => send("");
    box.appendChild(b); return;
  }
  for (const m of turn.moves) {
    const b = document.createElement("button"); b.textContent = m;
    b.onclick = () => send(m);
    box.appendChild(b);
  }
}

function seats(s) {
  const box = $("seats"), g = s.game;
  box.innerHTML = "";
  if (!g) return;
  const taken = {};
  for (const x of (s.seats || [])) taken[x.seat] = x.by;
  for (const seat of g.seats) {
    const by = taken[seat];
    const span = document.createElement("span"); span.className = "seat";
    if (by && by.table === "web") {
      const b = document.createElement("button"); b.textContent = (mySeat === seat ? "✓ " : "") + T("hub.seat.browser", { who: I18N.seat(seat) });
      b.onclick = () => { mySeat = seat; localStorage.setItem("seat:" + table, seat); render(state); };
      span.appendChild(b);
    } else if (by) {
      span.textContent = T("hub.seat.at", { who: I18N.seat(seat), table: by.table });
    } else {
      const b = document.createElement("button"); b.textContent = T("hub.seat.play", { who: I18N.seat(seat) });
      b.onclick = async () => { if (await post("/api/tables/" + encodeURIComponent(table) + "/play", { seat })) { mySeat = seat; localStorage.setItem("seat:" + table, seat); render(state); } };
      span.appendChild(b);
    }
    box.appendChild(span);
  }
}

async function render(s) {
  state = s;
  const g = s.game;
  $("conn").textContent = T(s.online ? "hub.table.online" : "hub.table.offline");
  $("conn").classList.toggle("down", !s.online);
  if (!g) { $("turn").textContent = T("hub.nogame.yet"); showMessage(); return; }
  Words.init(g.game);
  const key = g.board + "/" + g.id;
  if (key !== boardKey) {
    const r = await fetch("/api/board?t=" + encodeURIComponent(table));
    if (!r.ok) return;
    board = new Tabla.Board($("board"), await r.json()); boardKey = key;
  }
  const leds = s.live && s.live.leds ? s.live.leds : Tabla.positionLEDs(g.painted, []);
  board.render({ pieces: g.pieces, leds });
  let text = g.status === "won" ? "🏆 " + T("result.won", { who: named(g, g.winner) }) : g.status === "draw" ? T("turn.draw") :
    T(g.awaiting === "roll" ? "turn.roll" : "turn.move", { who: named(g, g.to_move) }) + (g.roll ? " " + T("hub.rolled", { roll: Words.face(g.roll) }) : "");
  if (g.ended === "time") text = "⏱ " + T("turn.flag", { who: named(g, g.flag || "?") });
  else if (g.ended) text = T("hub.abandoned");
  const sync = s.live ? (s.live.in_sync ? '<span class="sync">' + Tabla.escapeHTML(T("hub.sync.in")) + "</span>" : '<span class="sync bad">' + Tabla.escapeHTML(T("hub.sync.out")) + "</span>") : "";
  $("turn").innerHTML = sync + Tabla.escapeHTML(g.game + " · " + T("hub.ply", { n: g.plies }) + " · " + text);
  showMessage();
  const moves = $("moves");
  moves.innerHTML = "";
  for (const m of g.moves) { const li = document.createElement("li"); li.textContent = m; moves.appendChild(li); }
  moves.scrollTop = moves.scrollHeight;
  club(g);
  evalbar(s.eval, g);
  seats(s);
  legal(g);
}

// named: a seat's player with the seat ("Ayşe (red)"), or the seat alone.
function named(g, seat) {
  const n = g.who && g.who.names && g.who.names[seat];
  return n ? n + " (" + I18N.seat(seat) + ")" : I18N.seat(seat);
}

// club: the event line and one line per seat with its player and clock
// (the clocks count down between the hub's updates from the latest move's
// time, the table's own clock deciding).
let clockAt = 0;
function club(g) {
  const who = g.who || {}, names = who.names || {}, c = g.clock;
  const ev = [who.event, who.round ? T("who.round.n", { round: who.round }) : "", who.site, who.date].filter(Boolean).join(" · ");
  $("club").hidden = !(ev || Object.keys(names).length || c);
  $("eventline").textContent = ev;
  // the running clock counts from the latest line's time (the table's
  // clock decides; this one only shows it)
  clockAt = performance.now() - (c && c.running && g.last ? Math.max(0, Date.now() - Date.parse(g.last)) : 0);
  const ul = $("players");
  ul.innerHTML = "";
  for (const seat of g.seats) {
    const li = document.createElement("li");
    if (g.to_move === seat && g.status === "playing" && !g.ended) li.className = "tomove";
    let html = '<span class="dot" style="background:' + Tabla.sideColour(seat) + '"></span><span class="name">' + Tabla.escapeHTML(named(g, seat)) + "</span>";
    if (c && c.left_ms && seat in c.left_ms) html += '<span class="clock" data-seat="' + Tabla.escapeHTML(seat) + '"></span>';
    li.innerHTML = html;
    ul.appendChild(li);
  }
  tickClocks();
}

function clockLeft(c, seat) {
  let left = c.left_ms[seat];
  if (c.running === seat && !c.flag) {
    const delay = (c.delay_ms || {})[seat] || 0, turn = (c.turn_ms || 0) + (performance.now() - clockAt);
    left -= Math.max(0, turn - delay) - Math.max(0, (c.turn_ms || 0) - delay);
  }
  return Math.max(0, left);
}

function tickClocks() {
  const c = state && state.game && state.game.clock;
  if (!c) return;
  document.querySelectorAll("#players .clock").forEach(el => {
    const seat = el.dataset.seat, ms = clockLeft(c, seat);
    const t = Math.ceil(ms / 1000), h = Math.floor(t / 3600), m = Math.floor(t % 3600 / 60), sec = t % 60;
    el.textContent = ms < 10000 ? I18N.tenths(ms / 1000) : (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(sec).padStart(2, "0");
    el.classList.toggle("low", ms <= ((c.low_ms || {})[seat] || 0));
    el.classList.toggle("flag", c.flag === seat);
  });
}
setInterval(tickClocks, 100);

const es = new EventSource("/api/tables/" + encodeURIComponent(table) + "/events");
es.addEventListener("state", e => render(JSON.parse(e.data)));
es.onerror = () => { $("conn").textContent = T("hub.offline"); $("conn").classList.add("down"); };
