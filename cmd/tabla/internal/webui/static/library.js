// library.js — every game of the library: filter by game, result and date,
// sort, open one on the analysis board. Unreadable files are listed with
// where they go wrong.
"use strict";
const $ = id => document.getElementById(id);
let games = [], shown = 200;
const PAGE = 200;

function day(d) { return d ? d.slice(0, 10) : ""; }
function when(d) {
  const t = new Date(d);
  if (isNaN(t)) return "";
  // a phone shows the day only
  return window.innerWidth < 600 ? t.toLocaleDateString(undefined, { dateStyle: "medium" }) : t.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
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
    if (q && !(e.id + " " + (e.players || []).join(" ") + " " + (e.first_move || "") + " " + (e.result || "")).toLowerCase().includes(q)) return false;
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
  $("summary").textContent = games.length + " files: " + (games.length - bad) + " games" + (bad ? ", " + bad + " unreadable" : "") +
    (list.length !== games.length ? " — " + list.length + " shown by the filters" : "");
  for (const e of list.slice(0, shown)) {
    const tr = document.createElement("tr");
    if (e.error) {
      tr.className = "bad";
      const err = e.error;
      tr.innerHTML = "<td>" + Tabla.escapeHTML(when(e.date)) + "</td><td>—</td><td colspan=\"4\"></td>";
      // people read that the file is not a game; where it goes wrong is
      // for developers (the console, and tabla library check)
      tr.lastChild.textContent = err.file + ": this file cannot be read as a game (damaged, or not a tabla record).";
      console.warn("unreadable game record", err.file + (err.line ? ":" + err.line + " (byte " + err.byte + ")" : "") + ": " + err.message);
      tr.dataset.id = e.id;
    } else {
      tr.className = "game";
      tr.dataset.id = e.id;
      const players = (e.players || []).map(p => '<span class="dot" style="background:' + Tabla.sideColour(p) + '"></span>' + Tabla.escapeHTML(p)).join(" ");
      const winner = e.winner ? '<span class="dot" style="background:' + Tabla.sideColour(e.winner) + '"></span>' : "";
      tr.innerHTML = "<td>" + Tabla.escapeHTML(when(e.date)) + "</td><td>" + Tabla.escapeHTML(e.game + (e.variant && e.variant !== "basic" ? " " + e.variant : "")) +
        "</td><td class=\"wide\">" + players + "</td><td class=\"num\">" + e.plies + "</td><td>" + winner + Tabla.escapeHTML(e.result) +
        "</td><td class=\"wide\">" + Tabla.escapeHTML(e.id) + "</td>";
      tr.onclick = () => { location.href = "game.html?id=" + encodeURIComponent(e.id); };
    }
    rows.appendChild(tr);
  }
  $("more").hidden = list.length <= shown;
  $("more").textContent = "Show more (" + (list.length - shown) + " left)";
}

async function start() {
  const info = await (await fetch("api/info")).json();
  if (info.live) { $("livelink").hidden = false; $("livelink").href = info.live; }
  const r = await fetch("api/games");
  if (!r.ok) { $("summary").textContent = await Tabla.failText(r, "api/games"); return; }
  games = await r.json();
  const kinds = [...new Set(games.filter(e => e.game).map(e => e.game))].sort();
  for (const k of kinds) { const o = document.createElement("option"); o.value = o.textContent = k; $("fgame").appendChild(o); }
  const sides = [...new Set(games.filter(e => e.winner).map(e => e.winner))].sort();
  for (const s of sides) { const o = document.createElement("option"); o.value = "side:" + s; o.textContent = s + " won"; $("fresult").insertBefore(o, $("fresult").options[2]); }
  for (const id of ["fgame", "fresult", "ffrom", "fto", "fsearch", "fsort"]) $(id).addEventListener("input", () => { shown = PAGE; render(); });
  document.querySelectorAll("th[data-sort]").forEach(th => th.onclick = () => {
    const k = th.dataset.sort, cur = $("fsort").value;
    $("fsort").value = k === "date" ? (cur === "date-desc" ? "date-asc" : "date-desc") : k === "plies" ? (cur === "plies-desc" ? "plies-asc" : "plies-desc") : k;
    render();
  });
  $("more").onclick = () => { shown += PAGE; render(); };
  render();
}
start();
