// palace serve's pages: the board (SVG), the game viewer, the charts.
// No framework and no build step: the server embeds this file as is.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const CELL = 44, MARGIN = 34;

function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// Where file f (0-8, a-i) and rank r (0-9 from Red's / Cho's side) are
// drawn; flipped, Black / Han is at the bottom.
function point(f, r, flip) {
  if (flip) { f = 8 - f; r = 9 - r; }
  return [MARGIN + f * CELL, MARGIN + (9 - r) * CELL];
}

const XIANGQI_NAMES = {
  K: "帥", A: "仕", B: "相", N: "傌", R: "俥", C: "炮", P: "兵",
  k: "將", a: "士", b: "象", n: "馬", r: "車", c: "砲", p: "卒",
};
const JANGGI_NAMES = {
  K: "楚", A: "士", B: "象", N: "馬", R: "車", C: "包", P: "卒",
  k: "漢", a: "士", b: "象", n: "馬", r: "車", c: "包", p: "兵",
};
// Janggi's pieces differ in size, as on a real board: the general
// largest, advisors and soldiers smallest.
const JANGGI_SIZE = { K: 1.0, R: 0.86, C: 0.86, N: 0.86, B: 0.86, A: 0.68, P: 0.68 };

// drawBoard draws game ("xiangqi" or "janggi") with board (90 FEN letters
// or '.', rank 10 first) into container. opts: last {from, to} squares as
// [file, rank]; marks, squares to ring; selected; flip; onPoint(f, r).
function drawBoard(container, game, board, opts) {
  opts = opts || {};
  const janggi = game === "janggi";
  const W = 2 * MARGIN + 8 * CELL, H = 2 * MARGIN + 9 * CELL;
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": game + " board", class: "board-svg" });
  el("rect", { x: 0, y: 0, width: W, height: H, fill: "#efd9a7", rx: 6 }, svg);
  const lines = el("g", { stroke: "#5b3a1a", "stroke-width": 1.3, fill: "none" }, svg);
  const line = (f1, r1, f2, r2) => {
    const [x1, y1] = point(f1, r1, false), [x2, y2] = point(f2, r2, false);
    el("line", { x1, y1, x2, y2 }, lines);
  };
  for (let r = 0; r <= 9; r++) line(0, r, 8, r);
  for (let f = 0; f <= 8; f++) {
    if (janggi || f === 0 || f === 8) { line(f, 0, f, 9); continue; }
    line(f, 0, f, 4); line(f, 5, f, 9); // xiangqi's river cuts the inner files
  }
  // The palaces' diagonals: both games move along them (janggi's every
  // piece, xiangqi's advisors and generals).
  line(3, 0, 5, 2); line(5, 0, 3, 2); line(3, 7, 5, 9); line(5, 7, 3, 9);
  if (!janggi) {
    const [, y] = point(0, 4, false);
    for (const [f, words] of [[2, "楚 河"], [6, "漢 界"]]) {
      const t = el("text", { x: MARGIN + f * CELL, y: y + CELL / 2 + 7, "text-anchor": "middle", "font-size": 21, fill: "#5b3a1a" }, svg);
      t.textContent = words;
    }
  } else {
    for (const [f, r] of [[1, 2], [7, 2], [1, 7], [7, 7], [0, 3], [2, 3], [4, 3], [6, 3], [8, 3], [0, 6], [2, 6], [4, 6], [6, 6], [8, 6]]) {
      const [x, y] = point(f, r, false);
      el("circle", { cx: x, cy: y, r: 2.5, fill: "#5b3a1a" }, svg);
    }
  }
  const marks = el("g", {}, svg);
  if (opts.last) {
    for (const sq of [opts.last.from, opts.last.to]) {
      if (!sq) continue;
      const [x, y] = point(sq[0], sq[1], opts.flip);
      el("rect", { x: x - CELL / 2 + 2, y: y - CELL / 2 + 2, width: CELL - 4, height: CELL - 4, fill: "#3b82f6", opacity: 0.28, rx: 4 }, marks);
    }
  }
  for (let i = 0; i < 90; i++) {
    const ch = board[i];
    if (ch === ".") continue;
    const f = i % 9, r = 9 - Math.floor(i / 9);
    const [x, y] = point(f, r, opts.flip);
    const red = ch === ch.toUpperCase();
    const g = el("g", { class: "piece", "data-square": "abcdefghi"[f] + (r + 1), "data-piece": ch }, svg);
    if (janggi) {
      const s = JANGGI_SIZE[ch.toUpperCase()] * CELL * 0.5;
      const pts = [];
      for (let k = 0; k < 8; k++) {
        const a = Math.PI / 8 + k * Math.PI / 4;
        pts.push((x + s * Math.cos(a)).toFixed(1) + "," + (y + s * Math.sin(a)).toFixed(1));
      }
      el("polygon", { points: pts.join(" "), fill: "#fbf6ea", stroke: "#5b3a1a", "stroke-width": 1.2 }, g);
      const t = el("text", { x, y: y + s * 0.38, "text-anchor": "middle", "font-size": s * 1.05, fill: red ? "#0b6b3a" : "#b3131b", "font-weight": 700 }, g);
      t.textContent = JANGGI_NAMES[ch];
    } else {
      el("circle", { cx: x, cy: y, r: CELL * 0.44, fill: "#fbf1d6", stroke: red ? "#b3131b" : "#222", "stroke-width": 2 }, g);
      el("circle", { cx: x, cy: y, r: CELL * 0.36, fill: "none", stroke: red ? "#b3131b" : "#222", "stroke-width": 0.8 }, g);
      const t = el("text", { x, y: y + 8, "text-anchor": "middle", "font-size": 23, fill: red ? "#b3131b" : "#222", "font-weight": 700 }, g);
      t.textContent = XIANGQI_NAMES[ch];
    }
  }
  for (const sq of opts.marks || []) {
    const [x, y] = point(sq[0], sq[1], opts.flip);
    el("circle", { cx: x, cy: y, r: 7, fill: "#1c7a32", opacity: 0.7, class: "target", "data-square": "abcdefghi"[sq[0]] + (sq[1] + 1) }, svg);
  }
  if (opts.selected) {
    const [x, y] = point(opts.selected[0], opts.selected[1], opts.flip);
    el("circle", { cx: x, cy: y, r: CELL * 0.47, fill: "none", stroke: "#1c7a32", "stroke-width": 3 }, svg);
  }
  if (opts.onPoint) {
    svg.addEventListener("click", (ev) => {
      const pt = svg.createSVGPoint();
      pt.x = ev.clientX; pt.y = ev.clientY;
      const p = pt.matrixTransform(svg.getScreenCTM().inverse());
      let f = Math.round((p.x - MARGIN) / CELL), r = 9 - Math.round((p.y - MARGIN) / CELL);
      if (opts.flip) { f = 8 - f; r = 9 - r; }
      if (f >= 0 && f <= 8 && r >= 0 && r <= 9) opts.onPoint(f, r);
    });
  }
  container.replaceChildren(svg);
}

