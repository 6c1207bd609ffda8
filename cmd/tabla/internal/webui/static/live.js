// live.js — the live board page: the simulator (tabla sim: taps and drags
// become physical actions on the virtual board) and the table (tabla run: a
// read-only mirror of the real board; a paired phone controls it). Follows
// api/events; draws with board.js.
"use strict";
const svg = document.getElementById("board");
let view = null, board = null, state = null, selectedKind = null, plugged = true, drag = null, paired = false;
// ended: this phone controlled the board and no longer does (its session
// is unknown to the board); said until it asks again
let ended = false;
// lapsed: the board forgot this phone's request (a restart) before its
// confirm button was pressed
let lapsed = false;
// asked remembers (for this tab, across reloads) where this phone's
// request stood: "pending", "paired" or "".
function asked(v) {
  try {
    if (v === undefined) return sessionStorage.getItem("tabla.pair") || "";
    sessionStorage.setItem("tabla.pair", v);
  } catch (_) { /* no storage: this page only */ }
  return v;
}
const $ = id => document.getElementById(id);

function setMessage(text) { $("message").textContent = text || ""; }

// normal: the table's status document ({state, pieces, ai, pairing, …}) or
// the simulator's state, as one flat state
function normal(d) {
  if (!d || !d.state) return d;
  const s = Object.assign({}, d.state);
  s.pieces = d.pieces; s.ai = d.ai; s.pairing = d.pairing; s.lifted = []; s.log = d.log; s.hint_move = d.hint_move;
  s.who = d.who; s.clock = d.clock; s.board_problem = d.board_problem;
  s.journal_problem = d.journal_problem; s.unrecorded = d.unrecorded; s.spare_journal = d.spare_journal;
  s.board_problem_text = d.board_problem_text; s.journal_problem_text = d.journal_problem_text;
  s.message_text = d.message_text;
  if ("referee_message" in d) s.referee_message = d.referee_message;
  return s;
}

// streamed counts the states the event stream delivered: a request's answer
// is drawn only when none came while it was under way (the stream's state may
// be newer than the answer, which was read before the board reacted).
let streamed = 0;

async function send(path, body) {
  let r;
  const before = streamed;
  try {
    r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) });
  } catch (e) {
    console.warn(path, e);
    setMessage(T("err.unreachable"));
    return null;
  }
  if (!r.ok) { await failed(path, r); return null; }
  const d = await r.json();
  if (d && (d.state || d.moves) && streamed === before) render(normal(d));
  return d;
}

// failed tells people why a request did not work, in words: the API's
// errors carry a reason (webui.APIError); the detail goes to the console.
async function failed(path, r) {
  let e = {};
  try { e = await r.json(); } catch (_) { /* not an APIError */ }
  console.warn(path, r.status, e.error || "");
  if (e.reason === "session_ended" || e.reason === "not_paired") {
    if (e.reason === "session_ended" || paired) ended = true;
    paired = false;
    showPairing({});
    if (state) renderEngines(state);
    setMessage(ended ? endedText() : T("pair.notpaired"));
    return;
  }
  setMessage(peopleText(path, e.reason, r));
}

// endedText: this phone controlled the board and no longer does — or
// its request was still waiting when the board restarted (it never
// controlled it): said so.
function endedText() { return T(lapsed ? "pair.lapsed" : "pair.ended"); }

