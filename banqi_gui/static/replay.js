// The Replay tab: a record from a run folder or a file, stepped ply by ply (replay_view.js).

import { call, say, upload } from "./api.js";
import { ReplayView } from "./replay_view.js";
import { fillRuns } from "./watch.js";

const $ = (id) => document.getElementById(id);
let view = null;

export function setupReplay(options) {
  view = new ReplayView($("replay-view"));
  for (const name of Object.keys(options.rules)) $("replay-rules").add(new Option(name, name));
  $("replay-run").addEventListener("change", () => fillGames());
  $("replay-game").addEventListener("change", () => {
    if ($("replay-game").value) openGame($("replay-run").value, $("replay-game").value);
  });
  $("replay-file").addEventListener("change", openFile);
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
  const watched = await call("GET", `/api/runs/${encodeURIComponent(run)}/watch`);
  select.replaceChildren(
    new Option("choose a game", ""),
    ...watched.finished.map((game) => new Option(`${game.game_id}: ${game.result}`, game.game_id)),
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

function load(replay) {
  say(replay.problem ? `This record stops early: ${replay.problem}` : "");
  view.load(replay);
}
