// The two seats of a watched or replayed game: each seat's bar (its colour, its name in
// full, whose move it is, its clock) and its strip of the pieces it has taken.

import { drawStrip } from "./board.js";

// "14:05" from milliseconds left (never below 0:00).
export function formatMs(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

// A seat's bar: the swatch of its colour, the name (it wraps rather than being cut), "to
// move" on its turn, and its clock (none for null). "to move" and the clock keep their room
// when they are not shown, so that the name wraps the same from ply to ply.
export function drawSeatBar(bar, { name, colour, ms, toMove }) {
  if (!bar.dataset.built) {
    bar.replaceChildren(
      ...["swatch", "name", "turn", "clock"].map((part) => {
        const span = document.createElement("span");
        span.className = part;
        return span;
      }),
    );
    bar.dataset.built = "1";
  }
  const [swatch, label, turn, clock] = bar.children;
  swatch.className = `swatch ${colour || "undecided"}`;
  swatch.title = colour || "colour not decided yet";
  const words = document.createElement("span"); // what the swatch shows, for screen readers
  words.className = "sr-only";
  words.textContent = `${swatch.title}: `;
  swatch.replaceChildren(words);
  label.textContent = name;
  label.title = colour ? `${name}, ${colour}` : name;
  const timed = ms !== null && ms !== undefined;
  turn.textContent = "to move";
  turn.classList.toggle("off", !toMove);
  clock.textContent = timed ? formatMs(ms) : "0:00";
  clock.classList.toggle("off", !timed);
  clock.classList.toggle("low", timed && ms < 10000);
}

// The pieces a seat has taken: those of the other colour (none while colours are open).
export function takenBy(colours, captured, seat) {
  const colour = colours[seat];
  if (!colour) return "";
  return colour === "red" ? captured.black : captured.red;
}

// Both seats of a game: seat 1 above the board, seat 0 below it.
export function drawSeats(parts, game) {
  for (const [seat, where] of [[1, "top"], [0, "bottom"]]) {
    drawSeatBar(parts[`${where}Bar`], {
      name: game.players[seat],
      colour: game.colours[seat],
      ms: game.clocks ? game.clocks[seat] : null,
      toMove: game.toMove === seat,
    });
    drawStrip(parts[`${where}Strip`], takenBy(game.colours, game.captured, seat));
  }
}

// The rows of a game's table, made in ``table`` (ids ``PREFIX-top``, ``PREFIX-strip-top``,
// ``PREFIX-board``, ``PREFIX-strip-bottom``, ``PREFIX-bottom``); returns them by name.
export function buildSeats(table, prefix) {
  const make = (tag, className, id, title) => {
    const element = document.createElement(tag);
    element.className = className;
    element.id = `${prefix}-${id}`;
    if (title) element.title = title;
    table.append(element);
    return element;
  };
  const parts = {
    topBar: make("div", "seat-bar", "top"),
    topStrip: make("div", "strip", "strip-top", "pieces taken by the player above"),
    board: make("div", "board main", "board"),
    bottomStrip: make("div", "strip", "strip-bottom", "pieces taken by the player below"),
    bottomBar: make("div", "seat-bar", "bottom"),
  };
  parts.board.setAttribute("role", "group");
  parts.board.setAttribute("aria-label", "Board");
  return parts;
}