// The game viewer: the moves in the chosen notation, stepping by buttons,
// clicks and the arrow keys.
function gameViewer() {
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const board = document.getElementById("board"), list = document.getElementById("moves");
  const plyLabel = document.getElementById("ply"), search = document.getElementById("search");
  const select = document.getElementById("notation");
  const names = { iccs: "ICCS", wxf: "WXF", chinese: "Chinese", janggi: "janggi (numeric)" };
  const saved = localStorage.getItem("palace-notation-" + data.game);
  for (const n of data.notations) {
    const o = document.createElement("option");
    o.value = n; o.textContent = names[n] || n;
    select.appendChild(o);
  }
  select.value = data.notations.includes(saved) ? saved : data.notations[0];
  let ply = 0;
  const spans = [];
  // The moves in rows of two, numbered as records number them; a game
  // whose first move is Black's starts with an empty cell.
  function fillMoves() {
    list.replaceChildren();
    spans.length = 0;
    let number = 0;
    data.moves.forEach((m, k) => {
      if (!m.black || k === 0) {
        number++;
        const n = document.createElement("span");
        n.className = "num";
        n.textContent = number + ".";
        list.appendChild(n);
        if (m.black) list.appendChild(document.createElement("span"));
      }
      const s = document.createElement("span");
      s.className = "ply";
      s.textContent = m.text[select.value] + (m.check ? "+" : "");
      s.addEventListener("click", () => show(k + 1));
      list.appendChild(s);
      spans.push(s);
    });
  }
  function show(k) {
    ply = Math.max(0, Math.min(data.moves.length, k));
    const last = ply > 0 && !data.moves[ply - 1].pass ? { from: data.moves[ply - 1].from, to: data.moves[ply - 1].to } : null;
    drawBoard(board, data.game, data.boards[ply], { last });
    plyLabel.textContent = ply + " / " + data.moves.length;
    spans.forEach((s, i) => s.classList.toggle("current", i === ply - 1));
    if (ply > 0) spans[ply - 1].scrollIntoView({ block: "nearest" });
    search.textContent = "";
    const next = data.moves[ply];
    if (ply === data.moves.length) {
      search.textContent = "End: " + data.result + " (" + data.reason + ")";
    } else if (next && next.value !== undefined) {
      const visits = (next.visits || []).map((v) => v.move + " " + Math.round(v.share * 100) + "%").join(", ");
      search.textContent = "Search before move " + (ply + 1) + (next.full ? " (full)" : " (cheap)") + ": value " +
        (next.value >= 0 ? "+" : "") + next.value.toFixed(2) + " to the mover; visits " + visits;
    } else if (next && next.score) {
      search.textContent = "Mover's score before move " + (ply + 1) + ": " + next.score;
    }
  }
  select.addEventListener("change", () => {
    localStorage.setItem("palace-notation-" + data.game, select.value);
    fillMoves(); show(ply);
  });
  document.getElementById("first").onclick = () => show(0);
  document.getElementById("prev").onclick = () => show(ply - 1);
  document.getElementById("next").onclick = () => show(ply + 1);
  document.getElementById("last").onclick = () => show(data.moves.length);
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "SELECT" || ev.target.tagName === "INPUT") return;
    const to = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: data.moves.length }[ev.key];
    if (to !== undefined) { ev.preventDefault(); show(to); }
  });
  fillMoves();
  show(0);
}

