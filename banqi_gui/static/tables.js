// Plain tables of the event's pages: a header row and rows of cells, each cell text or
// elements (links, buttons); numbers right-aligned.

// An entrant's state, in words.
export const STATE_WORDS = {
  playing: "playing",
  waiting: "waiting for its connection",
  idle: "between games",
  paused: "paused by the organiser",
  forfeited: "forfeited: out of the event for good",
  out: "out of the event (too many faults)",
};

export function link(href, words, attributes = {}) {
  const anchor = document.createElement("a");
  anchor.href = href;
  anchor.textContent = words;
  for (const [name, value] of Object.entries(attributes)) anchor.setAttribute(name, value);
  return anchor;
}

// ``headers``: the column titles; ``rows``: lists of cells (a string, a number, a Node or a
// list of them). The first cell of a row heads it. Cells that are the same as before are
// kept, so that a button is not replaced under the pointer by an update that left it be.
export function fillTable(table, headers, rows) {
  const head = document.createElement("thead");
  const line = document.createElement("tr");
  for (const words of headers) {
    const cell = document.createElement("th");
    cell.scope = "col";
    cell.textContent = words;
    line.append(cell);
  }
  head.append(line);
  const body = document.createElement("tbody");
  for (const row of rows) {
    const tr = document.createElement("tr");
    row.forEach((value, index) => {
      const cell = document.createElement(index === 0 ? "th" : "td");
      if (index === 0) cell.scope = "row";
      if (typeof value === "number") cell.className = "number";
      const parts = Array.isArray(value) ? value : [value];
      cell.append(...parts.map((part) => (part instanceof Node ? part : String(part ?? ""))));
      tr.append(cell);
    });
    body.append(tr);
  }
  keepSame(table, head, body);
}

function keepSame(table, head, body) {
  const [oldHead, oldBody] = [table.tHead, table.tBodies[0]];
  if (!oldHead || !oldBody) {
    table.replaceChildren(head, body);
    return;
  }
  if (oldHead.outerHTML !== head.outerHTML) oldHead.replaceWith(head);
  const had = [...oldBody.rows];
  const fresh = [...body.rows];
  fresh.forEach((row, i) => {
    const before = had[i];
    if (!before) {
      oldBody.append(row);
      return;
    }
    [...row.cells].forEach((cell, j) => {
      const was = before.cells[j];
      if (!was) before.append(cell);
      else if (was.outerHTML !== cell.outerHTML) was.replaceWith(cell);
    });
    while (before.cells.length > row.cells.length) before.lastElementChild.remove();
  });
  for (const extra of had.slice(fresh.length)) extra.remove();
}