// peopleText words an API error for the players.
function peopleText(path, reason, r) {
  const name = path.replace(/^api\//, "");
  switch (reason) {
    case "pair_busy": return T("pair.busy");
    case "pair_cooldown": return T("pair.cooldown", { n: +(r.headers.get("Retry-After") || 60) });
    case "pair_crowded": return T("pair.crowded", { n: +(r.headers.get("Retry-After") || 60) });
    case "pair_no_button": return T("pair.nobutton");
    case "bad_token": case "no_control": return T("err.nocontrol");
    case "refused":
      return ({
        takeback: T("refused.takeback"),
        new: T("refused.new"),
        roll: T("refused.roll"),
        hint: T("refused.hint"),
        confirm: T("refused.confirm"),
        choose: T("refused.choose"),
        ai: T("refused.ai"),
        action: T("refused.action"),
        who: T("refused.who"),
        spare: T("refused.spare"),
      })[name] || T("refused.other");
  }
  if (r.status >= 500) return T("err.server");
  return T("err.other");
}
const post = action => send("api/action", action);

// control: a board button. The simulator presses the virtual board's; the
// table runs the command (a paired phone). Destructive ones ask first.
async function control(name, arg) {
  const q = question(name, arg);
  if (q && !(await ask(q.text, q.yes))) return null;
  if (arg > 1) return send("api/" + name + "?arg=" + arg);
  if (view.physical && view.mode === "sim") return post({ press: name });
  return send("api/" + name);
}

// inProgress: a game with moves and no result.
function inProgress() {
  return !!state && (state.moves || []).length > 0 && state.status !== "won" && state.status !== "draw";
}

// question is what to ask before a control, or null: a new game wipes a
// game in progress; a takeback of more than one move (arg > 1).
function question(name, arg) {
  if (name === "new" && inProgress()) {
    const n = state.moves.length;
    return { text: T("ask.new", { n }), yes: T("button.new") };
  }
  if (name === "takeback" && arg > 1) {
    const last = state.moves.slice(-arg).join(", ");
    return { text: T("ask.round", { n: arg, moves: last }), yes: T("ask.round.yes", { n: arg }) };
  }
  return null;
}

// ask shows the page's confirm dialog; it resolves true on Confirm, false
// on Cancel (or Escape). Nothing is sent before Confirm.
function ask(text, yes) {
  const dlg = $("confirmdlg");
  $("confirmtext").textContent = text;
  $("confirmok").textContent = yes || T("button.confirm");
  dlg.hidden = false;
  $("confirmcancel").focus();
  return new Promise(resolve => {
    const done = v => {
      dlg.hidden = true;
      $("confirmok").onclick = $("confirmcancel").onclick = dlg.onkeydown = null;
      resolve(v);
    };
    $("confirmok").onclick = () => done(true);
    $("confirmcancel").onclick = () => done(false);
    dlg.onkeydown = e => { if (e.key === "Escape") done(false); };
  });
}

function onDown(ev) {
  if (!view.physical || view.mode !== "sim") return; // the table is read-only
  const cell = ev.target.dataset.cell;
  if (!cell || !state) return;
  ev.preventDefault();
  const occupied = state.pieces && state.pieces[cell];
  if ($("removeTool").checked) { if (occupied) post({ remove: cell }); return; }
  if (occupied) { drag = { from: cell, x: ev.clientX, y: ev.clientY }; post({ lift: cell }); return; }
  drag = { empty: cell }; // put down on pointerup, unless the finger panned the board
}

// tapEmpty: a tap on an empty cell. A lifted piece goes down first; else a
// piece of the kind picked in the palette; else ask the board anyway (it
// knows its hand better than a page that may not have heard of the last
// lift yet).
function tapEmpty(cell) {
  if (state.lifted && state.lifted.length) { place(cell); return; }
  place(cell, selectedKind || undefined);
}

function cellAt(ev) {
  const t = document.elementFromPoint(ev.clientX, ev.clientY);
  return t && t.dataset ? t.dataset.cell : undefined;
}

function onUp(ev) {
  if (!drag) return;
  if (drag.empty) { const c = drag.empty; drag = null; if (!board.panned) tapEmpty(c); return; }
  const moved = Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) > 8;
  const to = cellAt(ev), from = drag.from;
  drag = null;
  if (moved && to && to !== from) place(to); // a drag: put it where it was dropped
  else if (moved && to === from) place(from); // dragged and put back
  // a tap keeps the piece in hand: the next tap on a cell places it
}

function place(cell, piece) {
  const a = { place: cell };
  if (piece) a.piece = piece;
  post(a).then(() => { if ($("noise").checked) post({ fault: "bounce", cell, times: 2 }); });
}

// offline: the page lost its event stream (EventSource reconnects).
let offline = false;

