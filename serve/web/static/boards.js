// Boards: draws the position text of each bundled game as SVG.
//
// Each game's text form is its Format in games/GAME (the server answers
// with it); the parsers here read exactly that and throw an Error with a
// sentence for anything else, so that a bad answer shows as words, not as
// a broken picture.
"use strict";

const Boards = (() => {
  const NS = "http://www.w3.org/2000/svg";

  // el makes an SVG element with attributes, appended to parent if given.
  function el(tag, attrs, parent) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (parent) parent.appendChild(e);
    return e;
  }

  function text(parent, x, y, s, attrs) {
    const t = el("text", Object.assign({ x, y, "text-anchor": "middle", "dominant-baseline": "central",
      "font-family": "DejaVu Sans, sans-serif" }, attrs || {}), parent);
    t.textContent = s;
    return t;
  }

  function svg(w, h) {
    return el("svg", { viewBox: `0 0 ${w} ${h}`, width: w, height: h, "aria-hidden": "true", focusable: "false" });
  }

  // Chinese and Japanese characters are drawn only when the browser has a
  // font for them (a headless browser without CJK fonts draws boxes): two
  // different characters that draw the same are both the missing glyph.
  let cjk = null;
  function hasCJK() {
    if (cjk !== null) return cjk;
    try {
      const c = document.createElement("canvas");
      c.width = 40; c.height = 40;
      const g = c.getContext("2d");
      const draw = (ch) => {
        g.clearRect(0, 0, 40, 40);
        g.font = "32px serif";
        g.fillText(ch, 2, 32);
        return g.getImageData(0, 0, 40, 40).data.join(",");
      };
      const a = draw("\u5E25"), b = draw("\u5C07"), blank = draw(" ");
      cjk = a !== b && a !== blank;
    } catch (e) {
      cjk = false;
    }
    return cjk;
  }

  // Markers: a placing move (tic-tac-toe, Connect Four, a Teeko drop) is
  // drawn on the board as a dot in its value's colour, a button to play it.
  function marker(parent, cx, cy, r, move, onMove) {
    const g = el("g", { class: "cell-hit", "data-move": move.move }, parent);
    el("circle", { cx, cy, r, class: "marker " + move.value }, g);
    const title = el("title", {}, g);
    title.textContent = move.move;
    g.addEventListener("click", () => onMove(move));
    return g;
  }

  // square adds the highlight area of the square (or point) named name:
  // hovering a move lights up the squares its name mentions.
  function square(parent, name, attrs) {
    return el(attrs.r ? "circle" : "rect", Object.assign({ class: "sq", "data-square": name }, attrs), parent);
  }
  const colName = (k) => String.fromCharCode(97 + k);

  // grid reads rows separated by '/' of cells from the alphabet cells,
  // all of width w and h of them.
  function grid(s, w, h, cells, what) {
    const rows = s.split("/");
    if (rows.length !== h) throw new Error(`${what}: ${rows.length} rows, want ${h}`);
    for (const r of rows) {
      if (r.length !== w) throw new Error(`${what}: row "${r}" has ${r.length} cells, want ${w}`);
      for (const c of r) if (!cells.includes(c)) throw new Error(`${what}: bad cell "${c}"`);
    }
    return rows;
  }

  // sideAndRows splits "x:ROWS" (Quixo, Teeko).
  function sideAndRows(s, what) {
    const m = /^([xo]):(.*)$/.exec(s);
    if (!m) throw new Error(`${what}: want "x:" or "o:" before the rows`);
    return [m[1], m[2]];
  }

  const X_COLOUR = "#1f5fbf", O_COLOUR = "#d0312d";

  function drawX(p, cx, cy, r, colour) {
    el("path", { d: `M${cx - r},${cy - r}L${cx + r},${cy + r}M${cx + r},${cy - r}L${cx - r},${cy + r}`,
      stroke: colour || X_COLOUR, "stroke-width": r / 3, "stroke-linecap": "round", fill: "none" }, p);
  }
  function drawO(p, cx, cy, r, colour) {
    el("circle", { cx, cy, r, stroke: colour || O_COLOUR, "stroke-width": r / 3, fill: "none" }, p);
  }

  // Tic-tac-toe: "x-o/-x-/--o", rows from the top; moves "a1".."c3"
  // (column letter, row number from the top).
  function tictactoe(pos, moves, onMove) {
    const rows = grid(pos, 3, 3, "xo-", "tic-tac-toe");
    const S = 100, s = svg(3 * S + 20, 3 * S + 20);
    const g = el("g", { transform: "translate(10,10)" }, s);
    el("rect", { width: 3 * S, height: 3 * S, fill: "#fdfaf2" }, g);
    for (let i = 1; i < 3; i++) {
      el("line", { x1: i * S, y1: 4, x2: i * S, y2: 3 * S - 4, stroke: "#222", "stroke-width": 5, "stroke-linecap": "round" }, g);
      el("line", { x1: 4, y1: i * S, x2: 3 * S - 4, y2: i * S, stroke: "#222", "stroke-width": 5, "stroke-linecap": "round" }, g);
    }
    rows.forEach((row, r) => [...row].forEach((c, k) => {
      const cx = k * S + S / 2, cy = r * S + S / 2;
      square(g, colName(k) + (r + 1), { x: k * S + 6, y: r * S + 6, width: S - 12, height: S - 12 });
      if (c === "x") drawX(g, cx, cy, 30);
      if (c === "o") drawO(g, cx, cy, 32);
    }));
    for (const m of moves) {
      const mm = /^([a-c])([1-3])$/.exec(m.move);
      if (mm) marker(g, (mm[1].charCodeAt(0) - 97) * S + S / 2, (+mm[2] - 1) * S + S / 2, 18, m, onMove);
    }
    return s;
  }

  // Connect Four: rows from the top, '.', 'x' (first player), 'o'; moves
  // are column numbers from 1.
  function connect4(pos, moves, onMove) {
    const rows = pos.split("/");
    const h = rows.length, w = rows[0].length;
    grid(pos, w, h, "xo.", "Connect Four");
    const S = 60, top = 50;
    const s = svg(w * S + 20, h * S + top + 10);
    el("rect", { x: 10, y: top, width: w * S, height: h * S, rx: 10, fill: "#1f4e9c" }, s);
    rows.forEach((row, r) => [...row].forEach((c, k) => {
      const fill = c === "x" ? "#e03c31" : c === "o" ? "#f0b400" : "#ffffff";
      el("circle", { cx: 10 + k * S + S / 2, cy: top + r * S + S / 2, r: S * 0.4, fill, stroke: "#163a75", "stroke-width": 2 }, s);
    }));
    for (const m of moves) {
      const col = parseInt(m.move, 10);
      if (col >= 1 && col <= w) marker(s, 10 + (col - 1) * S + S / 2, top / 2, 16, m, onMove);
    }
    return s;
  }

  // Quixo: "x:" or "o:" (to move), then the rows from the top.
  function quixo(pos) {
    const [, body] = sideAndRows(pos, "Quixo");
    const n = body.split("/").length;
    const rows = grid(body, n, n, "xo.", "Quixo");
    const S = 80, x0 = 40, y0 = 20, s = svg(n * S + x0 + 20, n * S + y0 + 40);
    el("rect", { x: x0 - 10, y: y0 - 10, width: n * S + 20, height: n * S + 20, rx: 8, fill: "#6b4f2a" }, s);
    labels(s, n, n, S, x0, y0 + 10);
    rows.forEach((row, r) => [...row].forEach((c, k) => {
      const x = x0 + k * S, y = y0 + r * S;
      el("rect", { x: x + 4, y: y + 4, width: S - 8, height: S - 8, rx: 8, fill: "#efe4cc", stroke: "#3d2c14", "stroke-width": 2 }, s);
      square(s, colName(k) + (r + 1), { x: x + 4, y: y + 4, width: S - 8, height: S - 8, rx: 8 });
      if (c === "x") drawX(s, x + S / 2, y + S / 2, 20);
      if (c === "o") drawO(s, x + S / 2, y + S / 2, 22);
    }));
    return s;
  }

  // labels writes column letters under and row numbers beside a board of
  // w x h squares of side S whose top left corner is (x0, y0); rows are
  // numbered from the top, as the games name their squares.
  function labels(s, w, h, S, x0, y0) {
    for (let k = 0; k < w; k++) text(s, x0 + k * S + S / 2, y0 + h * S + 12, String.fromCharCode(97 + k), { "font-size": 13, fill: "#555" });
    for (let r = 0; r < h; r++) text(s, x0 - 24, y0 + r * S + S / 2 - 10, String(r + 1), { "font-size": 13, fill: "#555" });
  }

  // Teeko: "x:" or "o:" (to move), then five rows from the top; moves are
  // drops "c3" or steps "c3-d4".
  function teeko(pos, moves, onMove) {
    const [, body] = sideAndRows(pos, "Teeko");
    const rows = grid(body, 5, 5, "xo.", "Teeko");
    const S = 70, o = 45, s = svg(4 * S + 2 * o, 4 * S + 2 * o);
    el("rect", { width: 4 * S + 2 * o, height: 4 * S + 2 * o, rx: 10, fill: "#e9d3a4" }, s);
    const g = el("g", { stroke: "#5a4630", "stroke-width": 2 }, s);
    for (let i = 0; i < 5; i++) {
      el("line", { x1: o, y1: o + i * S, x2: o + 4 * S, y2: o + i * S }, g);
      el("line", { x1: o + i * S, y1: o, x2: o + i * S, y2: o + 4 * S }, g);
    }
    for (let i = 0; i < 4; i++) {
      for (let j = 0; j < 4; j++) {
        el("line", { x1: o + i * S, y1: o + j * S, x2: o + (i + 1) * S, y2: o + (j + 1) * S, "stroke-width": 1 }, g);
        el("line", { x1: o + (i + 1) * S, y1: o + j * S, x2: o + i * S, y2: o + (j + 1) * S, "stroke-width": 1 }, g);
      }
    }
    for (let k = 0; k < 5; k++) {
      text(s, o + k * S, 4 * S + o + 25, String.fromCharCode(97 + k), { "font-size": 14, fill: "#5a4630" });
      text(s, 18, o + k * S, String(k + 1), { "font-size": 14, fill: "#5a4630" });
    }
    rows.forEach((row, r) => [...row].forEach((c, k) => {
      const cx = o + k * S, cy = o + r * S;
      square(s, colName(k) + (r + 1), { cx, cy, r: 30 });
      if (c === ".") el("circle", { cx, cy, r: 5, fill: "#5a4630" }, s);
      else el("circle", { cx, cy, r: 24, fill: c === "x" ? "#202020" : "#c62828", stroke: "#fff", "stroke-width": 2 }, s);
    }));
    for (const m of moves) {
      const mm = /^([a-e])([1-5])$/.exec(m.move);
      if (mm) marker(s, o + (mm[1].charCodeAt(0) - 97) * S, o + (+mm[2] - 1) * S, 14, m, onMove);
    }
    return s;
  }

  // Dobutsu shogi: "F:gle/.c./.C./ELG:-", the side to move (F forest, at
  // the bottom, upper case; S sky, at the top, lower case), four rows of
  // three from the top, and the hands ('-' for none). L lion, G giraffe,
  // E elephant, C chick, H hen.
  // The pieces' kanji: 獅 lion, 麒 giraffe, 象 elephant, ひ chick (hiyoko), 鶏 hen.
  const DSHOGI = { L: ["\u7345", "Lion"], G: ["\u9E92", "Giraffe"], E: ["\u8C61", "Elephant"], C: ["\u3072", "Chick"], H: ["\u9D8F", "Hen"] };
  function dshogi(pos) {
    const parts = pos.split(":");
    if (parts.length !== 3 || !/^[FS]$/.test(parts[0])) throw new Error('D\u014Dbutsu sh\u014Dgi: want SIDE:ROWS:HANDS, e.g. "F:gle/.c./.C./ELG:-"');
    const rows = grid(parts[1], 3, 4, ".LlGgEeCcHh", "D\u014Dbutsu sh\u014Dgi");
    const hands = parts[2] === "-" ? "" : parts[2];
    if (!/^[GECgec]*$/.test(hands)) throw new Error(`D\u014Dbutsu sh\u014Dgi: bad hand "${hands}"`);
    const S = 80, bx = 60, by = 70, W = 3 * S + 2 * bx, H = 4 * S + 2 * by;
    const s = svg(W, H);
    el("rect", { width: W, height: H, fill: "#f4ecd8" }, s);
    el("rect", { x: bx, y: by, width: 3 * S, height: 4 * S, fill: "#e6cf9c", stroke: "#6d5630", "stroke-width": 3 }, s);
    el("rect", { x: bx, y: by, width: 3 * S, height: S, fill: "#cfe3f5", opacity: 0.6 }, s); // sky's home rank
    el("rect", { x: bx, y: by + 3 * S, width: 3 * S, height: S, fill: "#d7efcc", opacity: 0.6 }, s); // forest's
    for (let i = 1; i < 3; i++) el("line", { x1: bx + i * S, y1: by, x2: bx + i * S, y2: by + 4 * S, stroke: "#6d5630", "stroke-width": 2 }, s);
    for (let i = 1; i < 4; i++) el("line", { x1: bx, y1: by + i * S, x2: bx + 3 * S, y2: by + i * S, stroke: "#6d5630", "stroke-width": 2 }, s);
    for (let k = 0; k < 3; k++) text(s, bx + k * S + S / 2, by + 4 * S + 12, String.fromCharCode(97 + k), { "font-size": 12, fill: "#6d5630" });
    for (let r = 0; r < 4; r++) text(s, bx - 12, by + r * S + S / 2, String(r + 1), { "font-size": 12, fill: "#6d5630" });
    rows.forEach((row, r) => [...row].forEach((c, k) => {
      square(s, colName(k) + (r + 1), { x: bx + k * S + 2, y: by + r * S + 2, width: S - 4, height: S - 4 });
      if (c !== ".") dshogiPiece(s, bx + k * S + S / 2, by + r * S + S / 2, c, 34);
    }));
    // Hands: sky's above the board, forest's below.
    const skyHand = [...hands].filter((c) => c >= "a"), forestHand = [...hands].filter((c) => c < "a");
    skyHand.forEach((c, i) => dshogiPiece(s, bx + 22 + i * 48, 30, c, 20));
    forestHand.forEach((c, i) => dshogiPiece(s, bx + 22 + i * 48, H - 30, c, 20));
    text(s, 24, 30, "sky", { "font-size": 11, fill: "#555" });
    text(s, 24, H - 30, "forest", { "font-size": 11, fill: "#555" });
    return s;
  }

  function dshogiPiece(s, cx, cy, c, r) {
    const forest = c < "a", up = c.toUpperCase();
    const g = el("g", { transform: `translate(${cx},${cy})${forest ? "" : " rotate(180)"}` }, s);
    el("path", { d: `M0,${-r}L${r * 0.85},${-r * 0.55}L${r * 0.85},${r}L${-r * 0.85},${r}L${-r * 0.85},${-r * 0.55}Z`,
      fill: forest ? "#e3f4d9" : "#fde3cf", stroke: forest ? "#2f6b2f" : "#9a4a1a", "stroke-width": 2.5 }, g);
    const [kanji] = DSHOGI[up];
    text(g, 0, r * 0.2, hasCJK() ? kanji : up, { "font-size": r * 0.95, "font-weight": "bold", fill: up === "L" ? "#8a1c1c" : "#222" });
  }

  // Xiangqi: FEN (ranks 9 to 0 from black's side, files a to i; upper
  // case red) and the side to move; moves in ICCS ("a0a9").
  // Red 帥仕相傌俥炮兵, black 將士象馬車砲卒; the river is 楚河 漢界.
  const XQ = {
    K: "\u5E25", A: "\u4ED5", B: "\u76F8", E: "\u76F8", N: "\u508C", H: "\u508C", R: "\u4FE5", C: "\u70AE", P: "\u5175",
    k: "\u5C07", a: "\u58EB", b: "\u8C61", e: "\u8C61", n: "\u99AC", h: "\u99AC", r: "\u8ECA", c: "\u7832", p: "\u5352",
  };
  function xiangqiParse(pos) {
    const f = pos.trim().split(/\s+/);
    const ranks = f[0].split("/");
    if (ranks.length !== 10) throw new Error(`xiangqi FEN: ${ranks.length} ranks, want 10`);
    const board = ranks.map((row) => {
      const out = [];
      for (const c of row) {
        if (c >= "1" && c <= "9") for (let i = 0; i < +c; i++) out.push(".");
        else if (XQ[c]) out.push(c);
        else throw new Error(`xiangqi FEN: unknown piece "${c}"`);
      }
      if (out.length !== 9) throw new Error(`xiangqi FEN: rank "${row}" has ${out.length} points, want 9`);
      return out;
    });
    return { board, side: f[1] === "b" ? "black" : "red" };
  }
  function xiangqi(pos) {
    const { board } = xiangqiParse(pos);
    const S = 44, o = 40, W = 8 * S + 2 * o, H = 9 * S + 2 * o;
    const s = svg(W, H);
    el("rect", { width: W, height: H, rx: 8, fill: "#f0d9a8" }, s);
    const g = el("g", { stroke: "#5b3a1a", "stroke-width": 1.5, fill: "none" }, s);
    el("rect", { x: o, y: o, width: 8 * S, height: 9 * S, "stroke-width": 2.5 }, g);
    for (let r = 1; r < 9; r++) el("line", { x1: o, y1: o + r * S, x2: o + 8 * S, y2: o + r * S }, g);
    for (let f = 1; f < 8; f++) {
      el("line", { x1: o + f * S, y1: o, x2: o + f * S, y2: o + 4 * S }, g);
      el("line", { x1: o + f * S, y1: o + 5 * S, x2: o + f * S, y2: o + 9 * S }, g);
    }
    for (const y0 of [0, 7]) { // the palaces: files d to f, three ranks at each end
      el("line", { x1: o + 3 * S, y1: o + y0 * S, x2: o + 5 * S, y2: o + (y0 + 2) * S }, g);
      el("line", { x1: o + 5 * S, y1: o + y0 * S, x2: o + 3 * S, y2: o + (y0 + 2) * S }, g);
    }
    const river = hasCJK() ? ["\u695A \u6CB3", "\u6F22 \u754C"] : ["river", "river"];
    text(s, o + 2 * S, o + 4.5 * S, river[0], { "font-size": 20, fill: "#5b3a1a" });
    text(s, o + 6 * S, o + 4.5 * S, river[1], { "font-size": 20, fill: "#5b3a1a" });
    for (let f = 0; f < 9; f++) {
      text(s, o + f * S, H - 14, String.fromCharCode(97 + f), { "font-size": 12, fill: "#5b3a1a" });
    }
    for (let r = 0; r < 10; r++) text(s, 14, o + r * S, String(9 - r), { "font-size": 12, fill: "#5b3a1a" });
    board.forEach((row, r) => row.forEach((c, f) => {
      if (c === ".") return;
      const red = c < "a", cx = o + f * S, cy = o + r * S, colour = red ? "#b71c1c" : "#1a1a1a";
      el("circle", { cx, cy, r: 19, fill: "#fbefd5", stroke: colour, "stroke-width": 2.5 }, s);
      el("circle", { cx, cy, r: 15.5, fill: "none", stroke: colour, "stroke-width": 1 }, s);
      const up = c.toUpperCase();
      text(s, cx, cy + 1, hasCJK() ? XQ[c] : up === "E" ? "B" : up === "H" ? "N" : up, { "font-size": 20, "font-weight": "bold", fill: colour });
    }));
    // The points' highlights go over the pieces, which would hide them.
    board.forEach((row, r) => row.forEach((c, f) => square(s, colName(f) + (9 - r), { cx: o + f * S, cy: o + r * S, r: 21 })));
    return s;
  }

  // Bearoff: a gnubg Position ID (14 characters of base64, bits from the
  // lowest of each byte): for the opponent, then the player on roll, 25
  // slots each (points 1 to 24, the bar), each a run of 1-bits (its
  // checkers) ended by a 0-bit.
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  function gnubgDecode(id) {
    if (!/^[A-Za-z0-9+/]{14}$/.test(id)) throw new Error(`bearoff: "${id}" is no gnubg Position ID (14 characters of base64)`);
    const bytes = new Uint8Array(11);
    let acc = 0, nbits = 0, j = 0;
    for (const ch of id) {
      acc = ((acc << 6) | B64.indexOf(ch)) & 0xffff;
      nbits += 6;
      if (nbits >= 8) { nbits -= 8; bytes[j++] = (acc >> nbits) & 0xff; }
    }
    const sides = [new Array(25).fill(0), new Array(25).fill(0)];
    let slot = 0;
    for (let bit = 0; bit < 80 && slot < 50; bit++) {
      if ((bytes[bit >> 3] >> (bit & 7)) & 1) sides[slot >= 25 ? 1 : 0][slot % 25]++;
      else slot++;
    }
    return { opponent: sides[0], onRoll: sides[1] };
  }
  function bearoff(pos, moves, onMove, run) {
    const { opponent, onRoll } = gnubgDecode(pos);
    const m = /checkers=(\d+)/.exec(run.option || "");
    const total = m ? +m[1] : 15;
    const P = 46, o = 20, tray = 110, W = 6 * P + 2 * o + tray, H = 420, mid = H / 2;
    const s = svg(W, H);
    el("rect", { width: W, height: H, fill: "#3b2a1a" }, s);
    el("rect", { x: o, y: o, width: 6 * P, height: H - 2 * o, fill: "#2f6b45" }, s);
    const stackMax = 5, R = P / 2 - 2;
    // Point k (1..6) of a side stands at column 6-k, so both 1-points are
    // at the right, next to the trays, as gnubg draws both home boards.
    for (let k = 1; k <= 6; k++) {
      const x = o + (6 - k) * P, fill = k % 2 ? "#d9c9a3" : "#8c3b2a";
      el("path", { d: `M${x},${o}L${x + P},${o}L${x + P / 2},${mid - 25}Z`, fill }, s);
      el("path", { d: `M${x},${H - o}L${x + P},${H - o}L${x + P / 2},${mid + 25}Z`, fill }, s);
      text(s, x + P / 2, o / 2, String(k), { "font-size": 11, fill: "#eee" });
      text(s, x + P / 2, H - o / 2, String(k), { "font-size": 11, fill: "#eee" });
    }
    const side = (counts, top, fill, stroke, ink) => {
      let on = 0;
      for (let k = 1; k <= 6; k++) {
        const n = counts[k - 1];
        on += n;
        const cx = o + (6 - k) * P + P / 2;
        for (let i = 0; i < Math.min(n, stackMax); i++) {
          const cy = top ? o + R + 1 + i * 2 * R : H - o - R - 1 - i * 2 * R;
          el("circle", { cx, cy, r: R, fill, stroke, "stroke-width": 2 }, s);
        }
        if (n > stackMax) {
          const cy = top ? o + R + 1 + (stackMax - 1) * 2 * R : H - o - R - 1 - (stackMax - 1) * 2 * R;
          text(s, cx, cy, String(n), { "font-size": 16, "font-weight": "bold", fill: ink });
        }
      }
      for (let k = 7; k <= 25; k++) on += counts[k - 1];
      const off = Math.max(0, total - on);
      const tx = o + 6 * P + 12, ty = top ? o : mid + 10;
      el("rect", { x: tx, y: ty, width: tray - 24, height: mid - o - 10, fill: "#2a1d12", stroke: "#7a5a3a" }, s);
      for (let i = 0; i < Math.min(off, 15); i++) {
        el("rect", { x: tx + 8, y: top ? ty + 6 + i * 9 : ty + mid - o - 10 - 14 - i * 9, width: tray - 40, height: 7, rx: 2, fill, stroke }, s);
      }
      text(s, tx + (tray - 24) / 2, top ? ty + mid - o - 24 : ty + 14, `${off} off`, { "font-size": 13, fill: "#fff" });
    };
    side(opponent, true, "#222222", "#888888", "#fff");
    side(onRoll, false, "#f3efe4", "#555555", "#000");
    text(s, o + 3 * P, mid - 10, "opponent", { "font-size": 12, fill: "#eee" });
    text(s, o + 3 * P, mid + 10, "on roll", { "font-size": 12, fill: "#eee" });
    return s;
  }

  const renderers = { tictactoe, connect4, quixo, teeko, dshogi, xiangqi, bearoff };

  // toMove says whose turn it is in a position, for the page's heading.
  function toMove(game, pos) {
    try {
      switch (game) {
        case "tictactoe":
        case "connect4": {
          const x = (pos.match(/x/g) || []).length, o = (pos.match(/o/g) || []).length;
          return x > o ? "O to move" : "X to move";
        }
        case "quixo":
        case "teeko":
          return pos.startsWith("o:") ? "O to move" : "X to move";
        case "dshogi":
          return pos.startsWith("S") ? "Sky (top) to move" : "Forest (bottom) to move";
        case "xiangqi":
          return xiangqiParse(pos).side === "black" ? "Black to move" : "Red to move";
        case "bearoff":
          return "The player on roll: bottom, light checkers";
      }
    } catch (e) { /* the board shows the error */ }
    return "";
  }

  // render returns the SVG of position pos of run's game; moves are the
  // answer's moves (each with .move and .value), onMove plays one. A game
  // it cannot draw, or a position it cannot read, throws an Error.
  function render(run, pos, moves, onMove) {
    const r = renderers[run.game];
    if (!r) throw new Error(`no picture for game ${run.game}`);
    return r(pos, moves || [], onMove || (() => {}), run);
  }

  // highlight lights up, in the board drawn in box, the squares that move
  // name mentions ("b4" and "a3" of "Lb4-a3", "a0" and "a7" of "a0a7"),
  // and puts out those lit before; an empty name puts them all out.
  function highlight(box, name) {
    for (const e of box.querySelectorAll(".sq.hl")) e.classList.remove("hl");
    for (const sq of (name || "").match(/[a-i][0-9]/g) || []) {
      for (const e of box.querySelectorAll(`.sq[data-square="${sq}"]`)) e.classList.add("hl");
    }
  }

  return { render, toMove, highlight, gnubgDecode, known: Object.keys(renderers) };
})();
