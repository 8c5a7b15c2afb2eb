// The play page: a person against an engine, or two people. The server judges everything:
// the page shows the legal actions it was sent and asks for a flip by its square alone, a
// move (also onto a face-down piece, kind "reveal", where the rules allow it) by its squares.

import { call, say } from "./api.js";
import {
  animatePly, drawBoard, drawStrip, isReveal, moveSquares, pieceTitle, SQUARES,
} from "./board.js";
import { fitLayout } from "./layout.js";
import { countGame, drawTally } from "./tally.js";

const $ = (id) => document.getElementById(id);
let state = null;
let selected = null;
let polling = false;
let clockBase = null; // {ms: [a, b], running, at}
let turnBase = null; // {ms: how long the side to move has been on move, at}
let resignArmed = null;
let endClosed = null; // the id of the game whose end screen the person closed
const KEPT = "banqi-game"; // the id of this page's game, so that a reload finds it again
// The server keeps a game while a page asks about it: the page long-polls a game being
// played, and looks at a finished one every HEARTBEAT ms (its record stays downloadable).
const HEARTBEAT = 20000;

export function setupPlay(options) {
  const engine = $("engine");
  for (const choice of options.engines) {
    engine.add(new Option(choice.label, choice.id, false, choice.id === "level-2"));
  }
  const rules = $("rules");
  for (const name of Object.keys(options.rules)) rules.add(new Option(name, name));
  rules.add(new Option("a rule-set file…", "file"));
  $("untimed-note").textContent =
    `Untimed with no limit a move, the engine has ${options.untimed_engine_move_time} s a move.`;
  rules.addEventListener("change", () => {
    $("rules-file-label").hidden = rules.value !== "file";
  });
  for (const radio of document.querySelectorAll("input[name=mode]")) {
    radio.addEventListener("change", modeChanged);
  }
  $("play-board").addEventListener("board-cancel", () => {
    if (selected) {
      selected = null;
      render();
    }
  });
  document.addEventListener("click", (event) => {
    const square = event.target.closest("#play-board [data-square]");
    if (square) clickSquare(square.dataset.square);
    else if (selected && !event.target.closest("button, select, input, label")) {
      selected = null; // a click anywhere else cancels the selection
      render();
    }
  });
  $("new-game").addEventListener("click", newGame);
  $("end-new-game").addEventListener("click", newGame);
  $("end-close").addEventListener("click", () => {
    endClosed = state && state.id;
    render();
  });
  $("hint").addEventListener("click", hint);
  $("undo").addEventListener("click", () => request("POST", "undo"));
  $("resign").addEventListener("click", resign);
  $("show-layout").addEventListener("click", () => {
    $("play-layout").hidden = !$("play-layout").hidden;
  });
  document.body.addEventListener("look-changed", () => state && render());
  setInterval(tickClocks, 200);
  drawTally($("tally"));
  // Leaving the page (closing its tab, going elsewhere) ends its game in a few seconds; a
  // reload asks about the game again first, and keeps it.
  window.addEventListener("pagehide", () => {
    if (state) navigator.sendBeacon(`/api/games/${encodeURIComponent(state.id)}/leave`);
  });
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) resumeOrStart(); // back from the browser's page cache
  });
  resumeOrStart();
}

async function resumeOrStart() {
  const kept = localStorage.getItem(KEPT);
  if (kept) {
    try {
      const found = await call("GET", `/api/games/${encodeURIComponent(kept)}`);
      if (!found.over) {
        show(found);
        return;
      }
    } catch (error) {
      localStorage.removeItem(KEPT); // gone with a server restart: a new game
    }
  }
  await newGame(null, { asked: true });
}

function modeChanged() {
  const people = document.querySelector("input[name=mode]:checked").value === "people";
  $("engine").disabled = people;
  $("first").options[1].textContent = people ? "player 2" : "the engine (player 2)";
}

async function settings() {
  const form = $("settings-form");
  const body = {
    mode: form.elements.mode.value,
    engine: $("engine").value,
    first: $("first").value,
  };
  if ($("rules").value === "file") {
    const file = $("rules-file").files[0];
    if (!file) throw new Error("choose a rule-set file, or a preset");
    body.rules_file = await file.text();
  } else {
    body.rules = $("rules").value;
  }
  if ($("time").value) body.time = Number($("time").value);
  if ($("move-time").value) body.move_time = Number($("move-time").value);
  return body;
}

async function newGame(event, { asked = false } = {}) {
  const going = state && !state.over && state.plies.length > 0;
  if (going && !asked && !window.confirm("End the game in progress and start a new one?")) return;
  try {
    const body = await settings();
    if (state) await call("DELETE", `/api/games/${state.id}`).catch(() => null);
    state = null;
    selected = null;
    $("play-layout").hidden = true;
    show(await call("POST", "/api/games", body));
    say("");
  } catch (error) {
    say(error.message);
  }
}

