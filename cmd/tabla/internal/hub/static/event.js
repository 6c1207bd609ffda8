// event.js — a club evening on the hub: every game's round with its
// tables, players and live clocks, who the round waits for, standings with
// their tie-breaks, Glicko-2 ratings, the finished rounds' downloads, the
// exports (crosstable, printable round, TRF, records), and the arbiter's
// registration, start and tools (the hub's token), every text from the
// catalogues. Follows /api/club/ID/events.
"use strict";
const $ = id => document.getElementById(id);
const esc = s => Tabla.escapeHTML(String(s));
const id = new URLSearchParams(location.search).get("e") || "";
$("token").value = localStorage.getItem("hubtoken") || "";
$("token").onchange = () => localStorage.setItem("hubtoken", $("token").value);
$("by").value = localStorage.getItem("hubarbiter") || "";
$("by").onchange = () => localStorage.setItem("hubarbiter", $("by").value);

let state = null, at = 0;
// by: who the log says made a change (the arbiter's name, else "arbiter")
const by = () => $("by").value.trim() || "arbiter";
// a pairing's bye line of a hand-made round: "bye: Cem" (or "bay: Cem")
const BYE_LINE = new RegExp("^(?:bye|" + T("ev.tool.byeword").replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "):\\s*(.*)$", "i");

// post sends an arbiter's request; the hub's warnings and refusals come
// as catalogue keys with arguments (say), the English beside them.
async function post(path, body) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json", "Authorization": "Bearer " + $("token").value }, body: JSON.stringify(body) });
  if (r.ok) {
    const a = await r.json().catch(() => ({}));
    $("evmessage").textContent = (a.warnings_say || []).map(w => T("ev.warning", { what: w })).join(" ");
    return true;
  }
  const text = (await r.text()).trim();
  let say = null;
  try { say = JSON.parse(text).say; } catch (_) { /* a plain text answer */ }
  $("evmessage").textContent = r.status === 401 ? T("ev.err.token") : say ? I18N.text(say) : r.status === 404 ? T("ev.none") : T("hub.err.other");
  if (!say) console.warn(path, r.status, text);
  return false;
}

$("register").onsubmit = async ev => {
  ev.preventDefault();
  const name = $("regName").value.trim();
  if (!name) return;
  const body = { game: $("regGame").value, name, by: by() };
  if ($("regRating").value) body.rating = Number($("regRating").value);
  if ($("regRD").value) body.rd = Number($("regRD").value);
  const path = state && state.started ? "/arbiter" : "/players";
  if (state && state.started) body.do = "enter";
  if (await post("/api/club/" + encodeURIComponent(id) + path, body)) { $("regName").value = ""; $("regRating").value = ""; $("regRD").value = ""; }
};
$("tools").onsubmit = async ev => {
  ev.preventDefault();
  let what = $("toolDo").value;
  const body = { do: what, game: $("toolGame").value, by: by(), why: $("toolWhy").value.trim() };
  const name = $("toolName").value.trim(), round = Number($("toolRound").value), board = Number($("toolBoard").value);
  if (what === "pause") { body.do = "withdraw"; body.pause = true; }
  if (["enter", "withdraw", "pause", "bye"].includes(what)) body.name = name;
  if (what === "bye" && round) body.round = round;
  if (what === "forfeit") { body.round = round; body.board = board; body.absent = name.split(",").map(s => s.trim()).filter(Boolean); }
  if (what === "pair") {
    body.games = []; body.byes = [];
    for (const line of $("toolPairs").value.split("\n").map(l => l.trim()).filter(Boolean)) {
      const bye = line.match(BYE_LINE);
      if (bye) body.byes.push(...bye[1].split(",").map(s => s.trim()).filter(Boolean));
      else body.games.push(line.split(",").map(s => s.trim()));
    }
  }
  if (!body.why && what !== "enter" && what !== "clocks") { $("evmessage").textContent = T("ev.err.saywhy"); return; }
  if (what === "end" && !confirm(T("ev.ask.end"))) return;
  if (await post("/api/club/" + encodeURIComponent(id) + "/arbiter", body)) { $("toolWhy").value = ""; if (!$("evmessage").textContent) $("evmessage").textContent = T("ev.done"); }
};
$("start").onclick = async () => {
  if (confirm(T("ev.ask.start"))) await post("/api/club/" + encodeURIComponent(id) + "/start", {});
};

$("result").onsubmit = async ev => {
  ev.preventDefault();
  const body = { do: "result", game: $("resGame").value, round: Number($("resRound").value), board: Number($("resBoard").value),
    result: $("resPlaces").value.trim(), by: by(), why: $("resWhy").value.trim() };
  if (!body.why) { $("evmessage").textContent = T("ev.err.why"); return; }
  if (await post("/api/club/" + encodeURIComponent(id) + "/arbiter", body)) { $("resWhy").value = ""; $("evmessage").textContent = T("ev.resultset"); }
};