document.addEventListener("DOMContentLoaded", () => {
  if (document.getElementById("game-data")) gameViewer();
  if (document.getElementById("run-data")) runDashboard();
});

// lineChart draws series ({name, color, points: [{x, y, lo, hi, filled}]})
// as an SVG line chart with interval whiskers into container.
function lineChart(container, series, opts) {
  opts = opts || {};
  const W = 460, H = 240, L = 52, R = 12, T = 12, B = 34;
  const pts = series.flatMap((s) => s.points);
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, role: "img" });
  if (pts.length === 0) {
    const t = el("text", { x: W / 2, y: H / 2, "text-anchor": "middle", fill: "#6b6b70", "font-size": 13 }, svg);
    t.textContent = opts.empty || "nothing recorded yet";
    container.replaceChildren(svg);
    return;
  }
  const num = (v) => typeof v === "number" && isFinite(v);
  const xs = pts.map((p) => p.x), ys = pts.flatMap((p) => [p.y, p.lo, p.hi]).filter(num);
  let x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
  if (opts.zero) { y0 = Math.min(y0, 0); y1 = Math.max(y1, 0); }
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  if (y0 === y1) { y0 -= 1; y1 += 1; }
  const pad = (y1 - y0) * 0.06; y0 -= pad; y1 += pad;
  const sx = (x) => L + (x - x0) / (x1 - x0) * (W - L - R);
  const sy = (y) => T + (y1 - y) / (y1 - y0) * (H - T - B);
  const axes = el("g", { stroke: "#bbb", "stroke-width": 1 }, svg);
  el("line", { x1: L, y1: H - B, x2: W - R, y2: H - B }, axes);
  el("line", { x1: L, y1: T, x2: L, y2: H - B }, axes);
  const labels = el("g", { "font-size": 11, fill: "#555" }, svg);
  for (let k = 0; k <= 4; k++) {
    const y = y0 + (y1 - y0) * k / 4, x = x0 + (x1 - x0) * k / 4;
    const ty = el("text", { x: L - 6, y: sy(y) + 4, "text-anchor": "end" }, labels);
    ty.textContent = opts.yfmt ? opts.yfmt(y) : Math.round(y);
    el("line", { x1: L, y1: sy(y), x2: W - R, y2: sy(y), stroke: "#eee" }, axes);
    const tx = el("text", { x: sx(x), y: H - B + 15, "text-anchor": "middle" }, labels);
    tx.textContent = opts.xfmt ? opts.xfmt(x) : (Math.abs(x1 - x0) < 5 ? x.toFixed(2) : Math.round(x));
  }
  if (opts.xlabel) {
    const t = el("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" }, labels);
    t.textContent = opts.xlabel;
  }
  if (opts.zero && y0 < 0 && y1 > 0) el("line", { x1: L, y1: sy(0), x2: W - R, y2: sy(0), stroke: "#999", "stroke-dasharray": "4 3" }, svg);
  series.forEach((s, i) => {
    const color = s.color || ["#b3131b", "#1a4f8b", "#1c7a32", "#8a5a00", "#6b2a8a"][i % 5];
    const g = el("g", { class: "series", "data-name": s.name }, svg);
    const d = s.points.map((p, k) => (k ? "L" : "M") + sx(p.x).toFixed(1) + " " + sy(p.y).toFixed(1)).join(" ");
    if (s.points.length > 1 && !s.noLine) el("path", { d, fill: "none", stroke: color, "stroke-width": 1.8 }, g);
    for (const p of s.points) {
      if (num(p.lo) && num(p.hi)) el("line", { x1: sx(p.x), x2: sx(p.x), y1: sy(p.lo), y2: sy(p.hi), stroke: color, opacity: 0.5 }, g);
      el("circle", { cx: sx(p.x), cy: sy(p.y), r: 3.2, fill: p.filled === false ? "#fff" : color, stroke: color }, g);
    }
    if (series.length > 1) {
      const t = el("text", { x: W - R - 4, y: T + 12 + i * 14, "text-anchor": "end", fill: color, "font-size": 12 }, svg);
      t.textContent = s.name;
    }
  });
  container.replaceChildren(svg);
}