async function request(method, action, body) {
  if (!state) return;
  try {
    show(await call(method, `/api/games/${state.id}/${action}`, body));
    say("");
  } catch (error) {
    say(error.message);
  }
}

async function hint() {
  if (!state) return;
  $("play-status").textContent = "asking the engine for a hint…";
  try {
    const answer = await call("POST", `/api/games/${state.id}/hint`);
    show(answer.state);
    say("");
  } catch (error) {
    say(error.message);
    render();
  }
}

function resign() {
  if (!state || state.over) return;
  if (resignArmed) {
    clearTimeout(resignArmed);
    resignArmed = null;
    $("resign").textContent = "Resign";
    request("POST", "resign");
    return;
  }
  $("resign").textContent = "Sure? Resign";
  resignArmed = setTimeout(() => {
    resignArmed = null;
    $("resign").textContent = "Resign";
  }, 4000);
}

function personOnMove() {
  return state && !state.over && state.to_move !== null && state.players[state.to_move].person;
}

function clickSquare(square) {
  // As in the popular banqi games: with nothing selected, one tap flips a face-down piece
  // and a tap on a piece of yours selects it; then a tap on a target plays it, and any
  // other tap (a face-down piece or another piece of yours included) only cancels.
  if (!personOnMove()) return;
  if (selected) {
    const from = selected;
    const target = (state.legal[from] || []).find((action) => action.to === square);
    selected = null;
    if (target) request("POST", "action", { move: `${from}-${square}` });
    else render();
    return;
  }
  const actions = state.legal[square] || [];
  if (actions.length === 1 && actions[0].kind === "flip") {
    request("POST", "action", { move: square });
  } else if (actions.length) {
    selected = square;
    render();
  }
}

function show(view) {
  const previous = state;
  state = view;
  localStorage.setItem(KEPT, view.id);
  if (!previous || previous.id !== view.id || previous.version !== view.version) selected = null;
  if (view.clocks) clockBase = { ...view.clocks, at: performance.now() };
  else clockBase = null;
  turnBase = view.turn_ms === null ? null : { ms: view.turn_ms, at: performance.now() };
  render();
  if (previous && previous.id === view.id) {
    if (view.version > previous.version && view.plies.length > previous.plies.length) {
      animatePly($("play-board"), view.last);
    }
    announce(previous, view);
  } else {
    fitLayout(); // a game's first view fills the rows the fit measures around the board
  }
  if (view.over && (!previous || !previous.over || previous.id !== view.id)) finished(view);
  poll();
}

// Ask about the page's game as long as it shows it: each change as it comes, and the
// server knows the page is still there.
async function poll() {
  if (polling) return;
  polling = true;
  try {
    while (state) {
      const { id, over } = state;
      if (over) await new Promise((done) => setTimeout(done, HEARTBEAT));
      if (!state || state.id !== id) continue; // a new game meanwhile: poll that one
      const view = await call("GET", `/api/games/${id}?since=${state.version}`);
      if (!state || state.id !== id) continue;
      if (view.version > state.version || (view.over && !state.over)) show(view); // never older
    }
  } catch (error) {
    if (!state || !state.over) say(error.message); // a finished game may make room for another
  } finally {
    polling = false;
  }
}

function finished(view) {
  if (view.mode === "engine" && view.engine) {
    const you = view.over.winner === null ? "draw" : view.over.winner === 0 ? "win" : "loss";
    countGame(view.game_id, view.engine.label, you);
    drawTally($("tally"));
  }
}

function seatLine(seat) {
  const player = state.players[seat];
  const bar = document.createElement("span");
  const swatch = document.createElement("span");
  swatch.className = `swatch ${player.colour || "undecided"}`;
  const name = document.createElement("span");
  name.className = "name";
  name.textContent = player.name + (player.colour ? ` (${player.colour})` : "");
  bar.append(swatch, name);
  const turn = document.createElement("span");
  turn.className = "turn";
  if (state.to_move === seat) {
    turn.textContent = player.person ? "to move" : "thinking…";
    if (!player.person) turn.dataset.thinking = ""; // with its seconds so far (tickClocks)
  }
  const clock = document.createElement("span");
  clock.className = "clock";
  clock.dataset.seat = seat;
  return [bar, turn, clock];
}

function takenBy(seat) {
  const colour = state.players[seat].colour;
  if (!colour) return "";
  return colour === "red" ? state.captured.black : state.captured.red;
}

