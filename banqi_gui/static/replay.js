// The replay page: a record from a run folder or a file, stepped ply by ply.

import { call, say, upload } from "./api.js";
import { drawBoard, drawStrip, moveSquares, plyWords } from "./board.js";
import { setIconButton } from "./glyphs.js";
import { fillRuns, formatMs } from "./watch.js";

const $ = (id) => document.getElementById(id);
let replay = null;
let ply = 0;
let autoplay = null;

export function setupReplay(options) {
  for (const name of Object.keys(options.rules)) $("replay-rules").add(new Option(name, name));
  $("replay-run").addEventListener("change", () => fillGames());
  $("replay-game").addEventListener("change", () => {
    if ($("replay-game").value) openGame($("replay-run").value, $("replay-game").value);
  });
  $("replay-file").addEventListener("change", openFile);
  $("replay-first").addEventListener("click", () => go(0));
  $("replay-back").addEventListener("click", () => go(ply - 1));
  $("replay-forward").addEventListener("click", () => go(ply + 1));
  $("replay-last").addEventListener("click", () => go(Infinity));
  $("replay-play").addEventListener("click", toggleAutoplay);
  $("replay-slider").addEventListener("input", (event) => go(Number(event.target.value)));
  $("replay-ply").addEventListener("change", (event) => go(Number(event.target.value)));
  $("replay-moves").addEventListener("click", (event) => {
    const item = event.target.closest("[data-ply]");
    if (item) go(Number(item.dataset.ply));
  });
  document.addEventListener("keydown", (event) => {
    if ($("replay").hidden || event.target.closest("input, select")) return;
    if (event.key === "ArrowLeft") go(ply - 1);
    if (event.key === "ArrowRight") go(ply + 1);
  });
  document.body.addEventListener("look-changed", () => replay && draw());
}

export async function startReplay(run, game) {
  try {
    await fillRuns($("replay-run"), run);
    await fillGames(game);
    if (run && game) await openGame(run, game);
  } catch (error) {
    say(error.message);
  }
}

async function fillGames(wanted) {
  const run = $("replay-run").value;
  const select = $("replay-game");
  if (!run) return;
  const view = await call("GET", `/api/runs/${encodeURIComponent(run)}/watch`);
  select.replaceChildren(
    new Option("choose a game", ""),
    ...view.finished.map((game) => new Option(`${game.game_id}: ${game.result}`, game.game_id)),
  );
  if (wanted) select.value = wanted;
}

async function openGame(run, game) {
  try {
    const path = `/api/runs/${encodeURIComponent(run)}/games/${encodeURIComponent(game)}`;
    load(await call("GET", path));
  } catch (error) {
    say(error.message);
  }
}

async function openFile() {
  const file = $("replay-file").files[0];
  if (!file) return;
  try {
    const query = `rules=${encodeURIComponent($("replay-rules").value)}&name=${encodeURIComponent(file.name)}`;
    load(await upload(`/api/replay?${query}`, await file.text()));
  } catch (error) {
    say(error.message);
  }
}

function load(view) {
  say(view.problem ? `This record stops early: ${view.problem}` : "");
  replay = view;
  stopAutoplay();
  const last = view.frames.length - 1;
  $("replay-slider").max = last;
  $("replay-ply").max = last;
  $("replay-title").textContent = `${view.title} · ${view.rules}`;
  $("replay-moves").replaceChildren(
    ...view.frames.slice(1).map((frame, index) => {
      const item = document.createElement("li");
      item.dataset.ply = index + 1;
      item.textContent = `${view.players[frame.player] ?? ""}: ${frame.move}`;
      return item;
    }),
  );
  go(0);
}

function go(target) {
  if (!replay) return;
  const last = replay.frames.length - 1;
  ply = Math.max(0, Math.min(last, Number.isFinite(target) ? Math.trunc(target) : last));
  if (ply === last) stopAutoplay();
  draw();
}

function draw() {
  const frame = replay.frames[ply];
  const last = replay.frames.length - 1;
  drawBoard($("replay-board"), frame.board, { last: moveSquares(frame.move) });
  const taken = (seat) => {
    const colour = replay.colours[seat];
    if (!colour) return "";
    return colour === "red" ? frame.captured.black : frame.captured.red;
  };
  const bar = (seat) => {
    const colour = replay.colours[seat];
    const clock = frame.clocks_ms ? ` ${formatMs(frame.clocks_ms[seat])}` : "";
    return `${replay.players[seat]}${colour ? ` (${colour})` : ""}${clock}`;
  };
  $("replay-top").textContent = bar(1);
  $("replay-bottom").textContent = bar(0);
  drawStrip($("replay-strip-top"), taken(1));
  drawStrip($("replay-strip-bottom"), taken(0));
  $("replay-slider").value = ply;
  $("replay-ply").value = ply;
  $("replay-status").textContent =
    ply === 0
      ? `start (${last} plies)`
      : `ply ${ply} of ${last}: ${plyWords(frame.move, frame.board)}`;
  for (const item of $("replay-moves").children) {
    const current = Number(item.dataset.ply) === ply;
    item.classList.toggle("current", current);
    if (current) showInList($("replay-moves"), item);
  }
  const atEnd = ply === last;
  $("replay-end").hidden = !atEnd;
  if (atEnd) {
    $("replay-result").textContent = replay.result || "no result recorded";
    $("replay-reason").textContent = replay.reason
      ? `${replay.reason}: ${replay.reason_words}`
      : "";
    const layout = $("replay-layout");
    layout.hidden = !replay.layout;
    if (replay.layout) drawBoard(layout, replay.layout);
    $("replay-layout-note").textContent = replay.layout
      ? "The layout, revealed:"
      : replay.withheld
        ? "Withheld record: the layout stays hidden until the other game of its deal has ended."
        : "A text record does not hold the layout.";
  }
}

// Scroll the list, never the page, so that ``item`` is in view (the board stays put).
function showInList(list, item) {
  const top = item.offsetTop;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top + item.offsetHeight - list.clientHeight;
  }
}

function toggleAutoplay() {
  if (autoplay) {
    stopAutoplay();
    return;
  }
  if (!replay) return;
  if (ply === replay.frames.length - 1) go(0);
  setIconButton($("replay-play"), "pause", "pause");
  autoplay = setInterval(() => go(ply + 1), 600);
}

function stopAutoplay() {
  if (autoplay) clearInterval(autoplay);
  autoplay = null;
  setIconButton($("replay-play"), "play", "play");
}