function fmtElo(e) { return (e > 0 ? "+" : e < 0 ? "−" : "") + Math.abs(Math.round(e)); }

function runDashboard() {
  const node = document.getElementById("run-data");
  const api = node.dataset.api;
  function render(v) {
    const cards = document.getElementById("cards");
    cards.replaceChildren();
    const rating = v.ratings && v.ratings.length ? v.ratings[v.ratings.length - 1] : null;
    const card = (label, value) => {
      const c = document.createElement("div");
      c.className = "card";
      const b = document.createElement("b");
      b.textContent = value;
      c.append(b, label);
      cards.appendChild(c);
    };
    card("next stage", v.state || "—");
    card("best network", v.best ? "generation " + v.best.generation : "—");
    card("self-play games", v.games.toLocaleString("en"));
    card("hours (ladders aside)", (v.seconds / 3600).toFixed(2));
    card("latest rating", rating ? fmtElo(rating.elo) + " [" + fmtElo(rating.lo) + ", " + fmtElo(rating.hi) + "]" : "—");
    document.getElementById("live").textContent = v.live ? "live: updated " + new Date(v.updated).toLocaleTimeString() : "last updated " + new Date(v.updated).toLocaleString();
    // The time split, as one stacked bar.
    const split = document.getElementById("split");
    const order = ["selfplay", "train", "gate", "arena", "ladder"];
    const colors = { selfplay: "#1c7a32", train: "#1a4f8b", gate: "#b3131b", arena: "#d9822b", ladder: "#6b2a8a" };
    const total = order.reduce((a, k) => a + (v.split[k] || 0), 0);
    const svg = el("svg", { viewBox: "0 0 600 44", width: 600, role: "img", id: "split-bar" });
    let x = 0;
    for (const k of order) {
      const s = v.split[k] || 0;
      if (!total || !s) continue;
      const w = s / total * 600;
      el("rect", { x, y: 0, width: w, height: 18, fill: colors[k] }, svg);
      const t = el("text", { x: x + 2, y: 34, "font-size": 11, fill: "#333" }, svg);
      t.textContent = k + " " + Math.round(s / total * 100) + "%";
      x += w;
    }
    split.replaceChildren(svg);
    const rs = v.ratings || [];
    lineChart(document.getElementById("chart-rating"), [{ name: "rating", points: rs.map((r) => ({ x: r.hours, y: r.elo, lo: r.lo, hi: r.hi })) }],
      { xlabel: "hours", empty: "no ladder ratings (ladder.every in the run's config)" });
    lineChart(document.getElementById("chart-rating-games"), [{ name: "rating", points: rs.map((r) => ({ x: r.games, y: r.elo, lo: r.lo, hi: r.hi })) }],
      { xlabel: "self-play games", empty: "no ladder ratings" });
    const gens = v.generations || [];
    lineChart(document.getElementById("chart-gate"), [{ name: "gate", noLine: true, points: gens.filter((g) => g.gate).map((g) => ({ x: g.gen + 1, y: g.gate.elo, lo: g.gate.lo, hi: g.gate.hi, filled: g.gate.promoted })) }],
      { xlabel: "candidate generation", zero: true, empty: "no gate played yet" });
    lineChart(document.getElementById("chart-loss"), [
      { name: "policy", points: gens.filter((g) => g.policy_loss !== undefined).map((g) => ({ x: g.gen, y: g.policy_loss })) },
      { name: "value", points: gens.filter((g) => g.value_loss !== undefined).map((g) => ({ x: g.gen, y: g.value_loss })) },
    ], { xlabel: "generation", yfmt: (y) => y.toFixed(2), empty: "no training yet" });
    lineChart(document.getElementById("chart-speed"), [{ name: "games/h", points: gens.filter((g) => g.games_per_hour).map((g) => ({ x: g.gen, y: g.games_per_hour })) }],
      { xlabel: "generation", empty: "no self-play yet" });
    const ws = v.workers || [];
    document.getElementById("workers-box").hidden = ws.length === 0;
    const wbody = document.querySelector("#workers tbody");
    wbody.replaceChildren();
    for (const w of ws) {
      const tr = document.createElement("tr");
      for (const [text, cls] of [[w.name, ""], [w.jobs.selfplay || 0, "n"], [w.jobs.arena || 0, "n"], [w.jobs.ladder || 0, "n"],
        [w.games.toLocaleString("en"), "n"], [w.positions.toLocaleString("en"), "n"], [new Date(w.last).toLocaleString(), ""]]) {
        const td = document.createElement("td");
        td.textContent = text;
        td.className = cls;
        tr.appendChild(td);
      }
      wbody.appendChild(tr);
    }
    const body = document.querySelector("#generations tbody");
    body.replaceChildren();
    for (const g of gens) {
      const tr = document.createElement("tr");
      const cell = (text, cls) => { const td = document.createElement("td"); td.textContent = text; if (cls) td.className = cls; tr.appendChild(td); };
      cell(g.gen);
      cell(g.games || "", "n");
      cell(g.mean_plies ? g.mean_plies.toFixed(1) : "", "n");
      cell(g.games_per_hour ? Math.round(g.games_per_hour) : "", "n");
      cell(g.evals_per_second ? Math.round(g.evals_per_second) : "", "n");
      cell(g.steps || "", "n");
      cell(g.policy_loss !== undefined ? g.policy_loss.toFixed(3) : "", "n");
      cell(g.value_loss !== undefined ? g.value_loss.toFixed(3) : "", "n");
      if (g.gate) {
        cell(g.gate.wins + "-" + g.gate.draws + "-" + g.gate.losses, "n");
        cell(fmtElo(g.gate.elo) + " [" + fmtElo(g.gate.lo) + ", " + fmtElo(g.gate.hi) + "]", "n");
        cell(g.gate.promoted ? "promoted" : (g.gate.reason || "kept the best"), g.gate.promoted ? "promoted" : "");
      } else { cell(""); cell(""); cell(""); }
      body.appendChild(tr);
    }
  }
  render(JSON.parse(node.textContent));
  // Poll while the run is live; a failed poll (a file mid-write) just
  // waits for the next.
  setInterval(async () => {
    try {
      const resp = await fetch(api, { cache: "no-store" });
      if (resp.ok) render(await resp.json());
    } catch (e) { /* next poll */ }
  }, 10000);
}