function render(s) {
  state = s;
  if (!board) return;
  const holding = liftedCells(s);
  const hint = hintMove(s);
  const log = moveLog(s);
  const last = log.length ? log[log.length - 1] : null;
  board.render({ pieces: s.pieces, leds: s.leds, holding,
    last: last && (last.from || last.to) ? { from: last.from, to: last.to } : null,
    arrow: hint && (hint.to || []).length ? { from: hint.from || [], to: hint.to.slice(0, 1), move: hint.text, kind: "hint" } : null });
  renderStatus(s);
  let text;
  if (s.clock && s.clock.flag) text = "⏱ " + T("turn.flag", { who: nameOf(s, s.clock.flag) });
  else if (s.status === "won") text = "🏆 " + T("turn.won", { who: nameOf(s, s.winner) });
  else if (s.status === "draw") text = T("turn.draw");
  else text = T(s.awaiting === "roll" ? "turn.roll" : s.awaiting === "place" ? "turn.place" : "turn.move", { who: nameOf(s, s.to_move || "?") });
  $("turntext").innerHTML = '<span class="dot" style="background:' + Tabla.sideColour(s.to_move) + '"></span>' + Tabla.escapeHTML(text) +
    (s.roll && s.awaiting === "move" ? ' <span class="rollnow">' + Tabla.escapeHTML(T("turn.rolled", { roll: Words.face(s.roll) })) + "</span>" : "");
  const hl = $("hintline");
  hl.hidden = !hint;
  if (hint) hl.textContent = T(engineSeat(s) ? "hint.engine" : "hint.line", { who: I18N.seat(s.to_move), move: Words.move(hint) });
  setMessage(I18N.text(s.board_problem_text || s.board_problem) || I18N.text(s.journal_problem_text || s.journal_problem) || peopleMessage(s) || boardNeeds(s) || liftedText(s, holding));
  // paused with a spare folder: a paired phone writes the game there
  $("spare").hidden = !(s.journal_problem && s.spare_journal);
  $("spare").disabled = !canControl();
  $("spare").onclick = () => control("spare");
  plugged = s.plugged !== false;
  $("plug").textContent = T(plugged ? "tools.unplug" : "tools.replug");
  $("rolled").textContent = s.roll ? (s.roll_by ? T("die.shows.by", { roll: Words.face(s.roll), who: I18N.seat(s.roll_by) }) : T("die.shows", { roll: Words.face(s.roll) })) : "";
  renderMoves(log);
  voice(s, log, hint);
  renderClub(s);
  renderHand(s);
  renderRound(s);
  renderEngines(s);
  renderPairing(s);
}

// renderStatus: the header's badge and the turn line's state say the same
// thing — the page's link, then the board's cable, then the board against
// the game (a piece in the hand is a move under way, not a fault; "out of
// sync" only when no reading explains the board).
function renderStatus(s) {
  let badge, sync, bad = false;
  const conn = s.conn || "connected";
  if (offline) { badge = T("conn.offline"); sync = T("sync.reconnecting"); bad = true; }
  else if (s.board_problem) { badge = T("conn.wrongboard"); sync = T("sync.wrongboard"); bad = true; }
  else if (s.journal_problem) { badge = T("conn.paused"); sync = T("sync.paused"); bad = true; }
  else if (conn === "waiting") { badge = T("conn.connecting"); sync = T("sync.reading"); }
  else if (conn !== "connected") { badge = T("conn.down"); sync = T("conn.down"); bad = true; }
  else {
    badge = T("conn.up");
    if (s.in_sync !== false) sync = T("sync.in");
    else if (s.mode === "play") sync = T("sync.underway");
    else if (s.mode === "setup") sync = T("sync.setup");
    else if (s.mode === "confirm") sync = T("sync.confirm");
    else { sync = T("sync.out"); bad = true; }
  }
  $("conn").textContent = badge;
  $("conn").classList.toggle("down", offline || !!s.board_problem || !!s.journal_problem || conn !== "connected" && conn !== "waiting");
  $("conn").dataset.state = offline ? "offline" : s.board_problem ? "wrong-board" : s.journal_problem ? "paused" : conn;
  $("sync").textContent = sync;
  $("sync").classList.toggle("bad", bad);
}

// moveLog: the move list from the status document (seat, roll, cells,
// captures), or from the bare moves of a backend without it (a hub).
function moveLog(s) {
  if (Array.isArray(s.log) && s.log.length === (s.moves || []).length) return s.log;
  return (s.moves || []).map((m, i) => ({ n: i + 1, text: m }));
}

function renderMoves(log) {
  const moves = $("moves");
  moves.innerHTML = "";
  log.forEach((m, i) => {
    const li = document.createElement("li");
    li.dataset.move = m.text;
    if (i === log.length - 1) li.className = "current";
    let html = '<span class="n">' + m.n + ".</span>";
    if (m.seat) html += '<span class="dot" style="background:' + Tabla.sideColour(m.seat) + '" title="' + Tabla.escapeHTML(I18N.seat(m.seat)) + '"></span><span class="who">' + Tabla.escapeHTML(nameOf(state, m.seat)) + "</span>";
    if (m.roll) html += '<span class="roll" title="' + Tabla.escapeHTML(T("turn.rolled", { roll: Words.face(m.roll) })) + '">🎲' + Tabla.escapeHTML(m.roll) + "</span>";
    html += '<span class="mv">' + Tabla.escapeHTML(m.text) + "</span>";
    if (m.ms != null) html += '<span class="ms" title="' + Tabla.escapeHTML(T("moves.time")) + '">' + (m.ms < 60000 ? T("unit.seconds", { s: I18N.tenths(m.ms / 1000) }) : clockText(m.ms)) + "</span>";
    if ((m.captured || []).length) html += '<span class="cap" title="' + Tabla.escapeHTML(T("moves.captured")) + '">✕' + m.captured.length + " " + Tabla.escapeHTML(Words.pieces(m.captured)) + "</span>";
    li.innerHTML = html;
    moves.appendChild(li);
  });
  moves.scrollTop = moves.scrollHeight; // the latest move in view
}

