// The organiser's page (``banqi serve`` serves it at /organiser; its calls carry the
// organiser's cookie, set by opening the address the server printed): the entrants (who is
// connected, lag, faults, state, games being played), the games waiting for an entrant and
// those being played, as they change; and the organiser's commands: pause or resume the
// event, pause or resume an entrant, forfeit an entrant for good (asked twice).

import { call, say } from "./api.js";
import { follow } from "./follow.js";
import { fillTable, link, STATE_WORDS } from "./tables.js";

const $ = (id) => document.getElementById(id);
let state = null;

const time = (iso) =>
  iso ? new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : "";

function button(words, action, name, label) {
  const made = document.createElement("button");
  made.type = "button";
  made.textContent = words;
  made.dataset.action = action;
  made.dataset.name = name;
  made.setAttribute("aria-label", label);
  return made;
}

function commands(entrant) {
  if (entrant.forfeited) return "forfeited";
  const name = entrant.name;
  return [
    entrant.paused
      ? button("Resume", "resume", name, `Resume ${name}`)
      : button("Pause", "pause", name, `Pause ${name}`),
    " ",
    button("Forfeit…", "forfeit", name, `Forfeit ${name} for good`),
  ];
}

function connection(entrant) {
  if (!entrant.remote) return "plays on the server";
  if (!entrant.connected) return "not connected";
  return `since ${time(entrant.connected_since)}`;
}

function draw(view) {
  state = view;
  $("org-view").hidden = false;
  $("org-no-token").hidden = true;
  const remote = view.entrants.filter((entrant) => entrant.remote);
  const connected = remote.filter((entrant) => entrant.connected).length;
  const said = [
    view.paused ? "The event is paused" : "The event is running",
    `${connected} of ${remote.length} remote entrants connected`,
    `${view.running.length} games being played`,
    `${view.waiting.length} waiting for an entrant`,
  ].join(" · ");
  if ($("org-status").textContent !== said) $("org-status").textContent = said; // live region
  $("org-status").classList.toggle("paused", view.paused);
  $("org-pause").textContent = view.paused ? "Resume the event" : "Pause the event";
  $("org-pause").dataset.action = view.paused ? "resume" : "pause";
  fillTable(
    $("org-entrants"),
    ["Entrant", "Commands", "State", "Connection", "Lag (ms)", "Playing", "Faults", "Address"],
    view.entrants.map((entrant) => [
      entrant.name,
      commands(entrant),
      STATE_WORDS[entrant.state] || entrant.state,
      connection(entrant),
      entrant.rtt_ms === null || entrant.rtt_ms === undefined ? "" : Math.round(entrant.rtt_ms),
      entrant.playing.join(", "),
      entrant.faults + (entrant.last_fault ? ` (last: ${entrant.last_fault})` : ""),
      entrant.address || "",
    ]),
  );
  $("org-no-waiting").hidden = view.waiting.length > 0;
  $("org-waiting").hidden = view.waiting.length === 0;
  fillTable(
    $("org-waiting"),
    ["Game", "Players", "Waiting for", "Since"],
    view.waiting.map((game) => [
      game.game_id, game.players.join(" – "), game.waiting_for.join(", "), time(game.since),
    ]),
  );
  $("org-no-running").hidden = view.running.length > 0;
  $("org-running").hidden = view.running.length === 0;
  fillTable(
    $("org-running"),
    ["Game", "Players", "Plies"],
    view.running.map((game) => [
      link(`/#game/${encodeURIComponent(game.game_id)}`, game.game_id),
      game.players.join(" – "),
      game.plies,
    ]),
  );
}

// A command: its answer is the organiser's view after it.
async function act(path) {
  try {
    draw(await call("POST", path));
    say("");
  } catch (error) {
    say(error.message);
  }
}

// Forfeiting is for good: the dialog asks first, Cancel focused.
function confirmForfeit(name) {
  const dialog = $("org-confirm");
  $("org-confirm-words").textContent =
    `Forfeit ${name} for good? Every game of ${name} not yet finished is lost by forfeit, ` +
    "and it plays no more in this event, even after the server is started again.";
  $("org-confirm-forfeit").textContent = `Forfeit ${name}`;
  dialog.returnValue = "cancel";
  dialog.addEventListener(
    "close",
    () => {
      if (dialog.returnValue === "forfeit") act(entrantPath(name, "forfeit"));
    },
    { once: true },
  );
  dialog.showModal();
}

const entrantPath = (name, action) => `/api/organiser/entrants/${encodeURIComponent(name)}/${action}`;

function main() {
  $("org-pause").addEventListener("click", () => act(`/api/organiser/${$("org-pause").dataset.action}`));
  $("org-entrants").addEventListener("click", (event) => {
    const pressed = event.target.closest("button[data-action]");
    if (!pressed || !state) return;
    const { action, name } = pressed.dataset;
    if (action === "forfeit") confirmForfeit(name);
    else act(entrantPath(name, action));
  });
  follow("/api/organiser", draw, (error) => {
    if (error.status !== 401) return false;
    $("org-no-token").hidden = false;
    $("org-view").hidden = true;
    return true;
  });
}

main();
