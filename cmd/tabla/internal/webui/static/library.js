// library.js — every game of the library: filter by game, result and date,
// search every move, seat and header field (on the server), sort, open one
// on the analysis board. Unreadable files are listed with where they go
// wrong. The first index of a large library shows how many games are read.
// A chart of the statistics links here with its filter in the query
// (?game=star&plies=10-19, ?first=b1-f3, ?result=won, ?q=…).
"use strict";
const $ = id => document.getElementById(id);
let games = [], shown = 200;
const PAGE = 200;
// matches: the ids the server's search found for the query (null: no query)
let matches = null, searchSeq = 0, searchTimer = 0;
// extra: filters a chart's link set (plies range, first move)
const extra = {};

function day(d) { return d ? d.slice(0, 10) : ""; }
function when(d) {
  const t = new Date(d);
  if (isNaN(t)) return "";
  // a phone shows the day only
  return window.innerWidth < 600 ? t.toLocaleDateString(I18N.locale, { dateStyle: "medium" }) : t.toLocaleString(I18N.locale, { dateStyle: "medium", timeStyle: "short" });
}

function filtered() {
  const g = $("fgame").value, res = $("fresult").value, from = $("ffrom").value, to = $("fto").value;
  const q = $("fsearch").value.trim().toLowerCase();
  let out = games.filter(e => {
    if (res === "bad") return !!e.error;
    if (g && e.game !== g) return false;
    if (res === "won" && e.status !== "won") return false;
    if (res === "draw" && e.status !== "draw") return false;
    if (res === "unfinished" && (e.error || e.result !== "unfinished")) return false;
    if (res.startsWith("side:") && e.winner !== res.slice(5)) return false;
    if (from && day(e.date) < from) return false;
    if (to && day(e.date) > to) return false;
    if (q && matches && !matches.has(e.id)) return false;
    if (extra.plies && (e.error || e.plies < extra.plies[0] || e.plies > extra.plies[1])) return false;
    if (extra.first && e.first_move !== extra.first) return false;
    return true;
  });
  const [key, dir] = $("fsort").value.split("-");
  const cmp = {
    date: (a, b) => a.date < b.date ? -1 : a.date > b.date ? 1 : 0,
    plies: (a, b) => a.plies - b.plies,
    game: (a, b) => (a.game || "~").localeCompare(b.game || "~") || (a.date < b.date ? 1 : -1),
    file: (a, b) => a.id.localeCompare(b.id),
  }[key];
  out.sort(cmp);
  if (dir === "desc") out.reverse();
  // unreadable files after the games (their date is only the file's)
  return out.filter(e => !e.error).concat(out.filter(e => e.error));
}

function render() {
  const list = filtered(), rows = $("rows");
  rows.innerHTML = "";
  const bad = games.filter(e => e.error).length;
  $("summary").textContent = T("lib.files", { n: games.length, games: T("lib.games", { n: games.length - bad }) }) + (bad ? ", " + T("lib.unreadable", { n: bad }) : "") +
    (list.length !== games.length ? " — " + T("lib.shown", { n: list.length }) : "");
  const chips = [];
  if (extra.plies) chips.push(T("plies", { n: extra.plies[0] + "–" + extra.plies[1] }));
  if (extra.first) chips.push(T("lib.firstmove", { move: extra.first }));
  $("chartfilter").hidden = !chips.length;
  $("chartfiltertext").textContent = chips.join(", ");
  for (const e of list.slice(0, shown)) {
    const tr = document.createElement("tr");
    if (e.error) {
      tr.className = "bad";
      const err = e.error;
      tr.innerHTML = "<td>" + Tabla.escapeHTML(when(e.date)) + "</td><td>—</td><td colspan=\"4\"></td>";
      // people read that the file is not a game; where it goes wrong is
      // for developers (the console, and tabla library check)
      tr.lastChild.textContent = T("lib.badfile", { file: err.file });
      console.warn("unreadable game record", err.file + (err.line ? ":" + err.line + " (byte " + err.byte + ")" : "") + ": " + err.message);
      tr.dataset.id = e.id;
    } else {
      tr.className = "game";
      tr.dataset.id = e.id;
      const players = (e.players || []).map(p => '<span class="dot" style="background:' + Tabla.sideColour(p) + '"></span>' + Tabla.escapeHTML(I18N.seat(p))).join(" ");
      const winner = e.winner ? '<span class="dot" style="background:' + Tabla.sideColour(e.winner) + '"></span>' : "";
      tr.innerHTML = "<td>" + Tabla.escapeHTML(when(e.date)) + "</td><td>" + Tabla.escapeHTML(e.game + (e.variant && e.variant !== "basic" ? " " + T("variant." + e.variant) : "")) +
        "</td><td class=\"wide\">" + players + "</td><td class=\"num\">" + I18N.number(e.plies) + "</td><td>" + winner + Tabla.escapeHTML(Tabla.resultText(e)) +
        "</td><td class=\"wide\">" + Tabla.escapeHTML(e.id) + "</td>";
      tr.onclick = () => { location.href = "game.html?id=" + encodeURIComponent(e.id); };
    }
    rows.appendChild(tr);
  }
  $("more").hidden = list.length <= shown;
  $("more").textContent = T("lib.more", { n: list.length - shown });
}