// Voice, as PicoChess: with the option on, the page says each move the
// board recognises, a move taken back and what the board then needs, the
// hint and the result aloud (the browser's speech synthesis, in the
// page's language, with the voice and rate chosen), for players who keep
// their eyes on the board. The first state only sets where the page
// stands.
let voiceLast = null;
function voice(s, log, hint) {
  const over = s.status === "won" || s.status === "draw";
  const needs = s.in_sync === false && s.mode === "correct" ? Words.needs(s, true).join(" ") : "";
  const now = { moves: log.map(m => m.text), hint: hint ? hint.text : "", over, needs };
  const was = voiceLast;
  voiceLast = now;
  if (!was || !$("voice").checked) return;
  let same = 0; // the moves both lists begin with
  while (same < now.moves.length && same < was.moves.length && now.moves[same] === was.moves[same]) same++;
  if (same < was.moves.length) { // moves taken back, or the last move read again as another
    const k = was.moves.length - same;
    if (same === now.moves.length) say(k === 1 ? T("say.takenback", { n: was.moves.length }) : T("say.takenback.many", { n: k, count: Words.number(k) }));
    else say(T("say.corrected"));
  }
  for (const m of log.slice(same)) say(Words.say(m, nameOf(s, m.seat)) + ".");
  if (now.needs && now.needs !== was.needs) say(now.needs + " " + T("say.then", { who: nameOf(s, s.to_move) }));
  if (now.hint && now.hint !== was.hint) say(engineSeat(s) ? T("say.engine", { who: nameOf(s, s.to_move), move: Words.say(hint) }) : T("say.hint", { move: Words.say(hint) }));
  if (over && !was.over) say(s.status === "won" ? T("say.won", { who: nameOf(s, s.winner) }) : T("say.draw"));
}

// say hands a phrase to the speech synthesis: the page's language, the
// voice and the rate chosen on the page (remembered by the browser).
function say(text) {
  if (!window.speechSynthesis) return;
  const u = new SpeechSynthesisUtterance(text);
  u.lang = I18N.locale;
  const name = localStorage.getItem("tabla.voice.name"), rate = +localStorage.getItem("tabla.voice.rate");
  const v = name && speechSynthesis.getVoices().find(v => v.name === name);
  if (v) u.voice = v;
  if (rate) u.rate = rate;
  speechSynthesis.speak(u);
}

// voiceOptions: the voices of the page's language and the rate.
function voiceOptions() {
  const sel = $("voicename"), rate = $("voicerate");
  const fill = () => {
    const mine = speechSynthesis.getVoices().filter(v => v.lang.toLowerCase().startsWith(I18N.lang));
    sel.innerHTML = "";
    const d = document.createElement("option"); d.value = ""; d.textContent = T("voice.default"); sel.appendChild(d);
    for (const v of mine) { const o = document.createElement("option"); o.value = o.textContent = v.name; sel.appendChild(o); }
    sel.value = localStorage.getItem("tabla.voice.name") || "";
  };
  fill();
  speechSynthesis.addEventListener && speechSynthesis.addEventListener("voiceschanged", fill);
  sel.onchange = () => localStorage.setItem("tabla.voice.name", sel.value);
  rate.value = localStorage.getItem("tabla.voice.rate") || "1";
  const showRate = () => { $("voiceratev").textContent = "×" + I18N.number(+rate.value); };
  showRate();
  rate.oninput = () => { localStorage.setItem("tabla.voice.rate", rate.value); showRate(); };
  $("voiceopts").hidden = !$("voice").checked;
}

// liftedCells: the cells whose piece is in a hand — the game has a piece
// there that the board does not (the page draws them as lifted).
function liftedCells(s) {
  if (!s.expected || !s.pieces || s.status === "won" || s.status === "draw") return [];
  return Object.keys(s.expected).filter(c => s.expected[c] && !s.pieces[c]).sort();
}