// The explorer's board: click a piece, then where it goes, to go down
// the tree by that move (any legal move: one no game played shows an
// empty position). The notation select reloads the page in it.
function explorerBoard() {
  const data = JSON.parse(document.getElementById("explorer-data").textContent);
  const board = document.getElementById("board");
  let selected = null;
  function draw() {
    const marks = selected ? data.legal.filter((m) => !m.pass && m.from[0] === selected[0] && m.from[1] === selected[1]).map((m) => m.to) : [];
    drawBoard(board, data.game, data.board, {
      selected, marks,
      onPoint: (f, r) => {
        if (selected) {
          const m = data.legal.find((m) => !m.pass && m.from[0] === selected[0] && m.from[1] === selected[1] && m.to[0] === f && m.to[1] === r);
          if (m) { window.location.href = m.url; return; }
        }
        selected = data.legal.some((m) => !m.pass && m.from[0] === f && m.from[1] === r) ? [f, r] : null;
        draw();
      },
    });
  }
  draw();
  const sel = document.getElementById("notation-select");
  if (sel) sel.addEventListener("change", () => {
    const u = new URL(window.location.href);
    u.searchParams.set("n", sel.value);
    window.location.href = u.toString();
  });
}

document.addEventListener("DOMContentLoaded", () => {
  if (document.getElementById("explorer-data")) explorerBoard();
  // The source file: its own explorer, with the same filters, from the start.
  const src = document.getElementById("source-select");
  if (src) src.addEventListener("change", () => {
    if (!src.value) return;
    const q = new URLSearchParams(window.location.search);
    for (const k of ["fen", "rs", "moves"]) q.delete(k);
    window.location.href = src.value + "?" + q.toString();
  });
});

