// A small tally of the games played against each engine, kept in this browser's storage.

const KEY = "banqi.tally";

function load() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || { counted: [], engines: {} };
  } catch {
    return { counted: [], engines: {} };
  }
}

export function countGame(gameId, engine, outcome) {
  const tally = load();
  if (tally.counted.includes(gameId)) return;
  tally.counted = [...tally.counted.slice(-199), gameId];
  const row = tally.engines[engine] || { games: 0, win: 0, draw: 0, loss: 0 };
  row.games += 1;
  row[outcome] += 1;
  tally.engines[engine] = row;
  localStorage.setItem(KEY, JSON.stringify(tally));
}

export function drawTally(table) {
  const tally = load();
  const head = document.createElement("tr");
  for (const word of ["engine", "games", "wins", "draws", "losses"]) {
    const cell = document.createElement("th");
    cell.textContent = word;
    head.append(cell);
  }
  const rows = Object.entries(tally.engines).map(([engine, row]) => {
    const line = document.createElement("tr");
    for (const value of [engine, row.games, row.win, row.draw, row.loss]) {
      const cell = document.createElement("td");
      cell.textContent = value;
      line.append(cell);
    }
    return line;
  });
  table.replaceChildren(head, ...rows);
}
