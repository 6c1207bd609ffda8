// event.js — a club evening on the hub: every game's round with its
// tables, players and live clocks, who the round waits for, standings with
// their tie-breaks, Glicko-2 ratings, the finished rounds' downloads, and
// the arbiter's registration and start (the hub's token). Follows
// /api/club/ID/events.
"use strict";
const $ = id => document.getElementById(id);
const esc = s => Tabla.escapeHTML(String(s));
const id = new URLSearchParams(location.search).get("e") || "";
$("token").value = localStorage.getItem("hubtoken") || "";
$("token").onchange = () => localStorage.setItem("hubtoken", $("token").value);
$("by").value = localStorage.getItem("hubarbiter") || "";
$("by").onchange = () => localStorage.setItem("hubarbiter", $("by").value);

let state = null, at = 0;

async function post(path, body) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json", "Authorization": "Bearer " + $("token").value }, body: JSON.stringify(body) });
  if (r.ok) {
    const a = await r.json().catch(() => ({}));
    $("evmessage").textContent = (a.warnings || []).map(w => "Warning: " + w).join(" ");
    return true;
  }
  const text = (await r.text()).trim();
  $("evmessage").textContent = r.status === 401 ? "The hub's token is needed for this (ask the arbiter)." : text.replace(/^hub: /, "");
  return false;
}

$("register").onsubmit = async ev => {
  ev.preventDefault();
  const name = $("regName").value.trim();
  if (!name) return;
  const body = { game: $("regGame").value, name, by: $("by").value.trim() || "arbiter" };
  if ($("regRating").value) body.rating = Number($("regRating").value);
  if ($("regRD").value) body.rd = Number($("regRD").value);
  const path = state && state.started ? "/arbiter" : "/players";
  if (state && state.started) body.do = "enter";
  if (await post("/api/club/" + encodeURIComponent(id) + path, body)) { $("regName").value = ""; $("regRating").value = ""; $("regRD").value = ""; }
};
$("tools").onsubmit = async ev => {
  ev.preventDefault();
  let what = $("toolDo").value;
  const body = { do: what, game: $("toolGame").value, by: $("by").value.trim() || "arbiter", why: $("toolWhy").value.trim() };
  const name = $("toolName").value.trim(), round = Number($("toolRound").value), board = Number($("toolBoard").value);
  if (what === "pause") { body.do = "withdraw"; body.pause = true; }
  if (["enter", "withdraw", "pause", "bye"].includes(what)) body.name = name;
  if (what === "bye" && round) body.round = round;
  if (what === "forfeit") { body.round = round; body.board = board; body.absent = name.split(",").map(s => s.trim()).filter(Boolean); }
  if (what === "pair") {
    body.games = []; body.byes = [];
    for (const line of $("toolPairs").value.split("\n").map(l => l.trim()).filter(Boolean)) {
      const bye = line.match(/^bye:\s*(.*)$/i);
      if (bye) body.byes.push(...bye[1].split(",").map(s => s.trim()).filter(Boolean));
      else body.games.push(line.split(",").map(s => s.trim()));
    }
  }
  if (!body.why && what !== "enter" && what !== "clocks") { $("evmessage").textContent = "Say why: the log shows it."; return; }
  if (what === "end" && !confirm("End the game after the rounds played? Its standings are final.")) return;
  if (await post("/api/club/" + encodeURIComponent(id) + "/arbiter", body)) { $("toolWhy").value = ""; if (!$("evmessage").textContent) $("evmessage").textContent = "Done."; }
};
$("start").onclick = async () => {
  if (confirm("Start the first round? Nobody can register after that.")) await post("/api/club/" + encodeURIComponent(id) + "/start", {});
};

