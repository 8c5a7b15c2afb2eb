// The Watch tab: the games of a run being played now, ply by ply (one large, every one
// small to pick from), the standings and the finished games.

import { call, say } from "./api.js";
import { fitLayout } from "./layout.js";
import { LiveGames } from "./live_games.js";
import { drawStandings, ELO_NOTE } from "./standings.js";

const $ = (id) => document.getElementById(id);
const REFRESH_MS = 700;
const RUNS_MS = 5000;
let timer = null;
let busy = false;
let wanted = null; // the run asked for, listed as soon as it exists
let picked = null; // the game asked for, drawn large while it is played
let listed = 0; // when the run list was last read
let games = null;
let large = null; // the game drawn large

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
  const href = (game) =>
    `#watch/${encodeURIComponent($("watch-run").value)}/${encodeURIComponent(game)}`;
  games = new LiveGames($("watch-game"), $("watch-games"), href, "watch");
  $("watch-run").addEventListener("change", () => {
    wanted = null;
    picked = null;
    refresh();
  });
  $("watch-finished").addEventListener("click", (event) => {
    const button = event.target.closest("[data-game]");
    if (button) openReplay($("watch-run").value, button.dataset.game);
  });
}

export function startWatch(run, game) {
  wanted = run || null;
  picked = game || null;
  listed = 0;
  stopWatch();
  timer = setInterval(refresh, REFRESH_MS);
  refresh();
}

export function stopWatch() {
  if (timer) clearInterval(timer);
  timer = null;
  if (games) games.stopClock();
}

async function refresh() {
  if (busy) return;
  busy = true;
  try {
    const select = $("watch-run");
    const missing = wanted && select.value !== wanted;
    if (missing || !select.value || performance.now() - listed > RUNS_MS) {
      const runs = await fillRuns(select, missing ? wanted : select.value);
      listed = performance.now();
      if (select.value === wanted) wanted = null;
      if (!runs.length) $("watch-status").textContent = "No run folders here yet.";
    }
    const run = select.value;
    if (!run) return;
    const view = await call("GET", `/api/runs/${encodeURIComponent(run)}/watch`);
    if (timer === null) return; // the tab was left meanwhile
    draw(view);
  } catch (error) {
    say(error.message);
  } finally {
    busy = false;
  }
}

function draw(view) {
  const drawn = games.update(view.live, picked);
  $("watch-live").hidden = drawn === null;
  if (drawn !== large) fitLayout(); // another game's bars, or none
  large = drawn;
  drawStandings($("watch-standings"), view.standings);
  $("watch-elo-note").textContent = view.standings.length ? ELO_NOTE : "";
  $("watch-head-to-head").textContent = view.head_to_head || "";
  $("watch-head-to-head").hidden = !view.head_to_head;
  drawFinished(view.finished);
  const said = `${view.live.length} game(s) being played, ${view.finished.length} finished`;
  if ($("watch-status").textContent !== said) $("watch-status").textContent = said; // live region
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
