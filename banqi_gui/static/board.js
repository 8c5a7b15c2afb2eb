// Drawing a board: 32 squares, each an element with data-square="a1".."d8", and each piece
// an element with its letter in data-piece ("X" face down, "?" face up but unknown, "~" face
// up or empty: in a withheld record, the square a move onto a face-down piece left).

export const FILES = "abcd";
export const SQUARES = [];
for (let rank = 1; rank <= 8; rank++) {
  for (const file of FILES) SQUARES.push(file + rank);
}

const CHINESE = {
  K: "帥", G: "仕", M: "相", R: "俥", N: "傌", C: "炮", P: "兵",
  k: "將", g: "士", m: "象", r: "車", n: "馬", c: "砲", p: "卒",
};
const ENGLISH_WORDS = {
  K: "king", G: "guard", M: "minister", R: "rook", N: "knight", C: "cannon", P: "pawn",
};

const UNKNOWN = new Set(["X", "?", "~"]);

export function pieceColour(letter) {
  if (UNKNOWN.has(letter)) return "unknown";
  return letter === letter.toUpperCase() ? "red" : "black";
}

export function pieceTitle(letter) {
  if (letter === "X") return "face down";
  if (letter === "?") return "face up (withheld)";
  if (letter === "~") return "face up or empty (withheld)";
  return `${pieceColour(letter)} ${ENGLISH_WORDS[letter.toUpperCase()]}`;
}

export function makePiece(letter) {
  const piece = document.createElement("div");
  piece.className = `piece ${pieceColour(letter)}`;
  piece.dataset.piece = letter;
  piece.title = pieceTitle(letter);
  if (letter !== "X") {
    const zh = document.createElement("span");
    zh.className = "zh";
    zh.lang = "zh";
    zh.textContent = CHINESE[letter] || "?";
    const en = document.createElement("span");
    en.className = "en";
    en.textContent = UNKNOWN.has(letter) ? "?" : letter.toUpperCase();
    piece.append(zh, en);
  }
  return piece;
}

// marks: {selected, targets: {square: kind}, last: {from, to}, movable: Set, hint: {from, to}}
export function drawBoard(container, letters, marks = {}) {
  if (!container.dataset.built) {
    container.replaceChildren();
    for (let rank = 8; rank >= 1; rank--) {
      for (const file of FILES) {
        const square = document.createElement("div");
        square.className = "square";
        square.dataset.square = file + rank;
        container.append(square);
      }
    }
    container.dataset.built = "1";
  }
  for (const square of container.children) {
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
    if (marks.last && (marks.last.from === name || marks.last.to === name)) classes.push("last");
    if (marks.movable && marks.movable.has(name)) classes.push("can-move");
    if (marks.hint && (marks.hint.from === name || marks.hint.to === name)) classes.push("hint");
    square.className = classes.join(" ");
    if (kind) square.dataset.target = kind;
    else delete square.dataset.target;
  }
}

export function drawStrip(container, letters) {
  container.replaceChildren(...[...letters].map(makePiece));
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