function liftedText(s, holding) {
  const dests = Object.keys(s.leds || {}).filter(c => s.leds[c].role === "dest").sort();
  if (holding.length === 1 && s.mode === "play") {
    if (!dests.length) return T("lifted", { from: Words.cell(holding[0]) });
    return dests.length === 1 ? T("lifted.one", { from: Words.cell(holding[0]), to: Words.cell(dests[0]) }) : T("lifted.many", { from: Words.cell(holding[0]), n: dests.length });
  }
  if (s.lifted && s.lifted.length) return T("holding", { pieces: s.lifted.map(h => h.piece ? Words.piece(h.piece) : T("piece.any")).join(", ") });
  return "";
}

// confirmText: the board in confirm mode (several readings fit, as after
// a restart whose board lacks the last move) in words: what the confirm
// button would do, and what to move instead; whose move it is after each.
function confirmText(s) {
  const c = (s.candidates || [])[s.proposal || 0] || "", log = moveLog(s), then = " " + T("needs.then", { who: nameOf(s, s.to_move) });
  let m;
  if ((m = /^takeback:(\d+)$/.exec(c))) {
    const n = +m[1], back = log.slice(-n);
    return T("confirm.takeback", { n, moves: back.map(x => x.text).join(", "), who: nameOf(s, back.length ? back[0].seat : s.to_move), needs: Words.diff(s) }) + then;
  }
  if (c === "new") return T("confirm.new", { needs: Words.diff(s) }) + then;
  if ((m = /^revise:(.+)$/.exec(c))) return T("confirm.revise", { move: m[1] });
  return c ? T("confirm.move", { move: c }) : "";
}

// boardNeeds: the board out of sync (after a takeback, a correction, a
// restart, a piece knocked over) in words: what to lift, where to put it
// (as the LEDs show it), and whose move it is then. After a takeback it
// says which move was taken back.
let tookBack = 0, movesSeen = -1;
function boardNeeds(s) {
  const n = (s.moves || []).length;
  if (movesSeen >= 0 && n < movesSeen) tookBack = movesSeen;
  movesSeen = n;
  if (s.in_sync === false && s.mode === "confirm") return confirmText(s);
  if (s.in_sync !== false || s.mode !== "correct" || s.status === "won" || s.status === "draw") { tookBack = 0; return ""; }
  const steps = Words.needs(s, false);
  if (!steps.length) return "";
  // (the server says which move a takeback undid; a page that did not see
  // the moves drop — it opened, or its updates were merged, after the
  // takeback — knows it from there)
  const back = s.taken_back || tookBack;
  const head = back ? T("needs.takenback", { n: back }) + " " : T("needs.head") + " ";
  const then = s.to_move ? " " + T("needs.then", { who: nameOf(s, s.to_move) }) : "";
  return head + steps.join(" ") + then;
}

// hintMove: the standing hint as cells (the status document's hint_move,
// else read from its notation).
function hintMove(s) {
  if (!s.hint) return null;
  if (s.hint_move && s.hint_move.text === s.hint) return s.hint_move;
  let t = s.hint.split("/")[0], from = [], to = [];
  if (t.includes(">")) { const [a, b] = t.split(">"); from = [a]; to = [b]; }
  else if (t.includes("@")) to = [t.split("@")[1]];
  else if (!t.includes(",") && t.includes("-")) { const [a, b] = t.split("-"); from = [a]; to = [b]; }
  else to = [t];
  return { text: s.hint, from: from.filter(c => board.cell(c)), to: to.filter(c => board.cell(c)) };
}

function engineSeat(s) { return s.to_move && (s.ai || []).includes(s.to_move); }

// peopleMessage: the board's message in words for people. The referee's
// messages about faults carry developer detail: the page says what to do,
// the detail goes to the console (and the daemon's log).
function peopleMessage(s) {
  // the table's status document parts the referee's message from the
  // session's own (a pairing request), which come as catalogue texts
  const raw = "referee_message" in s ? s.referee_message : s.message;
  const parts = [refereeWords(raw || "")].concat((s.message_text || []).map(I18N.text)).filter(Boolean);
  return parts.join(" \u2014 ");
}

