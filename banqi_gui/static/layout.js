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
  body.classList.toggle("narrow", root.clientWidth < NARROW);
  // Measured once the class applies: a page wider than a phone's screen (as it may be before
  // its first fit) makes the phone's browser zoom out, its viewport taller than the screen.
  const width = root.clientWidth;
  const height = window.innerHeight;
  const section = document.querySelector(".tab:not([hidden])");
  const table = section && section.querySelector(".table");
  if (!table) return;
  const style = getComputedStyle(body);
  const padX = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  let room = width - padX;
  const aside = section.querySelector("aside");
  const columns = getComputedStyle(table.parentElement);
  if (aside && columns.display === "flex") { // the aside beside the table, not below it
    room -= aside.getBoundingClientRect().width + (parseFloat(columns.columnGap) || 0);
  }
  // Height: the viewport less what is above the table (the header, the tab's own controls)
  // and every row of the table but the board and strips.
  let fixed = table.getBoundingClientRect().top + window.scrollY + parseFloat(style.paddingBottom);
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