const fmt = ms => {
  ms = Math.max(0, ms);
  const s = Math.ceil(ms / 1000), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, ss = String(s % 60).padStart(2, "0");
  return h ? h + ":" + String(m).padStart(2, "0") + ":" + ss : m + ":" + ss;
};
// num writes points exactly: halves as ½, anything else in the page's
// digits (a Sonneborn-Berger of 0.25 is 0,25 in Turkish, not 0,3)
const num = x => Number.isInteger(x) ? String(x) : (x * 2 === Math.round(x * 2) ? (Math.floor(x) ? Math.floor(x) : "") + "½" : I18N.number(Math.round(x * 1e6) / 1e6));
const rating = r => Math.round(r.r) + " ± " + Math.round(r.rd);
// the tie-breaks by their English names (club's Section.Tiebreaks)
const TIEBREAKS = { "Buchholz": T("tb.buchholz"), "Sonneborn-Berger": T("tb.sonneborn"), "wins": T("tb.wins"), "first places": T("tb.firsts"), "table mates' points": T("tb.mates") };
const SYSTEMS = { swiss: T("ev.system.swiss"), roundrobin: T("ev.system.roundrobin"), fours: T("ev.system.fours") };

// clockText is a seat's clock of a live game, the running one counting
// down from the game's latest line.
function clockText(live, seat) {
  const c = live && live.clock;
  if (!c || !(seat in c.left_ms)) return "";
  let ms = c.left_ms[seat];
  if (c.running === seat && live.last) ms -= Math.max(0, Date.now() - Date.parse(live.last));
  return '<span class="clock' + (c.running === seat ? " run" : "") + (ms <= (c.low_ms || {})[seat] ? " low" : "") + '">' + fmt(ms) + "</span>";
}

function pairing(s, r, p) {
  let h = '<li class="evpair"><div class="evtable">' + esc(T("ev.board", { n: p.board })) + " · " + esc(T("ev.table")) + ' <a href="table.html?t=' + encodeURIComponent(p.table) + '">' + esc(p.table) + "</a>";
  if (p.score) h += ' <b class="evscore">' + esc(p.score) + "</b>";
  else if (p.live) h += ' <span class="muted">' + esc(p.live.online ? T("ev.playing", { n: p.live.plies + 1 }) : T("hub.table.offline")) + "</span>";
  h += "</div><ul class=\"evseats\">";
  p.players.forEach((name, i) => {
    const seat = s.seats[i], moving = p.live && p.live.to_move === seat;
    h += '<li><span class="seatdot" style="background:' + esc(Tabla.sideColour(seat)) + '"></span>' +
      (moving ? "<b>" + esc(name) + "</b>" : esc(name)) + ' <span class="muted">' + esc(I18N.seat(seat)) + "</span>" + clockText(p.live, seat) + "</li>";
  });
  return h + "</ul></li>";
}

