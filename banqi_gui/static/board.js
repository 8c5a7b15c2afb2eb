import { GLYPHS, LETTERS, strokes } from "./glyphs.js";

// Drawing a board: 32 squares, each an element with data-square="a1".."d8", and each piece
// an element with its letter in data-piece ("X" face down, "?" face up but unknown, "~" face
// up or empty: in a withheld record, the square a move onto a face-down piece left). A board
// with data-coords has its files and ranks as small labels in the corners of its edge squares.

export const FILES = "abcd";
export const SQUARES = [];
for (let rank = 1; rank <= 8; rank++) {
  for (const file of FILES) SQUARES.push(file + rank);
}

const NAMES = {
  K: "King", G: "Guard", M: "Minister", R: "Chariot", N: "Horse", C: "Cannon", P: "Pawn",
};
const KIND_WORDS = {
  move: "move to", capture: "capture", jump: "capture by a jump", flip: "flip",
  reveal: "move onto the face-down piece on",
};

const UNKNOWN = new Set(["X", "?", "~"]);
const REDUCED_MOTION = "(prefers-reduced-motion: reduce)";

export function pieceColour(letter) {
  if (UNKNOWN.has(letter)) return "unknown";
  return letter === letter.toUpperCase() ? "red" : "black";
}

export function pieceTitle(letter) {
  if (letter === "X") return "face down";
  if (letter === "?") return "face up (withheld)";
  if (letter === "~") return "face up or empty (withheld)";
  return `${pieceColour(letter)} ${NAMES[letter.toUpperCase()]}`;
}

// A piece: its Chinese sign and its letter, both drawn (see glyphs.js); the look's labels
// setting shows one or both, on the board and in the strips alike.
export function makePiece(letter) {
  const piece = document.createElement("div");
  piece.className = `piece ${pieceColour(letter)}`;
  piece.dataset.piece = letter;
  piece.title = pieceTitle(letter);
  if (letter !== "X") {
    const known = !UNKNOWN.has(letter);
    piece.append(
      strokes(known ? GLYPHS[letter] : LETTERS["?"], "zh"),
      strokes(LETTERS[known ? letter.toUpperCase() : "?"], "en"),
    );
  }
  return piece;
}

// What a square says to a screen reader: "b3, face down", "a1, red Chariot, can capture c1".
function squareLabel(name, letter, marks) {
  const words = [name, letter === "-" || letter === undefined ? "empty" : pieceTitle(letter)];
  if (marks.selected === name) words.push("selected");
  const kind = marks.targets && marks.targets[name];
  if (kind) words.push(`${marks.selected} can ${KIND_WORDS[kind] || kind} here`);
  const actions = (marks.actions && marks.actions[name]) || [];
  const plays = actions.filter((action) => action.kind !== "flip");
  if (actions.some((action) => action.kind === "flip")) words.push("can be flipped");
  if (plays.length && marks.selected !== name) {
    words.push(`can ${plays.map((a) => `${KIND_WORDS[a.kind] || a.kind} ${a.to}`).join(", ")}`);
  }
  if (marks.last && marks.last.to === name) words.push("last move");
  else if (marks.last && marks.last.from === name) words.push("last move from here");
  if (marks.hint && marks.hint.from === name) words.push("hint");
  else if (marks.hint && marks.hint.to === name) words.push("hint: to here");
  return words.join(", ");
}

// The coordinates, as the hints, the status and the moves speak: files a-d along the edge
// where rank 1 is, ranks 1-8 along the edge where file a is (4 across: the bottom and the
// left; 8 across: the left and the bottom). Each label sits in an edge square's corner, over
// the board but under no one's finger (pointer-events: none) and not read out (the squares'
// own labels name them).
function coordinates() {
  const label = (text, kind, place) => {
    const item = document.createElement("span");
    item.className = `coord ${kind}`;
    item.textContent = text;
    item.setAttribute("aria-hidden", "true");
    item.style.cssText = place;
    return item;
  };
  return [
    ...[...FILES].map((file, index) =>
      label(file, "file", `--tc:${index + 1};--tr:8;--wc:1;--wr:${index + 1}`)),
    ...[1, 2, 3, 4, 5, 6, 7, 8].map((rank) =>
      label(String(rank), "rank", `--tc:1;--tr:${9 - rank};--wc:${rank};--wr:4`)),
  ];
}

function squaresOf(container) {
  return container.querySelectorAll(":scope > [data-square]");
}

function buildBoard(container) {
  container.replaceChildren();
  const keys = container.dataset.keys !== undefined;
  for (let rank = 8; rank >= 1; rank--) {
    for (const [index, file] of [...FILES].entries()) {
      const square = document.createElement("div");
      square.className = "square";
      square.dataset.square = file + rank;
      // Where it goes: 4 across (files left to right, rank 8 on top), or 8 across (ranks
      // left to right, file a on top): the stylesheet picks one.
      square.style.cssText = `--tc:${index + 1};--tr:${9 - rank};--wc:${rank};--wr:${index + 1}`;
      square.setAttribute("role", keys ? "button" : "img");
      if (keys) square.tabIndex = rank === 1 && index === 0 ? 0 : -1;
      container.append(square);
    }
  }
  if (container.dataset.coords !== undefined) container.append(...coordinates());
  if (keys) container.addEventListener("keydown", boardKey);
  container.dataset.built = "1";
}

