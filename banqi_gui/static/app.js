// The page: three tabs (play, watch, replay) chosen by the address's #fragment, and the look
// (labels, piece and board styles, the move helper) kept in this browser's storage.

import { call, say } from "./api.js";
import { drawIcons } from "./glyphs.js";
import { fitLayout, setupLayout } from "./layout.js";
import { setupPlay } from "./play.js";
import { setupReplay, startReplay } from "./replay.js";
import { setupWatch, startWatch, stopWatch } from "./watch.js";

const $ = (id) => document.getElementById(id);
const LOOK = { labels: "both", "piece-style": "disc", "board-style": "wood", helper: false };
const LOOK_KEY = "banqi.look";
let playReady = null;

function applyLook(look) {
  const body = document.body;
  const kept = [...body.classList].filter((name) => !/^(labels|pieces|board)-|^helper-on$/.test(name));
  body.className = [
    ...kept,
    `labels-${look.labels}`,
    `pieces-${look["piece-style"]}`,
    `board-${look["board-style"]}`,
    look.helper ? "helper-on" : "",
  ].join(" ").trim();
  body.dispatchEvent(new Event("look-changed"));
}

// The side panel: beside the board on wide screens, a drawer over the page on narrow ones.
function setupPanel() {
  const open = $("panel-open");
  const panel = $("play-panel");
  const show = (shown) => {
    document.body.classList.toggle("panel-open", shown);
    open.setAttribute("aria-expanded", String(shown));
    if (shown) panel.querySelector("summary, select, input, button").focus();
    else if (document.body.classList.contains("narrow")) open.focus();
  };
  open.addEventListener("click", () => show(true));
  $("panel-close").addEventListener("click", () => show(false));
  panel.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && document.body.classList.contains("panel-open")) show(false);
  });
}

function setupLook() {
  let look = { ...LOOK };
  try {
    look = { ...LOOK, ...JSON.parse(localStorage.getItem(LOOK_KEY) || "{}") };
  } catch {
    look = { ...LOOK };
  }
  for (const name of ["labels", "piece-style", "board-style"]) {
    $(name).value = look[name];
    $(name).addEventListener("change", () => {
      look[name] = $(name).value;
      localStorage.setItem(LOOK_KEY, JSON.stringify(look));
      applyLook(look);
    });
  }
  $("helper").checked = look.helper;
  $("helper").addEventListener("change", () => {
    look.helper = $("helper").checked;
    localStorage.setItem(LOOK_KEY, JSON.stringify(look));
    applyLook(look);
  });
  applyLook(look);
}

function route() {
  const [tab, run, game] = (location.hash.slice(1) || "play").split("/").map(decodeURIComponent);
  const name = ["play", "watch", "replay"].includes(tab) ? tab : "play";
  for (const section of document.querySelectorAll(".tab")) section.hidden = section.id !== name;
  for (const link of document.querySelectorAll("nav a")) {
    link.classList.toggle("active", link.dataset.tab === name);
  }
  if (name === "watch") startWatch(run, game);
  else stopWatch();
  if (name === "replay") startReplay(run, game);
  if (name === "play" && playReady) playReady();
  document.body.dataset.tab = name;
  fitLayout();
}

async function main() {
  drawIcons(document);
  setupLook();
  setupPanel();
  setupLayout();
  let options;
  try {
    options = await call("GET", "/api/options");
  } catch (error) {
    say(error.message);
    return;
  }
  setupWatch((run, game) => {
    location.hash = `#replay/${encodeURIComponent(run)}/${encodeURIComponent(game)}`;
  });
  setupReplay(options);
  playReady = () => {
    playReady = null;
    setupPlay(options);
  };
  window.addEventListener("hashchange", route);
  route();
}

main();