function section(s) {
  let h = '<section class="panel evpanel"><h2>' + esc(s.game.toUpperCase()) + ' <span class="muted">' + esc(SYSTEMS[s.system] || s.system) +
    " · " + esc(T("ev.rounds", { n: s.rounds })) + (s.clock ? " · " + esc(s.clock) : "") + "</span></h2>";
  const cur = s.played[s.played.length - 1];
  if (!cur) {
    h += '<div class="label">' + esc(T("ev.registered", { n: s.players.length })) + "</div><p>" + (s.players.map(p => esc(p.name)).join(", ") || esc(T("ev.nobody"))) + "</p>";
  } else {
    h += '<div class="label">' + esc(T(cur.complete ? "ev.round.done" : "ev.round.n", { n: cur.n })) + "</div>";
    // a table that is not playing its game is what holds the round up
    for (const w of s.waiting) if (w.state !== "playing") h += '<div class="evwait">' + esc(waitText(w)) + "</div>";
    const playing = s.waiting.filter(w => w.state === "playing").length;
    if (playing) h += '<p class="muted">' + esc(T("ev.underway", { n: playing })) + "</p>";
    h += '<ol class="evpairs">' + cur.pairings.map(p => pairing(s, cur, p)).join("") + "</ol>";
    if (cur.byes && cur.byes.length) h += '<p class="muted">' + esc(T("ev.bye", { who: cur.byes.join(", ") })) + "</p>";
    if (cur.half && cur.half.length) h += '<p class="muted">' + esc(T("ev.half", { who: cur.half.join(", ") })) + "</p>";
    if (cur.absent && cur.absent.length) h += '<p class="muted">' + esc(T("ev.absent", { who: cur.absent.join(", ") })) + "</p>";
    if (cur.by) h += '<p class="muted">' + esc(T("ev.byhand", { who: cur.by })) + "</p>";
    h += '<div class="evdl"><a class="button" href="' + esc(cur.print) + '" target="_blank">' + esc(T("ev.print")) + "</a></div>";
  }
  if (s.stuck) h += '<div class="evwait evstuck">' + esc(s.stuck_say ? T("ev.stuck.why", { why: s.stuck_say }) : T("ev.stuck")) + "</div>";
  if (s.ended) h += "<p><b>" + esc(T("ev.ended")) + "</b></p>";
  else if (s.finished) h += "<p><b>" + esc(T("ev.finished")) + "</b></p>";
  if (s.played.length) {
    h += '<div class="label">' + esc(T("ev.standings")) + '</div><table class="evstand"><tr><th>#</th><th>' + esc(T("ev.player")) + "</th><th>" + esc(T("ev.pts")) + "</th>" +
      s.tiebreaks.map(t => "<th>" + esc(TIEBREAKS[t] || t) + "</th>").join("") + "<th>" + esc(T("ev.rating")) + "</th></tr>";
    const rat = Object.fromEntries((s.ratings || []).map(r => [r.name, r]));
    for (const st of s.standings) {
      const r = rat[st.name];
      h += "<tr><td>" + st.rank + "</td><td>" + esc(st.name) + "</td><td><b>" + num(st.points) + "</b></td>" + st.tiebreaks.map(x => "<td>" + num(x) + "</td>").join("") +
        "<td>" + (r ? esc(rating(r.after)) : "") + "</td></tr>";
    }
    h += '</table><p class="muted evnote">' + esc(T("ev.rating.note")) + "</p>";
    h += '<div class="evdl">' + esc(T("ev.crosstable")) + ' <a class="button" href="' + esc(s.crosstable) + '" target="_blank">HTML</a> <a class="button" href="' + esc(s.csv) + '" download>CSV</a>' +
      (s.trf ? ' <a class="button" href="' + esc(s.trf) + '" download>TRF</a>' : "") + ' <a class="button" href="/api/club/' + encodeURIComponent(id) + '/records.zip" download>' + esc(T("ev.zip")) + "</a></div>";
    const done = s.played.filter(r => r.complete);
    if (done.length) h += '<div class="evdl">' + esc(T("ev.records")) + " " + done.map(r => '<a class="button" href="' + esc(r.download) + '" download>' + esc(T("who.round.n", { round: r.n })) + "</a>").join(" ") + "</div>";
  }
  return h + "</section>";
}

// waitText: who a round waits for, in words.
function waitText(w) {
  const key = w.state === "offline" ? (w.underway ? "ev.wait.offline.underway" : "ev.wait.offline") : "ev.wait.notstarted";
  return T(key, { round: w.round, board: w.board, table: w.table, players: (w.players || []).join(" – ") });
}

function render(v) {
  state = v; at = Date.now();
  $("none").hidden = !!v;
  if (!v) return;
  document.title = v.name + " — " + T("hub.title.doc");
  $("title").textContent = v.name;
  $("where").textContent = [v.site, v.date].filter(Boolean).join(" · ");
  $("sections").innerHTML = v.sections.map(section).join("");
  const games = v.sections.map(s => "<option>" + esc(s.game) + "</option>").join("");
  if ($("regGame").innerHTML !== games) { $("regGame").innerHTML = games; $("resGame").innerHTML = games; $("toolGame").innerHTML = games; }
  $("result").hidden = !v.started;
  $("tools").hidden = !v.started;
  $("regButton").textContent = T(v.started ? "ev.enterlate" : "ev.register");
  $("start").hidden = v.started;
  $("log").innerHTML = v.log.slice(-12).reverse().map(l => "<li" + (l.refused ? ' class="refused"' : "") + ">" +
    esc(new Date(l.t).toLocaleTimeString(I18N.locale, { hour: "2-digit", minute: "2-digit" })) + " " + esc(l.say ? I18N.text(l.say) : l.what) +
    (l.who ? ' <span class="muted">(' + esc(l.who) + ")</span>" : "") + "</li>").join("");
}

// the running clocks tick between the hub's updates
setInterval(() => { if (state) $("sections").innerHTML = state.sections.map(section).join(""); }, 1000);

const es = new EventSource("/api/club/" + encodeURIComponent(id) + "/events");
es.addEventListener("state", e => render(JSON.parse(e.data)));
es.onopen = () => { $("conn").textContent = T("hub.live"); $("conn").classList.remove("down"); };
es.onerror = () => {
  $("conn").textContent = T("hub.offline"); $("conn").classList.add("down");
  if (!state) fetch("/api/club/" + encodeURIComponent(id)).then(r => { if (r.status === 404) { render(null); es.close(); } });
};