function render() {
  const legal = personOnMove() ? state.legal : {};
  const targets = {};
  if (selected && legal[selected]) {
    for (const action of legal[selected]) targets[action.to] = action.kind;
  }
  const movable = new Set();
  if (document.body.classList.contains("helper-on")) {
    for (const [from, actions] of Object.entries(legal)) {
      if (actions.some((action) => action.kind !== "flip")) movable.add(from);
    }
  }
  $("play-board").dataset.game = state.id;
  drawBoard($("play-board"), state.board, {
    selected,
    targets,
    last: state.last,
    movable,
    hint: moveSquares(state.hint),
    actions: legal,
  });
  $("play-top").replaceChildren(...seatLine(1));
  $("play-bottom").replaceChildren(...seatLine(0));
  drawStrip($("play-strip-top"), takenBy(1));
  drawStrip($("play-strip-bottom"), takenBy(0));
  tickClocks();
  $("play-status").textContent = statusWords();
  $("hint").disabled = !personOnMove();
  $("undo").disabled = !state.can_undo;
  $("resign").disabled = !!state.over;
  const moves = $("play-moves");
  moves.replaceChildren(
    ...state.plies.map((ply) => {
      const item = document.createElement("li");
      item.textContent = `${state.players[ply.player].name}: ${ply.move}`;
      item.title = plySpeech(ply);
      return item;
    }),
  );
  moves.scrollTop = moves.scrollHeight;
  $("play-end").hidden = !state.over || endClosed === state.id;
  if (state.over) {
    $("play-result").textContent = `${state.over.headline} — ${state.over.why}`;
    $("play-reason").textContent = `${state.over.reason}: ${state.over.reason_words}`;
    $("record-json").href = `/api/games/${state.id}/record.json`;
    $("record-txt").href = `/api/games/${state.id}/record.txt`;
    drawBoard($("play-layout"), state.layout);
  }
}

// Say in the live region what changed: each new ply, a take-back, the end.
function announce(previous, view) {
  const words = [];
  if (view.plies.length < previous.plies.length) {
    const back = previous.plies.length - view.plies.length;
    words.push(`took back ${back} ${back === 1 ? "ply" : "plies"}`);
  }
  // Every new ply, however many arrive at once (a fast engine's reply comes with the
  // person's own), each as what it was: the server says which piece moved and what it took.
  for (const ply of view.plies.slice(previous.plies.length)) {
    words.push(`${view.players[ply.player].name}: ${plySpeech(ply)}`);
  }
  if (view.over && !previous.over) words.push(`${view.over.headline} — ${view.over.why}`);
  if (words.length) $("play-announce").textContent = `${words.join(". ")}.`;
}

// A ply in words: "flipped c4, black Cannon", "red Horse b2 takes black Pawn on b3",
// "red Chariot a2 onto the face-down piece on a3: black Pawn, took it".
function plySpeech(ply) {
  const { from, to } = moveSquares(ply.move);
  const shown = (ply.move.match(/\((.)\)$/) || [])[1];
  if (from === to) return `flipped ${to}, ${ply.piece ? pieceTitle(ply.piece) : "face up"}`;
  const mover = ply.piece ? `${pieceTitle(ply.piece)} ` : "";
  if (isReveal(ply.move)) {
    const found = shown && shown !== "?" ? pieceTitle(shown) : "not told";
    return `${mover}${from} onto the face-down piece on ${to}: ${found}, ${
      ply.took ? "took it" : "stayed"}`;
  }
  if (ply.took) return `${mover}${from} takes ${pieceTitle(ply.took)} on ${to}`;
  return `${mover}${from} to ${to}`;
}

function statusWords() {
  if (state.over) return `${state.over.headline} — ${state.over.why}`;
  const mover = state.players[state.to_move];
  if (state.hint) return `Hint: ${hintWords(state.hint)}`;
  if (!mover.person) return `${mover.name} is thinking…`;
  if (selected) {
    const reveals = (state.legal[selected] || []).some((action) => action.kind === "reveal");
    return reveals
      ? `Choose where ${selected} goes (onto a ringed face-down piece: it is turned up, ` +
          "and taken if it may), or click elsewhere to cancel"
      : `Choose where ${selected} goes, or click elsewhere to cancel`;
  }
  const who = state.mode === "people" ? mover.name : "You";
  if (!state.side) return `${who} to move: flip a piece to start`;
  const onto = state.rules.move_onto_face_down ? " (a piece may step onto a face-down one)" : "";
  return `${who} to move (${state.side})${onto}`;
}

function hintWords(hint) {
  if (hint.length === 2) return `flip ${hint}`;
  const { to } = moveSquares(hint);
  return state.board[SQUARES.indexOf(to)] === "X" ? `${hint} (onto a face-down piece)` : hint;
}

function tickClocks() {
  const thinking = document.querySelector("#play .turn[data-thinking]");
  if (thinking && turnBase) {
    const ms = turnBase.ms + performance.now() - turnBase.at;
    thinking.textContent = `thinking… ${Math.floor(ms / 1000)} s`;
  }
  for (const clock of document.querySelectorAll("#play .clock")) {
    if (!clockBase) {
      const limit = state && state.players[clock.dataset.seat].move_time;
      clock.textContent = limit ? `${limit} s a move` : "";
      continue;
    }
    const seat = Number(clock.dataset.seat);
    let ms = clockBase.ms[seat];
    if (clockBase.running === seat) ms -= performance.now() - clockBase.at;
    ms = Math.max(0, ms);
    const seconds = Math.ceil(ms / 1000);
    clock.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    clock.classList.toggle("low", ms < 10000);
  }
}
