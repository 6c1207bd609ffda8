// hub.js — the club hub's live tables: a small board each, following
// /api/events; drawn with webui's board.js.
"use strict";
const $ = id => document.getElementById(id);
const views = {}, cards = {};

async function view(board, table) {
  const key = table + "/" + board;
  if (!views[key]) views[key] = fetch("/api/board?t=" + encodeURIComponent(table)).then(r => r.ok ? r.json() : null);
  return views[key];
}

async function card(t) {
  let c = cards[t.table];
  if (!c) {
    const a = document.createElement("a");
    a.className = "tcard"; a.href = "table.html?t=" + encodeURIComponent(t.table);
    a.innerHTML = '<div class="name"></div><svg></svg><div class="who"></div><div class="info"></div>';
    $("tables").appendChild(a);
    c = cards[t.table] = { a, board: null, key: "" };
  }
  c.a.classList.toggle("offline", !t.online);
  c.a.querySelector(".name").textContent = t.table + (t.online ? "" : " " + T("hub.offline.mark"));
  const who = t.who || {}, names = who.names || {};
  const named = seat => names[seat] ? names[seat] + " (" + I18N.seat(seat) + ")" : I18N.seat(seat);
  let info = t.game ? t.game + " · " + T("hub.ply", { n: t.plies }) + " · " : T("hub.nogame");
  if (t.ended === "time" && t.flag) info += T("turn.flag", { who: named(t.flag) });
  else if (t.status === "won") info += T("result.won", { who: named(t.winner) });
  else if (t.status === "draw") info += T("result.draw");
  else if (t.to_move) info += T("turn.move", { who: named(t.to_move) });
  if (t.remote) info += " · " + T("hub.remote", { table: t.remote.table });
  c.a.querySelector(".info").textContent = info;
  // who plays, and the event and round
  const players = Object.keys(names).map(seat => names[seat] + " (" + I18N.seat(seat) + ")").join(" – ");
  const ev = [who.event, who.round ? T("who.round.n", { round: who.round }) : ""].filter(Boolean).join(" · ");
  c.a.querySelector(".who").textContent = [players, ev].filter(Boolean).join(" · ");
  if (!t.board) return;
  const key = t.board + "/" + t.id;
  if (c.key !== key) {
    const v = await view(t.board, t.table);
    if (!v) return;
    c.board = new Tabla.Board(c.a.querySelector("svg"), v); c.key = key;
  }
  c.board.render({ pieces: t.pieces || {}, leds: {} });
}

function render(list) {
  $("none").hidden = list.length > 0;
  for (const t of list) card(t);
}

const es = new EventSource("/api/events");
es.addEventListener("state", e => render(JSON.parse(e.data)));
es.onopen = () => { $("conn").textContent = T("hub.live"); $("conn").classList.remove("down"); };
es.onerror = () => { $("conn").textContent = T("hub.offline"); $("conn").classList.add("down"); };

// the club evenings on this hub
fetch("/api/club").then(r => r.ok ? r.json() : []).then(ids => {
  if (!ids.length) return;
  $("events").innerHTML = Tabla.escapeHTML(T("hub.events")) + " " + ids.map(id => '<a class="button" href="event.html?e=' + encodeURIComponent(id) + '">' + Tabla.escapeHTML(id) + "</a>").join(" ");
  $("events").hidden = false;
});
