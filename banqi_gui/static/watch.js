// The watch page: the games of a run being played now, ply by ply, with the standings.

import { call, say } from "./api.js";
import { drawBoard, drawStrip } from "./board.js";

const $ = (id) => document.getElementById(id);
let timer = null;
let busy = false;
let wanted = null; // the run asked for, listed as soon as it exists
let listed = 0; // when the run list was last read

export async function fillRuns(select, wanted) {
  const { runs } = await call("GET", "/api/runs");
  const keep = wanted || select.value;
  select.replaceChildren(
    ...runs.map((run) => new Option(`${run.id} (${run.live} live, ${run.finished} finished)`, run.id)),
  );
  if (runs.some((run) => run.id === keep)) select.value = keep;
  return runs;
}

export function setupWatch(openReplay) {
  $("watch-run").addEventListener("change", () => {
    wanted = null;
    refresh();
  });
  $("watch-finished").addEventListener("click", (event) => {
    const button = event.target.closest("[data-game]");
    if (button) openReplay($("watch-run").value, button.dataset.game);
  });
}

export function startWatch(run) {
  wanted = run || null;
  listed = 0;
  stopWatch();
  timer = setInterval(refresh, 700);
  refresh();
}

export function stopWatch() {
  if (timer) clearInterval(timer);
  timer = null;
}

async function refresh() {
  if (busy) return;
  busy = true;
  try {
    const select = $("watch-run");
    const missing = wanted && select.value !== wanted;
    if (missing || !select.value || performance.now() - listed > 5000) {
      const runs = await fillRuns(select, missing ? wanted : select.value);
      listed = performance.now();
      if (select.value === wanted) wanted = null;
      if (!runs.length) $("watch-status").textContent = "No run folders here yet.";
    }
    const run = select.value;
    if (!run) return;
    const view = await call("GET", `/api/runs/${encodeURIComponent(run)}/watch`);
    drawGames(view.live);
    drawStandings(view.standings);
    drawFinished(view.finished);
    $("watch-status").textContent =
      `${view.live.length} game(s) being played, ${view.finished.length} finished`;
  } catch (error) {
    say(error.message);
  } finally {
    busy = false;
  }
}

function drawGames(games) {
  const area = $("watch-games");
  const cards = new Map([...area.children].map((card) => [card.dataset.game, card]));
  for (const game of games) {
    let card = cards.get(game.game_id);
    if (!card) {
      card = document.createElement("article");
      card.className = "live-game";
      card.dataset.game = game.game_id;
      card.innerHTML =
        '<h3></h3><div class="player-bar top"></div><div class="strip top"></div>' +
        '<div class="board small"></div><div class="strip bottom"></div>' +
        '<div class="player-bar bottom"></div><p class="small plies"></p>';
      area.append(card);
    }
    cards.delete(game.game_id);
    card.querySelector("h3").textContent = `${game.game_id} · ${game.rules}`;
    card.dataset.plies = game.plies.length;
    const names = game.players.map((name, seat) => {
      const colour = game.colours[seat];
      const turn = game.to_move === seat ? " · to move" : "";
      const clock = formatMs(game.clocks_ms[seat]);
      return `${name}${colour ? ` (${colour})` : ""} ${clock}${turn}`;
    });
    card.querySelector(".player-bar.top").textContent = names[1];
    card.querySelector(".player-bar.bottom").textContent = names[0];
    const taken = (seat) => {
      const colour = game.colours[seat];
      if (!colour) return "";
      return colour === "red" ? game.captured.black : game.captured.red;
    };
    drawStrip(card.querySelector(".strip.top"), taken(1));
    drawStrip(card.querySelector(".strip.bottom"), taken(0));
    drawBoard(card.querySelector(".board"), game.board, { last: game.last });
    const last = game.plies.length ? game.plies[game.plies.length - 1] : "none yet";
    card.querySelector(".plies").textContent =
      `${game.plies.length} plies, last ${last}` + (game.problem ? ` (${game.problem})` : "");
  }
  for (const card of cards.values()) card.remove();
}

function drawStandings(rows) {
  const table = $("watch-standings");
  const fields = ["rank", "name", "games", "wins", "draws", "losses", "points", "elo"];
  const head = document.createElement("tr");
  for (const field of fields) {
    const cell = document.createElement("th");
    cell.textContent = field;
    head.append(cell);
  }
  const lines = rows.map((row) => {
    const line = document.createElement("tr");
    for (const field of fields) {
      const cell = document.createElement("td");
      const value = row[field];
      const number = typeof value === "number" && !Number.isInteger(value);
      cell.textContent = value === null || value === undefined ? "-" : number ? value.toFixed(1) : value;
      line.append(cell);
    }
    return line;
  });
  table.replaceChildren(head, ...lines);
}

function drawFinished(finished) {
  const list = $("watch-finished");
  const key = finished.map((game) => `${game.game_id}:${game.withheld}`).join(",");
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(
    ...finished.map((game) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "link";
      button.dataset.game = game.game_id;
      button.textContent = game.game_id;
      const words = document.createElement("span");
      words.textContent = ` ${game.players[0]} ${game.score} ${game.players[1]}: ${game.result}` +
        (game.withheld ? " (withheld)" : "");
      item.append(button, words);
      return item;
    }),
  );
}

export function formatMs(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}
