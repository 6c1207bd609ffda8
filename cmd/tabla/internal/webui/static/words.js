// words.js — moves, cells and what the board needs, in the page's language:
// written (Words.move: "c6 → a6") and spoken (Words.say: "c altıdan a
// altıya"). Written Turkish uses no case suffix after a coordinate; the
// spoken forms spell numbers in words, whose suffixes follow the last
// word's vowels (Turkish vowel harmony), so they are always right.
"use strict";
const Words = (() => {
  let game = "";
  const tr = () => I18N.lang === "tr";
  function init(g) { game = g || ""; }

  // --- numbers in words ----------------------------------------------------
  const EN1 = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
    "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"];
  const EN10 = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
  const TR1 = ["sıfır", "bir", "iki", "üç", "dört", "beş", "altı", "yedi", "sekiz", "dokuz"];
  const TR10 = ["", "on", "yirmi", "otuz", "kırk", "elli", "altmış", "yetmiş", "seksen", "doksan"];
  function number(n) {
    n = +n;
    if (!Number.isInteger(n)) return String(n);
    if (n < 0) return (tr() ? "eksi " : "minus ") + number(-n);
    if (n >= 100) return String(n);
    if (tr()) return n < 10 ? TR1[n] : TR10[Math.floor(n / 10)] + (n % 10 ? " " + TR1[n % 10] : "");
    return n < 20 ? EN1[n] : EN10[Math.floor(n / 10)] + (n % 10 ? "-" + EN1[n % 10] : "");
  }

  // --- Turkish suffixes on a spoken word (its last word decides) ----------
  const BACK = "aıou", VOWELS = "aeıioöuü", HARD = "çfhkpsşt";
  function lastVowel(w) { for (let i = w.length - 1; i >= 0; i--) if (VOWELS.includes(w[i])) return w[i]; return "e"; }
  // from: "-den" (ablative), to: "-e" (dative), at: "-de" (locative)
  function suffix(w, kind) {
    const a = BACK.includes(lastVowel(w)) ? "a" : "e", end = w[w.length - 1], vowelEnd = VOWELS.includes(end);
    if (/noktası$/.test(w)) return w + "n" + (kind === "to" ? a : kind === "from" ? "d" + a + "n" : "d" + a);
    if (kind === "to") {
      if (vowelEnd) return w + "y" + a;
      if (/dört$/.test(w)) return w.slice(0, -1) + "d" + a; // dört → dörde
      return w + a;
    }
    const d = !vowelEnd && HARD.includes(end) ? "t" : "d";
    return w + d + a + (kind === "from" ? "n" : "");
  }

  // --- cells -----------------------------------------------------------------
  function isGoal(c) { return game === "gyges" && (c === "N" || c === "S"); }
  // cell: a cell as written ("c6", "-2,3", the goal in words)
  function cell(c) {
    if (isGoal(c)) return T("word.goal");
    if (game === "daha" && c === "O") return T("word.centre");
    return c;
  }
  // sayCell: a cell as spoken: six's coordinates in words ("minus two,
  // three"); in Turkish letters as letters and numbers in words ("c
  // altı", which takes its suffixes), in English as written ("c6" is
  // said "c six"); the goal and DAHA's centre in words
  function sayCell(c) {
    if (isGoal(c)) return T("word.goal");
    if (game === "daha" && c === "O") return T("word.centre");
    const hex = /^(-?\d+),(-?\d+)$/.exec(c);
    if (hex) return number(hex[1]) + ", " + number(hex[2]);
    const m = /^([A-Za-z]+)(\d+)$/.exec(c);
    if (m && tr()) return m[1].split("").join(" ") + " " + number(m[2]);
    return c;
  }
  // Turkish spoken cell with a case suffix; English with its preposition
  function sayFrom(c) { return tr() ? suffix(sayCell(c), "from") : sayCell(c); }
  function sayTo(c) { return tr() ? suffix(sayCell(c), "to") : sayCell(c); }

  // --- pieces ------------------------------------------------------------------
  // piece: a piece kind in words ("a red piece", "üçlü piyon", "kırmızı altıgen")
  function piece(kind) {
    if (/^[1-3]$/.test(kind)) return T("piece.height" + kind);
    if (game === "six") return T("piece.hex", { colour: I18N.seat(kind) });
    if (kind === "?" || !kind) return T("piece.any");
    return T("piece.colour", { colour: I18N.seat(kind) });
  }
  // pieceA: a piece in a sentence ("a red piece", "a piece of height 3",
  // "kırmızı taş", "üçlü piyon")
  function pieceA(kind) {
    if (/^[1-3]$/.test(kind)) return T("piece.a.height" + kind);
    if (kind === "?" || !kind) return T(game === "six" ? "piece.a.hex" : game === "gyges" ? "piece.a.gyges" : "piece.a.any");
    return T(game === "six" ? "piece.a.hexcolour" : "piece.a.colour", { colour: I18N.seat(kind) });
  }
  function pieces(kinds, spoken) {
    const n = {};
    for (const k of kinds) n[k] = (n[k] || 0) + 1;
    return Object.keys(n).sort().map(k => T("piece.count", { n: n[k], count: spoken ? number(n[k]) : I18N.number(n[k]), colour: I18N.seat(k) })).join(", ");
  }
  function face(f) { return /^[NSEW]$/.test(f) ? T("face." + f) : f; }
  function sayFace(f) { return /^[NSEW]$/.test(f) ? T("face.say." + f) : number(f); }

  // parse: a move's parts from its notation and cells ({from, to, text})
  function parse(m) {
    const text = m.text || "";
    const out = { text, from: (m.from || [])[0], to: (m.to || [])[0], kind: "", displaced: "", keep: "" };
    if (text === "pass") { out.kind = "pass"; return out; }
    let base = text;
    const slash = text.indexOf("/");
    if (slash >= 0) {
      base = text.slice(0, slash);
      if (game === "gyges") out.displaced = text.slice(slash + 1); else out.keep = text.slice(slash + 1);
    }
    const at = /^([0-9])@(.+)$/.exec(base);
    if (at) { out.kind = "place"; out.height = at[1]; out.to = at[2]; return out; }
    let a = null, b = null;
    if (base.includes(">")) [a, b] = base.split(">");
    else if (!base.includes(",") && /^[A-Za-z]+\d*-[A-Za-z]+\d*$/.test(base)) [a, b] = base.split("-");
    if (a && b) { out.kind = "move"; out.from = a; out.to = b; return out; }
    if (!out.from && (out.to || base)) { out.kind = game === "six" ? "place" : "to"; out.to = out.to || base; return out; }
    out.kind = out.from && out.to ? "move" : "other";
    return out;
  }

  // move: a move as written ("c6 → a6, the displaced piece → e2")
  function move(m) {
    const p = parse(m);
    let s;
    switch (p.kind) {
      case "pass": return T("move.pass");
      case "place": s = T("move.place", { piece: p.height ? piece(p.height) : piece(game === "six" ? "" : "?"), to: cell(p.to) }); break;
      case "to": s = T("move.to", { to: cell(p.to) }); break;
      case "move": s = T("move.fromto", { from: cell(p.from), to: cell(p.to) }); break;
      default: return p.text;
    }
    if (p.displaced) s += T("move.displaced", { to: cell(p.displaced) });
    if (p.keep) s += T("move.keep", { at: cell(p.keep) });
    return s;
  }

  // say: a move as spoken, with who made it, the roll and the pieces it
  // took off ("north, c six to a six, the displaced piece to e two.")
  function say(m, who) {
    const p = parse(m);
    if (p.kind === "pass") return T("say.pass", { who }) ;
    let s;
    switch (p.kind) {
      case "place": s = T("say.place", { piece: pieceA(p.height || "?"), to: sayTo(p.to) }); break;
      case "to": s = T("say.to", { to: sayTo(p.to) }); break;
      case "move": s = T("say.fromto", { from: sayFrom(p.from), to: sayTo(p.to) }); break;
      default: s = p.text;
    }
    if (p.displaced) s += T("say.displaced", { to: sayTo(p.displaced) });
    if (p.keep) s += T("say.keep", { at: sayCell(p.keep) });
    if ((m.captured || []).length) s += T("say.captured", { pieces: pieces(m.captured, true) });
    const roll = !m.roll ? "" : T(/^[NSEW]$/.test(m.roll) ? "say.roll.face" : "say.roll", { roll: sayFace(m.roll) });
    return who ? T("say.move", { who, roll, move: s }) : roll + s;
  }

  // needs: what the board needs to match the game, from the LEDs the
  // referee lit (roles take, fill, pair, illegal, dest; a pair's fast
  // blinking cell is where the piece is, its steady one of the same
  // colour where it goes) and the pieces the game expects. Each a
  // sentence, written (spoken: the same spoken).
  function needs(s, spoken) {
    const leds = s.leds || {}, out = [];
    const by = role => Object.keys(leds).filter(c => leds[c].role === role).sort();
    const illegal = by("illegal");
    if (illegal.length) {
      const back = by("fill")[0];
      out.push(spoken ? T("say.needs.illegal", { at: sayFrom(illegal[0]), back: back ? sayTo(back) : "" }) : T("needs.illegal", { at: cell(illegal[0]), back: back ? cell(back) : "" }));
      return out;
    }
    const pairs = by("pair"), colour = l => l.r + "," + l.g + "," + l.b;
    for (const from of pairs.filter(x => leds[x].blink)) {
      const to = pairs.find(x => !leds[x].blink && colour(leds[x]) === colour(leds[from]));
      if (!to) continue;
      out.push(spoken ? T("say.needs.move", { from: sayFrom(from), to: sayTo(to) }) : T("needs.move", { from: cell(from), to: cell(to) }));
    }
    for (const x of by("take")) out.push(spoken ? T("say.needs.take", { at: sayFrom(x) }) : T("needs.take", { at: cell(x) }));
    for (const x of by("fill")) {
      const kind = (s.expected || {})[x];
      out.push(spoken ? T("say.needs.fill", { piece: pieceA(kind), to: sayTo(x) }) : T("needs.fill", { piece: pieceA(kind), to: cell(x) }));
    }
    return out;
  }

  // diff: what makes the sensed pieces the game's (a piece to move from
  // a cell the game has empty to one it has filled, or to take off or to
  // put down), in words — for a board in confirm mode, whose lights show
  // the readings, not these steps.
  function diff(s) {
    const have = s.pieces || {}, want = s.expected || {};
    const extra = Object.keys(have).filter(c => have[c] && !want[c]).sort(), lack = Object.keys(want).filter(c => want[c] && !have[c]).sort();
    const out = [];
    const n = Math.min(extra.length, lack.length);
    for (let i = 0; i < n; i++) out.push(T("needs.move.plain", { from: cell(extra[i]), to: cell(lack[i]) }));
    for (const c of extra.slice(n)) out.push(T("needs.take", { at: cell(c) }).replace(/\.$/, ""));
    for (const c of lack.slice(n)) out.push(T("needs.fill", { piece: pieceA(want[c]), to: cell(c) }).replace(/\.$/, ""));
    return out.join("; ");
  }

  return { init, number, suffix, diff, cell, sayCell, piece, pieceA, pieces, face, sayFace, parse, move, say, needs };
})();