$("result").onsubmit = async ev => {
  ev.preventDefault();
  const body = { do: "result", game: $("resGame").value, round: Number($("resRound").value), board: Number($("resBoard").value),
    result: $("resPlaces").value.trim(), by: $("by").value.trim() || "arbiter", why: $("resWhy").value.trim() };
  if (!body.why) { $("evmessage").textContent = "Say why the result is set: the log shows it."; return; }
  if (await post("/api/club/" + encodeURIComponent(id) + "/arbiter", body)) { $("resWhy").value = ""; $("evmessage").textContent = "Result set."; }
};

const fmt = ms => {
  ms = Math.max(0, ms);
  const s = Math.ceil(ms / 1000), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, ss = String(s % 60).padStart(2, "0");
  return h ? h + ":" + String(m).padStart(2, "0") + ":" + ss : m + ":" + ss;
};
// num writes points exactly: halves as ½, anything else as it is (a
// Sonneborn-Berger of 0.25 is 0.25, not 0.3)
const num = x => Number.isInteger(x) ? String(x) : (x * 2 === Math.round(x * 2) ? (Math.floor(x) ? Math.floor(x) : "") + "½" : String(Math.round(x * 1e6) / 1e6));
const rating = r => Math.round(r.r) + " ± " + Math.round(r.rd);
const SYSTEMS = { swiss: "Swiss", roundrobin: "round robin", fours: "tables of four" };

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
  let h = '<li class="evpair"><div class="evtable">Board ' + p.board + ' · table <a href="table.html?t=' + encodeURIComponent(p.table) + '">' + esc(p.table) + "</a>";
  if (p.score) h += ' <b class="evscore">' + esc(p.score) + "</b>";
  else if (p.live) h += ' <span class="muted">' + (p.live.online ? "playing, move " + (p.live.plies + 1) : "table offline") + "</span>";
  h += "</div><ul class=\"evseats\">";
  p.players.forEach((name, i) => {
    const seat = s.seats[i], moving = p.live && p.live.to_move === seat;
    h += '<li><span class="seatdot" style="background:' + esc(Tabla.sideColour(seat)) + '"></span>' +
      (moving ? "<b>" + esc(name) + "</b>" : esc(name)) + ' <span class="muted">' + esc(seat) + "</span>" + clockText(p.live, seat) + "</li>";
  });
  return h + "</ul></li>";
}

