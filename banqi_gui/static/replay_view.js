// A record stepped ply by ply (a ReplayView from the server: frames, result, layout): the
// board with both seats, the controls under it, the moves and the ending beside it. The
// Replay tab and the event page each hold one; its elements' ids start with "replay-".

import { drawBoard, moveSquares, plyWords } from "./board.js";
import { drawIcons, setIconButton } from "./glyphs.js";
import { fitLayout } from "./layout.js";
import { buildSeats, drawSeats } from "./seats.js";

const AUTOPLAY_MS = 600;
const CONTROLS = [
  ["first", "start", "first"],
  ["back", "back", "back"],
  ["play", "autoplay", "play"],
  ["forward", "forward", "forward"],
  ["last", "end", "last"],
];

function element(tag, attributes = {}, ...children) {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "className") made.className = value;
    else made.setAttribute(name, value);
  }
  made.append(...children);
  return made;
}

export class ReplayView {
  // Builds the view in ``root`` (a .columns: the table and the aside).
  constructor(root) {
    this.replay = null;
    this.ply = 0;
    this.autoplay = null;
    const table = element("div", { className: "table replay-table" });
    this.title = element("h2", { className: "game-title", id: "replay-title" });
    table.append(this.title);
    this.parts = buildSeats(table, "replay");
    const buttons = element("div", { className: "buttons" });
    this.buttons = {};
    for (const [name, words, icon] of CONTROLS) {
      const button = element("button", {
        type: "button", id: `replay-${name}`, title: words, "data-icon": icon,
      });
      if (name === "play") button.textContent = "play";
      else button.setAttribute("aria-label", words);
      this.buttons[name] = button;
      buttons.append(button);
    }
    this.number = element("input", { type: "number", id: "replay-ply", min: "0", value: "0" });
    this.slider = element("input", {
      type: "range", id: "replay-slider", min: "0", max: "0", value: "0", "aria-label": "ply",
    });
    const controls = element(
      "div", { className: "replay-controls" }, buttons,
      element("label", { className: "ply-number" }, "ply ", this.number),
    );
    this.status = element("p", { className: "status", id: "replay-status" });
    table.append(controls, this.slider, this.status);
    this.result = element("p", { id: "replay-result" });
    this.reason = element("p", { className: "small", id: "replay-reason" });
    this.note = element("p", { className: "small", id: "replay-layout-note" });
    this.layout = element("div", { className: "board mini", id: "replay-layout" });
    this.end = element(
      "div", { className: "end", id: "replay-end", hidden: "" },
      this.result, this.reason, this.note, this.layout,
    );
    this.moves = element("ol", { className: "moves", id: "replay-moves" });
    root.replaceChildren(table, element("aside", {}, this.end, this.moves));
    root.classList.add("side-list");
    this.table = table;
    drawIcons(table);
    this.listen();
  }

  listen() {
    const { first, back, play, forward, last } = this.buttons;
    first.addEventListener("click", () => this.go(0));
    back.addEventListener("click", () => this.go(this.ply - 1));
    forward.addEventListener("click", () => this.go(this.ply + 1));
    last.addEventListener("click", () => this.go(Infinity));
    play.addEventListener("click", () => this.toggleAutoplay());
    this.slider.addEventListener("input", () => this.go(Number(this.slider.value)));
    this.number.addEventListener("change", () => this.go(Number(this.number.value)));
    this.moves.addEventListener("click", (event) => {
      const item = event.target.closest("[data-ply]");
      if (item) this.go(Number(item.dataset.ply));
    });
    document.addEventListener("keydown", (event) => {
      if (this.table.offsetParent === null || event.target.closest("input, select")) return;
      if (event.key === "ArrowLeft") this.go(this.ply - 1);
      if (event.key === "ArrowRight") this.go(this.ply + 1);
    });
  }

  // Show a replay at ply ``start`` (Infinity: its end).
  load(view, start = 0) {
    this.replay = view;
    this.stopAutoplay();
    const last = view.frames.length - 1;
    this.slider.max = last;
    this.number.max = last;
    this.title.textContent = `${view.title} · ${view.rules}`;
    this.moves.replaceChildren(
      ...view.frames.slice(1).map((frame, index) => {
        const item = document.createElement("li");
        item.dataset.ply = index + 1;
        item.textContent = `${view.players[frame.player] ?? ""}: ${frame.move}`;
        return item;
      }),
    );
    this.go(start);
    if (this.table.offsetParent !== null) fitLayout(); // its bars' height, its names'
  }

  go(target) {
    if (!this.replay) return;
    const last = this.replay.frames.length - 1;
    this.ply = Math.max(0, Math.min(last, Number.isFinite(target) ? Math.trunc(target) : last));
    if (this.ply === last) this.stopAutoplay();
    this.draw();
  }

  draw() {
    const replay = this.replay;
    const frame = replay.frames[this.ply];
    const last = replay.frames.length - 1;
    drawBoard(this.parts.board, frame.board, { last: moveSquares(frame.move) });
    drawSeats(this.parts, {
      players: replay.players,
      colours: replay.colours,
      clocks: frame.clocks_ms,
      toMove: null,
      captured: frame.captured,
    });
    this.slider.value = this.ply;
    this.number.value = this.ply;
    this.status.textContent =
      this.ply === 0
        ? `start (${last} plies)`
        : `ply ${this.ply} of ${last}: ${plyWords(frame.move, frame.board)}`;
    for (const item of this.moves.children) {
      const current = Number(item.dataset.ply) === this.ply;
      item.classList.toggle("current", current);
      if (current) showInList(this.moves, item);
    }
    const atEnd = this.ply === last;
    this.end.hidden = !atEnd;
    if (atEnd) this.drawEnd();
  }

  drawEnd() {
    const replay = this.replay;
    this.result.textContent = replay.result || "no result recorded";
    this.reason.textContent = replay.reason ? `${replay.reason}: ${replay.reason_words}` : "";
    this.layout.hidden = !replay.layout;
    if (replay.layout) drawBoard(this.layout, replay.layout);
    this.note.textContent = replay.layout
      ? "The layout, revealed:"
      : replay.withheld
        ? "Withheld record: the layout stays hidden until the other game of its deal has ended."
        : "A text record does not hold the layout.";
  }

  toggleAutoplay() {
    if (this.autoplay) {
      this.stopAutoplay();
      return;
    }
    if (!this.replay) return;
    if (this.ply === this.replay.frames.length - 1) this.go(0);
    setIconButton(this.buttons.play, "pause", "pause");
    this.autoplay = setInterval(() => this.go(this.ply + 1), AUTOPLAY_MS);
  }

  stopAutoplay() {
    if (this.autoplay) clearInterval(this.autoplay);
    this.autoplay = null;
    setIconButton(this.buttons.play, "play", "play");
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