function refereeWords(m) {
  if (!m) return "";
  if (m !== refereeWords.last) { refereeWords.last = m; console.info("board message:", m); }
  let x = / has no move and is out: /.exec(m) && /^(\S+) has no move/.exec(m);
  if (x) return T("msg.out", { who: I18N.seat(x[1]) });
  x = /^(\S+) \(engine\) plays (\S+)/.exec(m);
  if (x) return T("msg.engine", { who: I18N.seat(x[1]), move: x[2] });
  if (m === "no hint") return T("refused.hint");
  if (/^sensor \d+ is not wired/.test(m)) return T("msg.sensor");
  if (/^board fault/.test(m)) return T("msg.fault");
  if (/^the die shows|^roll .* ignored/.test(m)) return T("msg.roll");
  if (/^new game: /.test(m)) return T("refused.new");
  const btn = /^(\w+): /.exec(m);
  if (btn) return ({ takeback: T("refused.takeback"), confirm: T("refused.confirm"), roll: T("refused.roll"),
    hint: T("refused.hint"), new: T("refused.new") })[btn[1].toLowerCase()] || T("refused.other");
  return T("refused.other");
}

function renderHand(s) {
  const show = view.physical && view.mode === "sim" && (view.game === "gyges" || view.game === "six"); // pieces come from a hand
  $("hand").hidden = !show;
  if (!show) return;
  const pal = $("palette");
  // rebuilt only when it changes: a tap must not land on a button being replaced
  const key = JSON.stringify([selectedKind, s.hands || null]);
  if (pal.dataset.key === key) return;
  pal.dataset.key = key;
  pal.innerHTML = "";
  for (const k of (view.pieces || [])) {
    const b = document.createElement("button");
    b.className = "swatch" + (selectedKind === k ? " sel" : "");
    b.dataset.kind = k;
    const i = document.createElement("i"); i.style.background = ({ red:"#d8333a", black:"#1b1b1b" })[k] || "#e9dcc0"; b.appendChild(i);
    let count = "";
    if (s.hands) for (const seat in s.hands) { const h = s.hands[seat]; if (typeof h === "object" && h[k]) count += " " + I18N.seat(seat) + ":" + h[k]; }
    b.appendChild(document.createTextNode(Words.piece(k) + count));
    b.onclick = () => { selectedKind = selectedKind === k ? null : k; renderHand(state); };
    pal.appendChild(b);
  }
}

function canControl() { return view.mode === "sim" || paired; }

// renderRound offers "Take back a round" (as many moves as there are
// seats: back to the same seat's turn) while the engine plays a seat,
// where one takeback would only give the engine its move back.
// nameOf: a seat's player name with the seat ("Ayşe (red)"), or the seat
// alone when the game names nobody there.
function nameOf(s, seat) {
  const n = s && s.who && s.who.names && s.who.names[seat];
  return n ? n + " (" + I18N.seat(seat) + ")" : I18N.seat(seat);
}

// Who plays and the clocks (issue 27): the event line, one line per seat
// with its player's name and clock; a paired phone (or the simulator)
// edits the names and the event.
let clockAt = 0; // performance.now() when the clock document arrived
function renderClub(s) {
  const who = s.who || {}, names = who.names || {}, c = s.clock;
  const ev = [who.event, who.round ? T("who.round.n", { round: who.round }) : "", who.site, who.date].filter(Boolean).join(" · ");
  const any = ev || Object.keys(names).length || c || view.who;
  $("club").hidden = !any;
  if (!any) return;
  $("eventline").textContent = ev;
  $("eventline").hidden = !ev;
  clockAt = performance.now();
  const ul = $("players");
  ul.innerHTML = "";
  for (const seat of view.seats) {
    const li = document.createElement("li");
    li.dataset.seat = seat;
    if (s.to_move === seat && s.status === "playing") li.className = "tomove";
    let html = '<span class="dot" style="background:' + Tabla.sideColour(seat) + '"></span>';
    html += names[seat] ? '<span class="name">' + Tabla.escapeHTML(names[seat]) + '</span> <span class="seatname">' + Tabla.escapeHTML(I18N.seat(seat)) + "</span>"
      : '<span class="name">' + Tabla.escapeHTML(I18N.seat(seat)) + "</span>";
    if (c && c.left_ms && seat in c.left_ms) html += '<span class="clock" data-seat="' + Tabla.escapeHTML(seat) + '"></span>';
    li.innerHTML = html;
    ul.appendChild(li);
  }
  tickClocks();
  renderWhoEdit(s);
}

// clockLeft: a seat's time left now, in ms — the document's, less the
// time since it arrived while that seat's clock runs (after its delay).
function clockLeft(c, seat) {
  let left = c.left_ms[seat];
  if (c.running === seat && !c.paused && !c.flag) {
    const turn = (c.turn_ms || 0) + (performance.now() - clockAt);
    const delay = (c.delay_ms || {})[seat] || 0;
    left -= Math.max(0, turn - delay) - Math.max(0, (c.turn_ms || 0) - delay);
  }
  return Math.max(0, left);
}