// Play: the person's moves go to the server, which checks them against
// palace's rules and answers with the engine's move.
function playPage() {
  const form = document.getElementById("play-form");
  const errorLine = document.getElementById("play-error");
  const area = document.getElementById("play-area");
  const board = document.getElementById("board");
  let state = null, selected = null, busy = false, shownAt = 0;
  const fmtClock = (ms) => { ms = Math.max(0, ms); const s = Math.floor(ms / 1000); return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0"); };
  // The clocks tick here between the server's answers, which set them.
  function tick() {
    const box = document.getElementById("clocks");
    if (!state || !state.clock_ms) { box.hidden = true; return; }
    box.hidden = false;
    const you = state.human === "white" ? 0 : 1;
    const moving = state.to_move === "white" ? 0 : 1;
    const left = state.clock_ms.slice();
    if (!state.over) left[moving] -= Date.now() - shownAt;
    const youEl = document.getElementById("clock-you"), engEl = document.getElementById("clock-engine");
    youEl.textContent = fmtClock(left[you]);
    engEl.textContent = fmtClock(left[1 - you]);
    youEl.classList.toggle("running", !state.over && moving === you);
    engEl.classList.toggle("running", !state.over && moving !== you);
  }
  setInterval(tick, 200);
  async function post(url, body) {
    const resp = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const data = await resp.json();
    if (!resp.ok) throw new Error(data.error || resp.statusText);
    return data;
  }
  function render() {
    shownAt = Date.now();
    tick();
    state.legal = state.legal || [];
    state.moves = state.moves || [];
    area.hidden = false;
    area.dataset.session = state.id;
    if (window.location.hash !== "#" + state.id) history.replaceState(null, "", "#" + state.id);
    const flip = state.human === "black";
    const lastPly = state.moves.length ? state.moves[state.moves.length - 1] : null;
    const last = lastPly && !lastPly.pass ? { from: lastPly.from, to: lastPly.to } : null;
    const marks = selected ? state.legal.filter((m) => !m.pass && m.from[0] === selected[0] && m.from[1] === selected[1]).map((m) => m.to) : [];
    drawBoard(board, state.game, state.board, { flip, last, selected, marks, onPoint: click });
    const list = document.getElementById("moves");
    list.replaceChildren();
    let number = 0;
    const nt = state.notations[0];
    state.moves.forEach((m, k) => {
      if (!m.black || k === 0) {
        number++;
        const n = document.createElement("span");
        n.className = "num"; n.textContent = number + ".";
        list.appendChild(n);
        if (m.black) list.appendChild(document.createElement("span"));
      }
      const s = document.createElement("span");
      s.className = "ply"; s.textContent = m.text[nt] + (m.check ? "+" : "");
      list.appendChild(s);
    });
    const status = document.getElementById("play-status");
    if (state.over) {
      status.textContent = "Game over: " + state.result + " (" + state.reason + ")" + (state.count ? " — count " + state.count[0] + " : " + state.count[1] : "");
    } else {
      status.textContent = (state.to_move === state.human ? "Your move" : "palace is thinking") + (state.in_check ? " — check!" : "") + " · " + state.budget + " · " + state.network;
    }
    const e = state.engine;
    document.getElementById("play-engine").textContent = e ? "palace played " + e.move + " (ICCS) after " + e.visits + " visits, value " + (e.value >= 0 ? "+" : "") + e.value.toFixed(2) + " to itself; expects " + e.pv : "";
    document.getElementById("play-pass").hidden = !state.legal || !state.legal.some((m) => m.pass);
    document.getElementById("save-pgn").href = "/api/play/" + state.id + "/save/pgn";
    const gibLink = document.getElementById("save-gib");
    gibLink.hidden = state.game !== "janggi";
    gibLink.href = "/api/play/" + state.id + "/save/gib";
  }
  async function send(move) {
    if (busy) return;
    busy = true; selected = null; errorLine.textContent = "";
    document.getElementById("play-status").textContent = "palace is thinking…";
    try { state = await post("/api/play/" + state.id + "/move", { move }); } catch (e) { errorLine.textContent = e.message; }
    busy = false;
    render();
  }
  function click(f, r) {
    if (!state || state.over || busy || state.to_move !== state.human) return;
    if (selected) {
      const m = state.legal.find((m) => !m.pass && m.from[0] === selected[0] && m.from[1] === selected[1] && m.to[0] === f && m.to[1] === r);
      if (m) { send(m.url); return; }
    }
    selected = state.legal.some((m) => !m.pass && m.from[0] === f && m.from[1] === r) ? [f, r] : null;
    render();
  }
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    errorLine.textContent = "";
    const seconds = parseFloat(document.getElementById("play-seconds").value) || 0;
    const req = {
      rules: document.getElementById("play-rules").value, net: document.getElementById("play-net").value,
      side: document.getElementById("play-side").value, visits: parseInt(document.getElementById("play-visits").value, 10) || 0,
      move_time_ms: Math.round(seconds * 1000),
      clock_seconds: (parseFloat(document.getElementById("play-clock").value) || 0) * 60,
      increment_seconds: parseFloat(document.getElementById("play-increment").value) || 0,
    };
    if (req.clock_seconds > 0 && !(parseInt(document.getElementById("play-visits").value, 10) > 0 && seconds === 0)) req.visits = 0;
    if (seconds > 0 && !document.getElementById("play-visits").value) req.visits = 0;
    busy = true;
    try { state = await post("/api/play", req); selected = null; render(); } catch (e) { errorLine.textContent = e.message; }
    busy = false;
  });
  // A reload takes the game up again: its id is the address's fragment.
  if (window.location.hash.length > 1) {
    fetch("/api/play/" + window.location.hash.slice(1), { cache: "no-store" }).then(async (resp) => {
      if (resp.ok) { state = await resp.json(); render(); }
    });
  }
  document.getElementById("play-pass").onclick = () => send("pass");
  document.getElementById("play-resign").onclick = () => { if (state && !state.over) send("resign"); };
}