// search asks the server which games match the query (every move, the
// seats, every header field), a moment after the typing stops.
function search() {
  clearTimeout(searchTimer);
  const q = $("fsearch").value.trim();
  if (!q) { matches = null; searchSeq++; render(); return; }
  searchTimer = setTimeout(async () => {
    const seq = ++searchSeq;
    const r = await fetch("api/search?q=" + encodeURIComponent(q));
    if (seq !== searchSeq) return;
    if (!r.ok) { $("summary").textContent = await Tabla.failText(r, "api/search"); return; }
    matches = new Set(await r.json());
    shown = PAGE;
    render();
  }, 150);
}

// watchIndex shows how far the first index has read while api/games waits
// for it.
async function watchIndex(pending) {
  while (pending.waiting) {
    try {
      const p = await (await fetch("api/progress")).json();
      if (!pending.waiting) return;
      if (p.indexing && p.total) $("summary").textContent = T("lib.reading") + " " + T("lib.progress", { read: p.read, n: p.total });
    } catch (_) { /* the listing's own error says it */ }
    await new Promise(ok => setTimeout(ok, 250));
  }
}

// fromQuery applies a link's filters (from a chart of the statistics).
function fromQuery() {
  const q = new URLSearchParams(location.search);
  if (q.get("game")) $("fgame").value = q.get("game");
  if (q.get("result")) $("fresult").value = q.get("result");
  if (q.get("q")) $("fsearch").value = q.get("q");
  const pl = (q.get("plies") || "").match(/^(\d+)-(\d+)$/);
  if (pl) extra.plies = [+pl[1], +pl[2]];
  if (q.get("first")) extra.first = q.get("first");
}

async function start() {
  let info = {};
  try { info = await (await fetch("api/info")).json(); } catch (_) { /* offline, and not kept: no link to the live board */ }
  if (info.live) { $("livelink").hidden = false; $("livelink").href = info.live; }
  const pending = { waiting: true };
  watchIndex(pending);
  const r = await fetch("api/games");
  pending.waiting = false;
  if (!r.ok) { $("summary").textContent = await Tabla.failText(r, "api/games"); return; }
  games = await r.json();
  const kinds = [...new Set(games.filter(e => e.game).map(e => e.game))].sort();
  for (const k of kinds) { const o = document.createElement("option"); o.value = o.textContent = k; $("fgame").appendChild(o); }
  const sides = [...new Set(games.filter(e => e.winner).map(e => e.winner))].sort();
  for (const s of sides) { const o = document.createElement("option"); o.value = "side:" + s; o.textContent = T("result.won", { who: I18N.seat(s) }); $("fresult").insertBefore(o, $("fresult").options[2]); }
  for (const id of ["fgame", "fresult", "ffrom", "fto", "fsort"]) $(id).addEventListener("input", () => { shown = PAGE; render(); });
  $("fsearch").addEventListener("input", search);
  $("clearchart").onclick = () => { delete extra.plies; delete extra.first; history.replaceState(null, "", location.pathname); render(); };
  fromQuery();
  if ($("fsearch").value.trim()) search();
  document.querySelectorAll("th[data-sort]").forEach(th => th.onclick = () => {
    const k = th.dataset.sort, cur = $("fsort").value;
    $("fsort").value = k === "date" ? (cur === "date-desc" ? "date-asc" : "date-desc") : k === "plies" ? (cur === "plies-desc" ? "plies-asc" : "plies-desc") : k;
    render();
  });
  $("more").onclick = () => { shown += PAGE; render(); };
  render();
}
start();