function clockText(ms) { return Tabla.clockText(ms); }

function tickClocks() {
  const c = state && state.clock;
  if (!c) return;
  document.querySelectorAll("#players .clock").forEach(el => {
    const seat = el.dataset.seat, left = clockLeft(c, seat);
    el.textContent = clockText(left);
    el.classList.toggle("low", left <= ((c.low_ms || {})[seat] || 0));
    el.classList.toggle("flag", c.flag === seat);
    el.classList.toggle("paused", !!c.paused && c.running === seat);
    el.title = c.paused && c.running === seat ? T("clock.paused") : (c.control || "");
  });
}
setInterval(tickClocks, 100);

function renderWhoEdit(s) {
  const d = $("whoedit");
  d.hidden = !view.who;
  if (!view.who || d.open) return; // never overwrite what someone types
  const who = s.who || {}, box = $("whonames");
  box.innerHTML = "";
  for (const seat of view.seats) {
    const l = document.createElement("label");
    const dot = document.createElement("span"); dot.className = "dot"; dot.style.background = Tabla.sideColour(seat);
    const i = document.createElement("input");
    i.name = "name:" + seat; i.maxLength = 100; i.autocomplete = "off"; i.placeholder = I18N.seat(seat);
    i.value = (who.names || {})[seat] || "";
    l.append(dot, document.createTextNode(I18N.seat(seat) + " "), i);
    box.appendChild(l);
  }
  const f = $("whoform");
  for (const k of ["event", "round", "site", "date"]) f.elements[k].value = who[k] || "";
  for (const el of f.elements) el.disabled = !canControl();
}

async function saveWho(e) {
  e.preventDefault();
  const f = $("whoform"), body = { names: {} };
  for (const seat of view.seats) {
    const v = f.elements["name:" + seat].value.trim();
    if (v) body.names[seat] = v;
  }
  for (const k of ["event", "round", "site", "date"]) {
    const v = f.elements[k].value.trim();
    if (v) body[k] = v;
  }
  if (await send("api/who", body)) { $("whoedit").open = false; if (state) renderClub(state); }
}

function renderRound(s) {
  const b = $("takebackround"), n = view.seats.length;
  b.dataset.arg = n;
  b.textContent = T("button.round", { n });
  b.hidden = !((s.ai || []).length && (s.moves || []).length >= n);
  b.disabled = !canControl();
}

function renderEngines(s) {
  if (!view.engines) return;
  $("engines").hidden = false;
  const box = $("seats");
  box.innerHTML = "";
  for (const seat of view.seats) {
    const l = document.createElement("label");
    l.className = "seat";
    const c = document.createElement("input");
    c.type = "checkbox"; c.dataset.seat = seat; c.checked = (s.ai || []).includes(seat); c.disabled = !canControl();
    c.onchange = async () => {
      // giving a seat to the engine asks first; taking it back does not
      if (c.checked && !(await ask(T("ask.engine", { who: I18N.seat(seat) }), T("ask.engine.yes", { who: I18N.seat(seat) })))) {
        c.checked = false;
        return;
      }
      send("api/ai", { seat, on: c.checked, level: 0 });
    };
    const dot = document.createElement("span"); dot.className = "dot"; dot.style.background = Tabla.sideColour(seat);
    l.append(c, dot, document.createTextNode(I18N.seat(seat)));
    box.appendChild(l);
  }
}

// Pairing (the table): a phone asks; a corner of the board pulses; the
// board's confirm button grants it.
let pairPoll = null;
async function pairStatus() {
  let p;
  try {
    const r = await fetch("api/pair");
    if (!r.ok) return;
    p = await r.json();
  } catch (e) { console.warn("api/pair", e); return; }
  if (p.ended || (paired && !p.paired)) {
    ended = true;
    // a request still waiting when the board restarted: it lapsed, this
    // phone never controlled the board
    lapsed = !paired && asked() === "pending";
  }
  if (p.paired || p.pending) ended = lapsed = false;
  paired = p.paired;
  asked(p.paired ? "paired" : p.pending ? "pending" : "");
  showPairing(p);
  if (p.pending && !pairPoll) pairPoll = setInterval(pairStatus, 1000);
  if (!p.pending && pairPoll) { clearInterval(pairPoll); pairPoll = null; }
  if (state) { renderEngines(state); renderWhoEdit(state); }
}

