// Fitting the page to the screen: the board as large as it can be with everything else of
// its tab still in view, drawn 8 across where that gives larger squares (wide screens) and
// 4 across otherwise; below NARROW pixels the side panel becomes a drawer over the page.

const NARROW = 720;
const MIN_SQUARE = 28;
const MAX_SQUARE = 150;
const BOARD_PAD = 0.16; // the board's padding, in squares, both sides together
const STRIPS = 0.72; // the two strips of taken pieces, in squares

export function fitLayout() {
  sizeBoard();
  document.body.classList.add("laid-out"); // shown from now on: nothing moves after this
}

function sizeBoard() {
  const root = document.documentElement;
  const body = document.body;
  const width = root.clientWidth;
  const height = window.innerHeight;
  body.classList.toggle("narrow", width < NARROW);
  const section = document.querySelector(".tab:not([hidden])");
  const table = section && section.querySelector(".table");
  if (!table) return;
  const style = getComputedStyle(body);
  const padX = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  let room = width - padX;
  const aside = section.querySelector("aside");
  if (aside && !body.classList.contains("narrow")) {
    const gap = parseFloat(getComputedStyle(table.parentElement).columnGap) || 0;
    room -= aside.getBoundingClientRect().width + gap;
  }
  // Height: the viewport less the header and every row of the table but the board and strips.
  let fixed = document.querySelector("header").getBoundingClientRect().height;
  fixed += parseFloat(style.paddingBottom) + parseFloat(style.paddingTop);
  const rows = [...table.children].filter(
    (child) => !child.hidden && !child.classList.contains("overlay") && !child.matches(".sr-only"),
  );
  const rowGap = parseFloat(getComputedStyle(table).rowGap) || 0;
  for (const child of rows) {
    if (!child.matches(".board, .strip")) fixed += child.getBoundingClientRect().height;
  }
  fixed += rowGap * Math.max(0, rows.length - 1) + 4;
  const spare = height - fixed;
  const tall = Math.min(room / (4 + BOARD_PAD), spare / (8 + BOARD_PAD + STRIPS));
  const wide = Math.min(room / (8 + BOARD_PAD), spare / (4 + BOARD_PAD + STRIPS));
  const square = Math.max(MIN_SQUARE, Math.min(MAX_SQUARE, Math.floor(Math.max(tall, wide))));
  body.classList.toggle("wide", wide > tall);
  section.style.setProperty("--square", `${square}px`);
}

// Fitted again on every resize; a tab shown is fitted by whoever shows it (app.js's route).
export function setupLayout() {
  window.addEventListener("resize", fitLayout);
}