function section(s) {
  let h = '<section class="panel evpanel"><h2>' + esc(s.game.toUpperCase()) + ' <span class="muted">' + esc(SYSTEMS[s.system] || s.system) +
    " · " + s.rounds + " rounds" + (s.clock ? " · " + esc(s.clock) : "") + "</span></h2>";
  const cur = s.played[s.played.length - 1];
  if (!cur) {
    h += '<div class="label">Registered (' + s.players.length + ")</div><p>" + (s.players.map(p => esc(p.name)).join(", ") || "nobody yet") + "</p>";
  } else {
    h += '<div class="label">Round ' + cur.n + (cur.complete ? " — finished" : "") + "</div>";
    // a table that is not playing its game is what holds the round up
    for (const w of s.waiting) if (w.state !== "playing") h += '<div class="evwait">' + esc(w.text.charAt(0).toUpperCase() + w.text.slice(1)) + "</div>";
    const playing = s.waiting.filter(w => w.state === "playing").length;
    if (playing) h += '<p class="muted">' + playing + (playing === 1 ? " game" : " games") + " under way.</p>";
    h += '<ol class="evpairs">' + cur.pairings.map(p => pairing(s, cur, p)).join("") + "</ol>";
    if (cur.byes && cur.byes.length) h += '<p class="muted">Bye: ' + cur.byes.map(esc).join(", ") + "</p>";
    if (cur.half && cur.half.length) h += '<p class="muted">Half-point bye: ' + cur.half.map(esc).join(", ") + "</p>";
    if (cur.absent && cur.absent.length) h += '<p class="muted">Not playing: ' + cur.absent.map(esc).join(", ") + "</p>";
    if (cur.by) h += '<p class="muted">Paired by hand by ' + esc(cur.by) + ".</p>";
    h += '<div class="evdl"><a class="button" href="' + esc(cur.print) + '" target="_blank">Print pairings and result slips</a></div>';
  }
  if (s.stuck) h += '<div class="evwait evstuck">The next round cannot be paired (' + esc(s.stuck) + '). The arbiter may pair it by hand, allow a rematch, or end the game.</div>';
  if (s.ended) h += '<p><b>Ended by the arbiter: the standings are final.</b></p>';
  else if (s.finished) h += '<p><b>Finished: the standings are final.</b></p>';
  if (s.played.length) {
    h += '<div class="label">Standings</div><table class="evstand"><tr><th>#</th><th>Player</th><th>Pts</th>' +
      s.tiebreaks.map(t => "<th>" + esc(t) + "</th>").join("") + "<th>Rating</th></tr>";
    const rat = Object.fromEntries((s.ratings || []).map(r => [r.name, r]));
    for (const st of s.standings) {
      const r = rat[st.name];
      h += "<tr><td>" + st.rank + "</td><td>" + esc(st.name) + "</td><td><b>" + num(st.points) + "</b></td>" + st.tiebreaks.map(x => "<td>" + num(x) + "</td>").join("") +
        "<td>" + (r ? esc(rating(r.after)) : "") + "</td></tr>";
    }
    h += '</table><p class="muted evnote">A rating is r ± RD (Glicko-2): the player\'s strength lies within two RDs of r 95 times in 100; the RD shrinks as games are played (a new player is 1500 ± 350).</p>';
    h += '<div class="evdl">Crosstable: <a class="button" href="' + esc(s.crosstable) + '" target="_blank">HTML</a> <a class="button" href="' + esc(s.csv) + '" download>CSV</a>' +
      (s.trf ? ' <a class="button" href="' + esc(s.trf) + '" download>TRF</a>' : "") + ' <a class="button" href="/api/club/' + encodeURIComponent(id) + '/records.zip" download>all records (zip)</a></div>';
    const done = s.played.filter(r => r.complete);
    if (done.length) h += '<div class="evdl">Records: ' + done.map(r => '<a class="button" href="' + esc(r.download) + '" download>round ' + r.n + "</a>").join(" ") + "</div>";
  }
  return h + "</section>";
}

function render(v) {
  state = v; at = Date.now();
  $("none").hidden = !!v;
  if (!v) return;
  document.title = v.name + " — tabla hub";
  $("title").textContent = v.name;
  $("where").textContent = [v.site, v.date].filter(Boolean).join(" · ");
  $("sections").innerHTML = v.sections.map(section).join("");
  const games = v.sections.map(s => "<option>" + esc(s.game) + "</option>").join("");
  if ($("regGame").innerHTML !== games) { $("regGame").innerHTML = games; $("resGame").innerHTML = games; $("toolGame").innerHTML = games; }
  $("result").hidden = !v.started;
  $("tools").hidden = !v.started;
  $("regButton").textContent = v.started ? "Enter late" : "Register";
  $("start").hidden = v.started;
  $("log").innerHTML = v.log.slice(-12).reverse().map(l => "<li" + (l.refused ? ' class="refused"' : "") + ">" +
    esc(new Date(l.t).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })) + " " + esc(l.what) + (l.who ? ' <span class="muted">(' + esc(l.who) + ")</span>" : "") + "</li>").join("");
}

// the running clocks tick between the hub's updates
setInterval(() => { if (state) $("sections").innerHTML = state.sections.map(section).join(""); }, 1000);

const es = new EventSource("/api/club/" + encodeURIComponent(id) + "/events");
es.addEventListener("state", e => render(JSON.parse(e.data)));
es.onopen = () => { $("conn").textContent = "live"; $("conn").classList.remove("down"); };
es.onerror = () => {
  $("conn").textContent = "hub offline"; $("conn").classList.add("down");
  if (!state) fetch("/api/club/" + encodeURIComponent(id)).then(r => { if (r.status === 404) { render(null); es.close(); } });
};