// marks: {selected, targets: {square: kind}, last: {from, to}, movable: Set, hint: {from, to},
// actions: {square: [{to, kind}]} (the legal actions, for the squares' labels)}
export function drawBoard(container, letters, marks = {}) {
  if (!container.dataset.built) buildBoard(container);
  for (const square of squaresOf(container)) {
    const name = square.dataset.square;
    const letter = letters[SQUARES.indexOf(name)];
    const current = square.firstElementChild;
    if (letter === "-" || letter === undefined) {
      if (current) current.remove();
    } else if (!current || current.dataset.piece !== letter) {
      square.replaceChildren(makePiece(letter));
    }
    const classes = ["square"];
    if (marks.selected === name) classes.push("selected");
    const kind = marks.targets && marks.targets[name];
    if (kind) classes.push("target", `target-${kind}`);
    if (marks.last && marks.last.to === name) classes.push("last", "last-to");
    else if (marks.last && marks.last.from === name) classes.push("last", "last-from");
    if (marks.movable && marks.movable.has(name)) classes.push("can-move");
    if (marks.hint && marks.hint.from === name) classes.push("hint", "hint-from");
    else if (marks.hint && marks.hint.to === name) classes.push("hint", "hint-to");
    square.className = classes.join(" ");
    if (kind) square.dataset.target = kind;
    else delete square.dataset.target;
    square.setAttribute("aria-label", squareLabel(name, letter, marks));
  }
}

// Arrow keys move among the squares as they are drawn (4 or 8 across), Enter or Space acts
// on the square as a tap does, Escape says "board-cancel" to whoever listens.
function boardKey(event) {
  const square = event.target.closest("[data-square]");
  if (!square) return;
  const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  if (steps[event.key]) {
    event.preventDefault();
    const next = neighbour(square, ...steps[event.key]);
    if (next) focusSquare(next);
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    square.click();
  } else if (event.key === "Escape") {
    event.currentTarget.dispatchEvent(new CustomEvent("board-cancel", { bubbles: true }));
  }
}

function focusSquare(square) {
  for (const other of squaresOf(square.parentElement)) other.tabIndex = -1;
  square.tabIndex = 0;
  square.focus();
}

// The square one step from ``square`` in direction (dx, dy) on the screen, if any.
function neighbour(square, dx, dy) {
  const at = square.getBoundingClientRect();
  const size = at.width || 1;
  let best = null;
  let bestDistance = Infinity;
  for (const other of squaresOf(square.parentElement)) {
    const there = other.getBoundingClientRect();
    const x = (there.left - at.left) / size;
    const y = (there.top - at.top) / size;
    const along = dx ? x * dx : y * dy;
    const across = Math.abs(dx ? y : x);
    if (along < 0.5 || across > 0.5) continue;
    if (along < bestDistance) {
      best = other;
      bestDistance = along;
    }
  }
  return best;
}

// A short animation of the last ply: the piece slides in from where it came, or turns over
// where it was flipped; nothing under the person's reduced-motion setting.
export function animatePly(container, last) {
  if (!last || window.matchMedia(REDUCED_MOTION).matches) return;
  const to = container.querySelector(`[data-square="${last.to}"]`);
  const piece = to && to.firstElementChild;
  if (!piece) return;
  if (last.from === last.to) {
    piece.animate([{ transform: "rotateY(90deg)" }, { transform: "none" }], {
      duration: 220, easing: "ease-out",
    });
    return;
  }
  const from = container.querySelector(`[data-square="${last.from}"]`);
  if (!from) return;
  const a = from.getBoundingClientRect();
  const b = to.getBoundingClientRect();
  piece.animate(
    [{ transform: `translate(${a.left - b.left}px, ${a.top - b.top}px)` }, { transform: "none" }],
    { duration: 200, easing: "ease-out" },
  );
}

export function drawStrip(container, letters) {
  container.replaceChildren(...[...letters].map(makePiece));
  container.setAttribute("aria-label", `${container.title || "pieces taken"}: ${
    [...letters].map(pieceTitle).join(", ") || "none"}`);
}

// "a2-a3", "a2-a3(k)", "a2-a3(?)", "b6(K)" or "b6" -> {from, to}
export function moveSquares(text) {
  if (!text) return null;
  const squares = text.split("(")[0];
  if (squares.includes("-")) {
    const [from, to] = squares.split("-");
    return { from, to };
  }
  const square = squares.slice(0, 2);
  return { from: square, to: square };
}

// Whether a ply is a move onto a face-down piece: "a2-a3(k)", "a2-a3(?)".
export function isReveal(text) {
  return !!text && text.includes("-") && text.includes("(");
}

// A few words on a ply for a status line: what a move onto a face-down piece did, judged
// from the board after it (the mover gone from its square: it took the piece).
export function plyWords(text, board) {
  if (!isReveal(text)) return text;
  const { from } = moveSquares(text);
  const left = board[SQUARES.indexOf(from)];
  const outcome =
    left === "-" ? "took it" : left === "~" ? "took it or stayed (withheld)" : "stayed";
  return `${text}: onto a face-down piece, turned it up and ${outcome}`;
}