function showPairing(p) {
  const t = $("pairtext");
  document.querySelectorAll("[data-press]").forEach(b => { b.disabled = !canControl(); });
  $("pairbtn").hidden = p.paired || p.pending;
  $("unpairbtn").hidden = !p.paired;
  t.classList.toggle("ended", !p.paired && !p.pending && ended);
  if (p.paired) t.textContent = T("pair.paired");
  else if (p.pending) t.textContent = T("pair.pending", { n: p.seconds });
  else if (ended) t.textContent = endedText();
  else if (p.refused) t.textContent = T("pair.refused");
  else t.textContent = T("pair.watching");
}

function renderPairing(s) {
  if (!view.pairing) return;
  // someone's request stands (or ended): ask where this phone stands
  const pending = !!s.pairing;
  if (pending !== renderPairing.last) { renderPairing.last = pending; pairStatus(); }
}

async function start() {
  view = await (await fetch("api/board")).json();
  document.body.dataset.mode = view.mode || "sim";
  $("title").textContent = view.title || view.game;
  document.title = "tabla — " + (view.title || view.game) + (view.mode === "table" ? " " + T("title.table") : "");
  Words.init(view.game);
  board = new Tabla.Board(svg, view);
  svg.onpointerdown = onDown;
  svg.onpointerup = onUp;
  if (board.zoomable) {
    // RAY's and six's cells are small on a phone: zoom (buttons, pinch,
    // wheel) and pan (a drag; on the simulator, a drag from an empty cell)
    $("zoombar").hidden = false;
    document.body.classList.add("zoomable");
    board.gestures(ev => view.mode !== "sim" || !(state && state.pieces && state.pieces[ev.target.dataset.cell]));
    $("zoomin").onclick = () => board.zoomBy(2);
    $("zoomout").onclick = () => board.zoomBy(.5);
    $("zoomfit").onclick = () => { board.zoom = 1; board.applyZoom(); };
  }
  $("whoform").onsubmit = saveWho;
  if (window.speechSynthesis) {
    $("voicebox").hidden = false;
    $("voice").checked = localStorage.getItem("tabla.voice") === "on";
    $("voice").onchange = () => { localStorage.setItem("tabla.voice", $("voice").checked ? "on" : "off"); $("voiceopts").hidden = !$("voice").checked; if (!$("voice").checked) speechSynthesis.cancel(); };
    voiceOptions();
  }
  if (view.library) { $("librarylink").hidden = false; $("librarylink").href = view.library; }
  const sim = view.physical && view.mode === "sim";
  $("tools").hidden = !sim;
  if (view.die && view.die.length) {
    $("dice").hidden = false;
    if (sim) {
      const faces = $("faces");
      for (const f of view.die) {
        const b = document.createElement("button");
        b.textContent = f; b.title = T("die.face.title", { roll: Words.face(f) });
        b.dataset.face = f;
        b.onclick = () => post({ roll: /^[0-9]+$/.test(f) ? +f : f });
        faces.appendChild(b);
      }
    }
  }
  document.querySelectorAll("[data-press]").forEach(b => b.onclick = () => control(b.dataset.press, +b.dataset.arg || 0));
  $("plug").onclick = () => post({ fault: plugged ? "unplug" : "replug" });
  if (view.pairing) {
    $("pairing").hidden = false;
    $("pairbtn").onclick = async () => {
      let r;
      try {
        r = await fetch("api/pair", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
      } catch (e) { console.warn("api/pair", e); setMessage(T("err.unreachable")); return; }
      if (!r.ok) { await failed("api/pair", r); return; }
      ended = lapsed = false;
      setMessage("");
      pairStatus();
    };
    $("unpairbtn").onclick = async () => { await send("api/unpair"); ended = lapsed = false; paired = false; asked(""); pairStatus(); };
    await pairStatus();
  } else {
    showPairing({ paired: true });
  }
  render(normal(await (await fetch("api/state")).json()));
  const es = new EventSource("api/events");
  es.addEventListener("state", e => { streamed++; render(normal(JSON.parse(e.data))); });
  // EventSource reconnects by itself; say so while it is away, and redraw
  // from the first state it sends when it is back.
  es.onerror = () => { offline = true; if (state) render(state); };
  // Back after a restart of the board's daemon: ask at once whether this
  // phone still controls it.
  es.onopen = () => { offline = false; if (state) render(state); if (view.pairing) pairStatus(); };
}
start();
