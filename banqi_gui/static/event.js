// The event's page for spectators (``banqi serve`` serves it at /): the games being played,
// one large and every one small to pick, the standings and the crosstable, the finished
// games with their replays and records, and each entrant's page, all as they change (a long
// poll of /api/event). Read-only: it holds no token and asks for no change.
//
// Routes: #live, #standings, #games, #entrants, #game/ID (a game being played, drawn large,
// or a finished game's replay), #entrant/NAME.

import { call, say } from "./api.js";
import { follow } from "./follow.js";
import { fitLayout, setupLayout } from "./layout.js";
import { LiveGames } from "./live_games.js";
import { ReplayView } from "./replay_view.js";
import { drawCrosstable, drawStandings, ELO_NOTE } from "./standings.js";
import { fillTable, link, STATE_WORDS } from "./tables.js";

const $ = (id) => document.getElementById(id);
const TABS = ["live", "standings", "games", "entrants"];
let event = null; // the event as last read
let route = { tab: "live", id: null };
let shown = "live"; // the section shown
let live = null;
let replay = null;
let replayKey = null; // the finished game the replay shows: "id withheld"
let large = null; // the game drawn large

const entrantHref = (name) => `#entrant/${encodeURIComponent(name)}`;
const gameHref = (id) => `#game/${encodeURIComponent(id)}`;
const recordHref = (id, kind) => `/api/event/games/${encodeURIComponent(id)}/record.${kind}`;
const isLive = (id) => !!event && event.live.some((game) => game.game_id === id);

function readRoute() {
  const [tab, ...rest] = location.hash.slice(1).split("/");
  const id = rest.length ? decodeURIComponent(rest.join("/")) : "";
  if ((tab === "game" || tab === "entrant") && id) return { tab, id };
  return { tab: TABS.includes(tab) ? tab : "live", id: null };
}

// Show the section of the address: a game being played is drawn large in Live, a finished
// one replayed in its own section.
async function showRoute() {
  route = readRoute();
  showSection(route.tab === "game" && isLive(route.id) ? "live" : route.tab);
  if (shown === "game") await openGame(route.id);
  if (shown === "entrant") await openEntrant(route.id);
}

function showSection(name) {
  shown = name;
  for (const section of document.querySelectorAll(".tab")) section.hidden = section.id !== name;
  const tab = { game: "games", entrant: "entrants" }[name] || name;
  for (const anchor of document.querySelectorAll("nav a")) {
    const active = anchor.dataset.tab === tab;
    anchor.classList.toggle("active", active);
    if (active) anchor.setAttribute("aria-current", "page");
    else anchor.removeAttribute("aria-current");
  }
  document.body.dataset.tab = name;
  if (event) draw();
  fitLayout();
}

function draw() {
  drawHeader();
  if (shown === "live") drawLive();
  if (shown === "standings") {
    drawStandings($("standings-table"), event.standings, entrantHref);
    $("elo-note").textContent = event.standings.length ? ELO_NOTE : "";
    drawCrosstable($("crosstable"), event.crosstable, entrantHref);
  }
  if (shown === "games") drawGames();
  if (shown === "entrants") drawEntrants();
}

// The event's name, how far it is, how far behind the games the page is, and whether the
// organiser paused it.
function drawHeader() {
  $("event-name").textContent = event.name;
  document.title = `${event.name} · banqi`;
  const { total, finished, live: playing } = event.games;
  const words = [`${finished} of ${total} games played`, `${playing} being played`, event.rules];
  const parts = [words.join(" · ")];
  const behind = delayWords(event.delay);
  if (behind) parts.push(badge(behind, "behind"));
  if (event.paused) parts.push(badge("paused", "paused"));
  const status = $("event-status");
  const said = [words, behind, event.paused].join();
  if (status.dataset.said === said) return; // a live region: said again only when it changes
  status.dataset.said = said;
  status.replaceChildren(...parts.flatMap((part, i) => (i ? [" · ", part] : [part])));
}

function badge(words, kind) {
  const span = document.createElement("span");
  span.className = `badge ${kind}`;
  span.textContent = words;
  return span;
}

function delayWords(delay) {
  if (!delay) return "";
  if (delay.plies !== undefined) return `${delay.plies} ${delay.plies === 1 ? "ply" : "plies"} behind`;
  return `${delay.seconds} s behind`;
}

function drawLive() {
  const drawn = live.update(event.live, route.tab === "game" ? route.id : null);
  $("live-games").hidden = drawn === null;
  $("live-none").hidden = drawn !== null;
  if (drawn !== large) fitLayout(); // another game's bars, or none
  large = drawn;
}

function players(game) {
  return [link(entrantHref(game.players[0]), game.players[0]), " – ",
    link(entrantHref(game.players[1]), game.players[1])];
}

function records(id) {
  return [link(recordHref(id, "json"), "JSON", { download: "" }), " · ",
    link(recordHref(id, "txt"), "text", { download: "" })];
}

