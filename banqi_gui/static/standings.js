// The standings and the crosstable, with the cells the reports and `banqi tournament`
// print: the Elo signed to one decimal ("+95.4"), its 95% margin, "-" where there is none,
// "+inf" and "-inf" as given.

const COLUMNS = [
  ["rank", "#", "rank"],
  ["name", "Engine", "engine"],
  ["games", "G", "games"],
  ["wins", "W", "wins"],
  ["draws", "D", "draws"],
  ["losses", "L", "losses"],
  ["void", "Void", "void games (both engines failed)"],
  ["points", "Pts", "points"],
  ["score_percent", "Score", "score"],
  ["elo", "Elo", "rating over all games"],
  ["elo_error", "±", "95% margin of the rating"],
];

export const ELO_NOTE =
  "Elo: the rating over all games (a maximum-likelihood fit with 2 virtual draws an " +
  "engine, as BayesElo: finite even after a clean sweep), averaging 0, ± its 95% margin; " +
  "the same figures as the run's report.";

// An Elo cell: "+95.4", "-3.0", "+inf" or "-inf" as given, "-" for none.
export function eloText(value) {
  if (value === null || value === undefined) return "-";
  if (typeof value === "string") return value;
  const rounded = Math.round(value * 10) / 10 + 0; // no "-0.0"
  return `${rounded >= 0 ? "+" : ""}${rounded.toFixed(1)}`;
}

function cellText(field, value) {
  if (value === null || value === undefined) return "-";
  if (field === "elo") return eloText(value);
  if (field === "elo_error") return typeof value === "number" ? value.toFixed(1) : String(value);
  if (field === "points") return Number(value).toFixed(1);
  if (field === "score_percent") return `${Number(value).toFixed(1)}%`;
  return String(value);
}

function headerCell(label, title) {
  const cell = document.createElement("th");
  cell.scope = "col";
  cell.textContent = label;
  if (title !== label) cell.title = title;
  return cell;
}

// A link to an entrant's page, or the name alone (``link`` gives the address, or none).
export function nameCell(tag, name, link) {
  const cell = document.createElement(tag);
  cell.className = "name";
  if (link) {
    const anchor = document.createElement("a");
    anchor.href = link(name);
    anchor.textContent = name;
    cell.append(anchor);
  } else {
    cell.textContent = name;
  }
  return cell;
}

// The standings table; the Void column only when some game is void.
export function drawStandings(table, rows, link = null) {
  const shown = COLUMNS.filter(([field]) => field !== "void" || rows.some((row) => row.void));
  const head = document.createElement("tr");
  head.append(...shown.map(([, label, title]) => headerCell(label, title)));
  const lines = rows.map((row) => {
    const line = document.createElement("tr");
    for (const [field] of shown) {
      if (field === "name") {
        line.append(nameCell("th", row.name, link));
        line.lastChild.scope = "row";
        continue;
      }
      const cell = document.createElement("td");
      cell.textContent = cellText(field, row[field]);
      cell.className = field === "elo" || field === "elo_error" ? "number elo" : "number";
      line.append(cell);
    }
    return line;
  });
  const body = document.createElement("tbody");
  body.append(...lines);
  const header = document.createElement("thead");
  header.append(head);
  table.replaceChildren(header, body);
  table.classList.add("standings");
}

// A crosstable cell: the row engine's points of its games against the column engine.
function crossCell(cell) {
  const td = document.createElement("td");
  td.className = "number";
  if (cell === null || cell === undefined) {
    td.className = "number self";
    td.textContent = "·";
    return td;
  }
  if (!cell.games) {
    td.textContent = "";
    return td;
  }
  td.textContent = `${cell.points}/${cell.games}`;
  td.title = `${cell.wins} W, ${cell.draws} D, ${cell.losses} L`;
  return td;
}

// The crosstable: row engine against column engine (columns by number).
export function drawCrosstable(table, crosstable, link = null) {
  const { names, cells } = crosstable;
  const head = document.createElement("tr");
  head.append(headerCell("", ""), ...names.map((name, i) => headerCell(String(i + 1), name)));
  const lines = names.map((name, i) => {
    const line = document.createElement("tr");
    const label = nameCell("th", name, link);
    label.scope = "row";
    label.prepend(`${i + 1}. `);
    line.append(label, ...cells[i].map(crossCell));
    return line;
  });
  const header = document.createElement("thead");
  header.append(head);
  const body = document.createElement("tbody");
  body.append(...lines);
  table.replaceChildren(header, body);
  table.classList.add("crosstable");
}
