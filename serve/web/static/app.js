// The page of tierd serve: pick a run, walk through its positions.
//
// Everything comes from the server's own API (/api/v1/): the runs, each
// position's value, remoteness and moves (best first), a bearoff's win
// chance, plays of a roll and cube, and the line of best play. The page's
// place (run and position) is kept in the address's fragment, so that a
// position can be bookmarked or shared.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const state = {
    runs: [],
    run: null,     // the run shown
    pos: "",       // its position shown
    history: [],   // {p, cube} before it, for Back
    roll: "",      // bearoff: the roll whose plays are listed
    cube: "centered",
    seq: 0,        // answers to older requests are dropped
  };

  // api asks the server; an answer that is not 2xx becomes an Error with
  // the server's sentence.
  async function api(path) {
    let res;
    try {
      res = await fetch(path, { headers: { Accept: "application/json" } });
    } catch (e) {
      throw new Error("the server did not answer (" + e.message + ")");
    }
    let body = null;
    try {
      body = await res.json();
    } catch (e) {
      if (res.ok) throw new Error("the server's answer is not JSON");
    }
    if (!res.ok) {
      const what = body && body.error ? body.error : res.statusText;
      throw new Error(`${what} (HTTP ${res.status}${body && body.code ? ", " + body.code : ""})`);
    }
    return body;
  }

  function showError(msg) {
    const e = $("error");
    e.textContent = msg;
    e.hidden = !msg;
  }

  // valueText words a value and remoteness: "win in 7", "draw", ...; with
  // rule (the API's "rule" or "child_rule": a value the rules of play
  // decided, the remoteness its plies), "win by the rules (perpetual
  // check, round 1, 3 plies)".
  function valueText(value, remoteness, rule) {
    if (rule) return `${value} by the rules (${rule.rule}, round ${rule.round}, ${remoteness} plies)`;
    switch (value) {
      case "win": return `win in ${remoteness}`;
      case "lose": return remoteness === 0 ? "lose (game over)" : `lose in ${remoteness}`;
      case "tie": return remoteness === 0 ? "tie (game over)" : `tie in ${remoteness}`;
      case "draw": return "draw";
      default: return String(value);
    }
  }
  // flip is a value seen by the other player.
  const flip = (v) => (v === "win" ? "lose" : v === "lose" ? "win" : v);
  const pct = (x) => (100 * x).toFixed(2) + "%";
  const signed = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);

  function positionURL(p, cube) {
    let u = `/api/v1/runs/${encodeURIComponent(state.run.id)}/position?p=${encodeURIComponent(p)}`;
    if (state.run.chance) {
      if (state.roll) u += "&roll=" + state.roll;
      if (state.run.cube === "money") u += "&cube=" + cube;
    }
    return u;
  }

  // go shows position p (in a cube run, with the cube where cube says,
  // seen from the player on roll); with push the current position goes on
  // the history. On an error the page stays where it was and says why.
  async function go(p, push, cube) {
    if (!state.run) return;
    cube = cube || state.cube;
    const seq = ++state.seq;
    document.body.dataset.busy = "1";
    let ans;
    try {
      ans = await api(positionURL(p, cube));
    } catch (e) {
      if (seq === state.seq) {
        $("cube-state").value = state.cube;
        showError(`Position "${p}": ${e.message}`);
        delete document.body.dataset.busy;
      }
      return;
    }
    if (seq !== state.seq) return;
    if (push && state.pos && state.pos !== ans.position) state.history.push({ p: state.pos, cube: state.cube });
    state.pos = ans.position;
    state.cube = cube;
    showError("");
    hideMainline();
    render(ans);
    saveHash();
    delete document.body.dataset.busy;
  }

  function render(ans) {
    const run = state.run;
    $("position-text").textContent = ans.position;
    // A symmetric run answers through the position's canonical twin.
    $("canonical").textContent = ans.canonical && ans.canonical !== ans.position
      ? ` (answered through its symmetric twin ${ans.canonical})` : "";
    $("position-input").value = ans.position;
    $("back").disabled = state.history.length === 0;
    $("best").hidden = !!run.chance;
    const moves = ans.moves || [];
    const board = $("board");
    board.replaceChildren();
    try {
      board.appendChild(Boards.render(run, ans.position, moves, (m) => go(m.position, true)));
    } catch (e) {
      showError("Cannot draw the position: " + e.message);
    }
    const turn = Boards.toMove(run.game, ans.position);
    $("turn").textContent = turn;
    let summary;
    if (run.chance) {
      summary = `the player on roll wins ${pct(ans.win)}`;
      let eq = `Equity ${signed(ans.equity)}`;
      if (ans.cubeful) eq += `; cubeful equity, cube ${state.cube}: ${signed(ans.cubeful[state.cube])}`;
      $("value").textContent = "Wins " + pct(ans.win);
      $("value").className = "";
      $("equity").textContent = eq;
      $("equity").hidden = false;
      summary += ". " + eq;
      renderChance(ans);
    } else {
      summary = valueText(ans.value, ans.remoteness, ans.rule);
      $("value").textContent = summary.charAt(0).toUpperCase() + summary.slice(1);
      $("value").className = "value-" + ans.value;
      $("chance").hidden = true;
      $("equity").hidden = true;
      renderMoves(moves);
    }
    board.setAttribute("aria-label", `${run.game} position ${ans.position}. ${turn}: ${summary}.`);
    document.body.dataset.position = ans.position;
    document.body.dataset.value = run.chance ? "" : ans.value;
  }

  function renderMoves(moves) {
    $("moves-title").textContent = moves.length ? "Moves, best first" : "No moves: the game is over";
    const list = $("moves");
    list.replaceChildren();
    for (const m of moves) {
      const words = valueText(m.mover_value || m.value, m.mover_remoteness ?? m.remoteness, m.child_rule);
      const b = moveItem(list, m.value, m.move, m.move, words, `${m.move}: ${words}`, () => go(m.position, true));
      b.dataset.value = m.value;
      lightOnHover(b, m.move);
    }
  }

  // moveItem appends to list an item holding a move's button: coloured by
  // cls, the move in data-move, its name and words shown, label read out,
  // and onClick run on a click. It returns the button.
  function moveItem(list, cls, move, name, words, label, onClick) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "move " + cls;
    b.dataset.move = move;
    b.setAttribute("aria-label", label);
    const n = document.createElement("span");
    n.className = "name";
    n.textContent = name;
    const v = document.createElement("span");
    v.className = "val";
    v.textContent = words;
    b.append(n, v);
    b.addEventListener("click", onClick);
    li.appendChild(b);
    list.appendChild(li);
    return b;
  }

  // lightOnHover lights the squares of move on the board while the pointer
  // is on its button or the button has the focus.
  function lightOnHover(b, move) {
    const on = () => Boards.highlight($("board"), move), off = () => Boards.highlight($("board"), "");
    b.addEventListener("mouseenter", on);
    b.addEventListener("focus", on);
    b.addEventListener("mouseleave", off);
    b.addEventListener("blur", off);
  }

  // The bearoff: rolls, the plays of the roll picked, and the cube.
  const ROLLS = [];
  for (let a = 1; a <= 6; a++) for (let b = 1; b <= a; b++) ROLLS.push(`${a}${b}`);

  function renderChance(ans) {
    $("chance").hidden = false;
    const rolls = $("rolls");
    if (!rolls.childElementCount) {
      for (const r of ROLLS) {
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = `${r[0]}-${r[1]}`;
        b.dataset.roll = r;
        b.setAttribute("aria-pressed", "false");
        b.addEventListener("click", () => {
          state.roll = state.roll === r ? "" : r;
          go(state.pos, false);
        });
        rolls.appendChild(b);
      }
    }
    for (const b of rolls.children) b.setAttribute("aria-pressed", String(b.dataset.roll === state.roll));
    const cubeBox = $("cube");
    cubeBox.hidden = state.run.cube !== "money";
    if (!cubeBox.hidden) {
      $("cube-state").value = state.cube;
      $("cube-action").textContent = ans.action
        ? `Right cube action: ${ans.action}`
        : "The player on roll may not double (the opponent owns the cube).";
      const rows = [["no-double", ans.no_double, "no double"], ["double-take", ans.double_take, "double/take"], ["double-pass", ans.double_pass, "double/pass"]];
      for (const [id, v, name] of rows) {
        $(id).textContent = v === undefined || v === null ? "\u2014" : signed(v);
        $(id).parentElement.classList.toggle("chosen", ans.action === name || (ans.action === "too good" && name === "no double"));
      }
    }
    const list = $("moves");
    list.replaceChildren();
    if (!state.roll) {
      $("moves-title").textContent = "Pick a roll to list its plays";
      return;
    }
    const plays = ans.plays || [];
    $("moves-title").textContent = plays.length ? `Plays of ${state.roll[0]}-${state.roll[1]}, best first` : `No play of ${state.roll[0]}-${state.roll[1]}`;
    for (const pl of plays) {
      let words = `wins ${pct(pl.win)}`;
      if (pl.cubeful_equity !== undefined) words += `, cubeful ${signed(pl.cubeful_equity)}`;
      else words += `, equity ${signed(pl.equity)}`;
      moveItem(list, "chanceplay", pl.play, pl.play, words, `${pl.play}: ${words}`, () => {
        // The opponent is on roll next: the cube's owner is seen from them.
        const next = { owned: "opponent", opponent: "owned" }[state.cube] || state.cube;
        state.roll = "";
        go(pl.position, true, next);
      });
    }
  }

  function hideMainline() {
    $("mainline-box").hidden = true;
    $("mainline").replaceChildren();
  }

  async function bestLine() {
    if (!state.run || state.run.chance) return;
    let ans;
    try {
      ans = await api(`/api/v1/runs/${encodeURIComponent(state.run.id)}/mainline?p=${encodeURIComponent(state.pos)}`);
    } catch (e) {
      showError("Best line: " + e.message);
      return;
    }
    if (ans.position !== state.pos) return; // the page moved on meanwhile
    const list = $("mainline");
    list.replaceChildren();
    (ans.mainline || []).forEach((step, i) => {
      // Coloured as the move is for the player who made it.
      const mover = flip(step.value);
      const words = step.value === "draw" ? "draw" : `then ${valueText(step.value, step.remoteness, step.rule)}`;
      moveItem(list, mover, step.move, `${i + 1}. ${step.move}`, words,
        `ply ${i + 1}, ${step.move}, ${words}; show this position`, () => go(step.position, true));
    });
    const ends = { "game over": "The game is over.", "draw (loop)": "A draw: the line repeats.", max: "The line goes on (cut here).",
      "lost by the rules": "The side to move broke a rule of play and is declared lost." };
    const steps = ans.mainline && ans.mainline.length;
    $("mainline-end").textContent = steps || ans.end === "lost by the rules" ? ends[ans.end] || ans.end : "No moves: the game is over.";
    $("mainline-box").hidden = false;
  }

  function saveHash() {
    const h = `#run=${encodeURIComponent(state.run.id)}&p=${encodeURIComponent(state.pos)}`;
    if (location.hash !== h) history.replaceState(null, "", h);
  }

  function readHash() {
    const q = new URLSearchParams(location.hash.slice(1));
    return { run: q.get("run"), p: q.get("p") };
  }

  function pickRun(id, p) {
    const run = state.runs.find((r) => r.id === id) || state.runs[0];
    state.run = run;
    state.history = [];
    state.roll = "";
    state.cube = "centered";
    state.pos = "";
    $("run").value = run.id;
    const option = run.option && run.option !== "default" ? " " + run.option : "";
    $("run-info").textContent = `${run.game}${option}` +
      (run.positions ? `, ${run.positions.toLocaleString("en")} positions` : "") + (run.symmetry ? ", symmetric" : "");
    $("rolls").replaceChildren();
    hideMainline();
    go(p || run.start, false);
  }

  async function init() {
    $("back").addEventListener("click", () => {
      const h = state.history.pop();
      if (h !== undefined) {
        state.roll = "";
        go(h.p, false, h.cube).then(() => { $("back").disabled = state.history.length === 0; });
      }
    });
    $("start").addEventListener("click", () => { if (state.run) { state.roll = ""; go(state.run.start, true); } });
    $("best").addEventListener("click", bestLine);
    $("goto").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const p = $("position-input").value.trim();
      if (p) { state.roll = ""; go(p, true); }
    });
    $("run").addEventListener("change", () => pickRun($("run").value));
    // An address typed or pasted with another place goes there.
    window.addEventListener("hashchange", () => {
      const h = readHash();
      if (!h.run || !state.runs.length) return;
      if (!state.run || h.run !== state.run.id) pickRun(h.run, h.p);
      else if (h.p && h.p !== state.pos) { state.roll = ""; go(h.p, true); }
    });
    $("cube-state").addEventListener("change", () => go(state.pos, false, $("cube-state").value));
    let ans;
    try {
      ans = await api("/api/v1/runs");
    } catch (e) {
      showError("Cannot list the runs: " + e.message);
      return;
    }
    state.runs = ans.runs || [];
    const sel = $("run");
    sel.replaceChildren();
    for (const r of state.runs) {
      const o = document.createElement("option");
      o.value = r.id;
      o.textContent = r.id;
      sel.appendChild(o);
    }
    if (!state.runs.length) {
      showError("The server offers no runs.");
      return;
    }
    sel.disabled = false;
    const h = readHash();
    pickRun(h.run, h.run ? h.p : null);
  }

  init();
})();