function endedAt(game) {
  const at = new Date(game.finished_at);
  return Number.isNaN(at.getTime()) ? "" : at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

function drawGames() {
  const games = [...event.finished].reverse(); // the latest first
  $("games-none").hidden = games.length > 0;
  fillTable(
    $("games-table"),
    ["Game", "Players", "Score", "Result", "Plies", "Ended", "Record"],
    games.map((game) => [
      link(gameHref(game.game_id), game.game_id),
      players(game),
      game.score,
      game.result + (game.withheld ? " (withheld until its deal's other game ends)" : ""),
      game.plies,
      endedAt(game),
      records(game.game_id),
    ]),
  );
}

function connection(entrant) {
  if (!entrant.remote) return "plays on the server";
  return entrant.connected ? "connected" : "not connected";
}

function drawEntrants() {
  fillTable(
    $("entrants-table"),
    ["Entrant", "State", "Connection", "Games", "Points"],
    event.entrants.map((entrant) => [
      link(entrantHref(entrant.name), entrant.name),
      STATE_WORDS[entrant.state] || entrant.state,
      connection(entrant),
      entrant.games,
      entrant.points,
    ]),
  );
}

// A finished game's replay, its players, result and records (read again once its record is
// no longer withheld); at its end if it was being watched as it ended.
async function openGame(id, atEnd = false) {
  const summary = event && event.finished.find((game) => game.game_id === id);
  const key = summary ? `${id} ${summary.withheld}` : null;
  if (key && key === replayKey) return;
  let answer;
  try {
    answer = await call("GET", `/api/event/games/${encodeURIComponent(id)}`);
  } catch (error) {
    say(error.message);
    return;
  }
  if (route.tab !== "game" || route.id !== id) return; // another route meanwhile
  if (!answer.finished) {
    showSection("live"); // being played: drawn large once the event lists it
    return;
  }
  const game = answer.summary;
  replayKey = `${id} ${game.withheld}`;
  $("game-head").replaceChildren(
    link("#games", "← finished games"), " ", ...players(game), `: ${game.result} · Record: `,
    ...records(id),
  );
  say(answer.replay.problem ? `This record stops early: ${answer.replay.problem}` : "");
  replay.load(answer.replay, atEnd ? Infinity : 0);
}

function outcome(game, name) {
  if (game.score === "void") return "void";
  if (game.score === "1/2-1/2") return "draw";
  const winner = game.score === "1-0" ? 0 : 1;
  return game.players[winner] === name ? "win" : "loss";
}

// An entrant's page: its state, its line of the standings, its games and its faults.
async function openEntrant(name) {
  let entrant;
  try {
    entrant = await call("GET", `/api/event/entrants/${encodeURIComponent(name)}`);
  } catch (error) {
    say(error.message);
    return;
  }
  if (route.tab !== "entrant" || route.id !== name) return;
  $("entrant-name").textContent = entrant.name;
  $("entrant-state").textContent = `${STATE_WORDS[entrant.state] || entrant.state} · ${connection(entrant)}`;
  drawStandings($("entrant-standing"), entrant.standing ? [entrant.standing] : []);
  fillTable(
    $("entrant-games"),
    ["Game", "Opponent", "Colour", "Result", "Plies", "Record"],
    entrant.games.map((game) => {
      const seat = game.players.indexOf(entrant.name);
      const opponent = game.players[1 - seat];
      const colour = game.colours[seat] || "";
      const opponentLink = link(entrantHref(opponent), opponent);
      if (game.live) {
        return [link(gameHref(game.game_id), game.game_id), opponentLink, colour,
          link(gameHref(game.game_id), "being played: watch"), "", ""];
      }
      return [link(gameHref(game.game_id), game.game_id), opponentLink, colour,
        `${outcome(game, entrant.name)}: ${game.result}`, game.plies, records(game.game_id)];
    }),
  );
  $("entrant-no-faults").hidden = entrant.faults.length > 0;
  $("entrant-faults").hidden = entrant.faults.length === 0;
  fillTable(
    $("entrant-faults"),
    ["Game", "Reason", "What happened"],
    entrant.faults.map((fault) => [link(gameHref(fault.game_id), fault.game_id), fault.reason, fault.detail]),
  );
}

// A new state of the event: drawn, and the page of a game or an entrant read again.
function received(state) {
  event = state;
  const watched = route.tab === "game" && shown === "live";
  if (route.tab === "game" && watched !== isLive(route.id)) {
    showSection(watched ? "game" : "live"); // the game watched has ended, or has started
  } else {
    draw();
  }
  if (shown === "game") openGame(route.id, watched);
  if (shown === "entrant") openEntrant(route.id);
}

function main() {
  setupLayout();
  live = new LiveGames($("live-game"), $("live-list"), gameHref, "live");
  replay = new ReplayView($("replay-view"));
  window.addEventListener("hashchange", showRoute);
  showRoute();
  follow("/api/event", received);
}

main();
