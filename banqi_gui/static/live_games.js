// Games being played: the one picked drawn large (as the play and replay boards are), and
// every game as a small board in a grid, each a link that picks it.
//
// A game is a live board as the server sends it (watch.live_board): game_id, players,
// colours, rules, board, plies, to_move, last, captured, clocks_ms, problem, and
// seconds_since_update where the clock of the side to move may be run on here.

import { animatePly, drawBoard, plyWords } from "./board.js";
import { buildSeats, drawSeats } from "./seats.js";

const TICK_MS = 250;

export class LiveGames {
  // ``table``: the element the picked game is drawn in (a .table, fitted by layout.js);
  // ``grid``: where the small boards go; ``href(id)``: the address that picks a game.
  constructor(table, grid, href, prefix) {
    this.table = table;
    this.grid = grid;
    this.href = href;
    this.title = document.createElement("h2");
    this.title.className = "game-title";
    this.title.id = `${prefix}-title`;
    table.append(this.title);
    this.parts = buildSeats(table, prefix);
    this.status = document.createElement("p");
    this.status.className = "status";
    this.status.id = `${prefix}-status`;
    this.status.setAttribute("aria-live", "polite");
    table.append(this.status);
    this.game = null;
    this.received = 0;
    this.timer = null;
  }

  // Draw ``games``; the one whose id is ``wanted`` large (the first if it is not among
  // them). Returns the id of the game drawn large, or null when none is being played.
  update(games, wanted) {
    const picked = games.find((game) => game.game_id === wanted) || games[0] || null;
    this.drawGrid(games, picked);
    this.table.hidden = !picked;
    this.drawPicked(picked);
    return picked ? picked.game_id : null;
  }

  drawPicked(game) {
    const before = this.game;
    this.game = game;
    this.received = performance.now();
    this.stopClock();
    if (!game) return;
    const same = before && before.game_id === game.game_id;
    this.table.dataset.game = game.game_id;
    this.table.dataset.plies = game.plies.length;
    this.title.textContent = `${game.game_id} · ${game.rules}`;
    drawBoard(this.parts.board, game.board, { last: game.last });
    if (same && game.plies.length === before.plies.length + 1) {
      animatePly(this.parts.board, game.last);
    }
    const count = game.plies.length;
    const last = count ? game.plies[count - 1] : null;
    const said =
      (last ? `ply ${count}: ${plyWords(last, game.board)}` : "no ply yet") +
      (game.withheld ? " · pieces hidden until the other game of its deal ends" : "") +
      (game.problem ? ` (${game.problem})` : "");
    if (this.status.textContent !== said) this.status.textContent = said; // a live region
    this.drawClocks();
    if (game.seconds_since_update !== undefined && !game.problem) {
      this.timer = setInterval(() => this.drawClocks(), TICK_MS);
    }
  }

  // The bars and strips; the clock of the side to move run on from the last ply's.
  drawClocks() {
    const game = this.game;
    const clocks = [...game.clocks_ms];
    if (game.seconds_since_update !== undefined && !game.problem) {
      const since = game.seconds_since_update * 1000 + performance.now() - this.received;
      clocks[game.to_move] -= since;
    }
    drawSeats(this.parts, {
      players: game.players,
      colours: game.colours,
      clocks,
      toMove: game.to_move,
      captured: game.captured,
    });
  }

  stopClock() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  drawGrid(games, picked) {
    const cards = new Map([...this.grid.children].map((card) => [card.dataset.game, card]));
    for (const game of games) {
      const card = cards.get(game.game_id) || makeCard(game.game_id);
      card.href = this.href(game.game_id); // its run's, which may have changed
      cards.delete(game.game_id);
      this.grid.append(card); // in the order given
      const [players, board, plies] = card.children;
      players.replaceChildren(...game.players.map(playerLine));
      drawBoard(board, game.board, { last: game.last });
      plies.textContent = `${game.game_id} · ${game.plies.length} plies`;
      card.dataset.plies = game.plies.length;
      card.setAttribute(
        "aria-label",
        `${game.game_id}: ${game.players[0]} against ${game.players[1]}, ` +
          `${game.plies.length} plies`,
      );
      if (picked && picked.game_id === game.game_id) card.setAttribute("aria-current", "true");
      else card.removeAttribute("aria-current");
    }
    for (const card of cards.values()) card.remove();
  }
}

function playerLine(name) {
  const line = document.createElement("span");
  line.textContent = name;
  return line;
}

function makeCard(gameId) {
  const card = document.createElement("a");
  card.className = "thumb";
  card.dataset.game = gameId;
  const players = document.createElement("span");
  players.className = "thumb-players";
  const board = document.createElement("div");
  board.className = "board thumb-board";
  board.setAttribute("aria-hidden", "true");
  const plies = document.createElement("span");
  plies.className = "thumb-plies";
  card.append(players, board, plies);
  return card;
}