document.addEventListener("DOMContentLoaded", () => {
  if (document.getElementById("play-form")) playPage();
});

// Compare: the chosen runs' ratings and gates on shared charts, a series
// a run.
async function comparePage() {
  const picks = [...document.querySelectorAll("#compare-form input[name=run]:checked")];
  const runs = [];
  for (const p of picks) {
    try {
      const resp = await fetch(p.dataset.api, { cache: "no-store" });
      if (resp.ok) runs.push({ name: p.dataset.name, v: await resp.json() });
    } catch (e) { /* a run mid-write: left out */ }
  }
  const series = (f) => runs.map((r) => ({ name: r.name, points: f(r.v) }));
  lineChart(document.getElementById("cmp-rating"), series((v) => (v.ratings || []).map((x) => ({ x: x.hours, y: x.elo, lo: x.lo, hi: x.hi }))), { xlabel: "hours", empty: "no ladder ratings" });
  lineChart(document.getElementById("cmp-rating-games"), series((v) => (v.ratings || []).map((x) => ({ x: x.games, y: x.elo, lo: x.lo, hi: x.hi }))), { xlabel: "self-play games", empty: "no ladder ratings" });
  lineChart(document.getElementById("cmp-gate"), series((v) => (v.generations || []).filter((g) => g.gate).map((g) => ({ x: g.gen + 1, y: g.gate.elo, lo: g.gate.lo, hi: g.gate.hi, filled: g.gate.promoted }))), { xlabel: "candidate generation", zero: true, empty: "no gates" });
  lineChart(document.getElementById("cmp-loss"), series((v) => (v.generations || []).filter((g) => g.policy_loss !== undefined).map((g) => ({ x: g.gen, y: g.policy_loss }))), { xlabel: "generation", yfmt: (y) => y.toFixed(2), empty: "no training" });
  const scales = new Set(runs.flatMap((r) => (r.v.ratings || []).map((x) => x.scale)));
  document.getElementById("cmp-note").textContent = scales.size > 1 ? "The runs were rated on " + scales.size + " different scales: their ratings do not compare." : "";
}

document.addEventListener("DOMContentLoaded", () => {
  if (document.getElementById("compare-form")) comparePage();
});
