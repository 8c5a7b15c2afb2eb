#!/usr/bin/env python3
"""A small, complete DCTP bot for Chinese Dark Chess (banqi): it plays legal moves.

The referee (or a GUI) starts this program and writes one command a line on stdin,
``<id> <name> [args...]``; the bot answers each with one line ``=<id> [payload]`` (or
``?<id> <reason>`` when it cannot) and flushes at once. It learns the game only from the
echoes the referee sends after every ply, its own included: ``10 move a2 a3`` and
``11 flip b6 K``. It never prints anything else on stdout; notes go to stderr.

Make it yours in ``choose_move``: it gets the board, your colour and every legal move.
"""

import random
import sys
from collections.abc import Iterator

Board = dict[str, str]  # square name -> piece letter, "X" face down, "-" empty
Move = tuple[str, str]  # (from, to); a flip is (square, square)

FILES = "abcd"
SQUARES = [f + str(r) for r in range(1, 9) for f in FILES]  # a1 b1 c1 d1 a2 ... d8
ORDER = "KGMRNCP"  # capture order, high to low; red is upper case, black lower case
VALUE = {"K": 6, "G": 5, "M": 4, "R": 3, "N": 2, "C": 4.5, "P": 1}


def neighbours(square: str) -> Iterator[str]:
    """The squares one step away along the file and the rank."""
    f, r = FILES.index(square[0]), int(square[1])
    for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if 0 <= f + df < 4 and 1 <= r + dr <= 8:
            yield FILES[f + df] + str(r + dr)


def ray(square: str, df: int, dr: int) -> Iterator[str]:
    """The squares from ``square`` (not included) to the edge of the board."""
    f, r = FILES.index(square[0]) + df, int(square[1]) + dr
    while 0 <= f < 4 and 1 <= r <= 8:
        yield FILES[f] + str(r)
        f, r = f + df, r + dr


def own(letter: str, colour: str) -> bool:
    """Whether a face-up piece letter is of ``colour`` ("red" or "black")."""
    return letter.isalpha() and letter != "X" and letter.isupper() == (colour == "red")


def takes(attacker: str, target: str) -> bool:
    """Whether a piece may capture an adjacent enemy piece by a step (Olympiad rules)."""
    a, t = attacker.upper(), target.upper()
    if a == "C":
        return False  # a cannon captures only by jumping
    if a == "K" and t == "P":
        return False
    if a == "P":
        return t in "PK"
    return ORDER.index(a) <= ORDER.index(t)


def legal_moves(board: Board, colour: str) -> list[Move]:
    """Every legal action as (from, to); a flip is (square, square)."""
    moves = [(sq, sq) for sq in SQUARES if board[sq] == "X"]
    if colour not in ("red", "black"):
        return moves  # before the first flip: flips only
    for sq in SQUARES:
        piece = board[sq]
        if not own(piece, colour):
            continue
        for to in neighbours(sq):
            there = board[to]
            if there == "-" or (there != "X" and not own(there, colour) and takes(piece, there)):
                moves.append((sq, to))
        if piece.upper() == "C":  # jump exactly one screen, any distance
            for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                screens = 0
                for to in ray(sq, df, dr):
                    if board[to] == "-":
                        continue
                    screens += 1
                    if screens == 2:
                        if board[to] != "X" and not own(board[to], colour):
                            moves.append((sq, to))
                        break
    return moves


def choose_move(board: Board, colour: str, moves: list[Move], time_left_ms: int) -> Move:
    """Pick one legal move: here the biggest capture, else a random move."""
    captures = [m for m in moves if m[0] != m[1] and board[m[1]] != "-"]
    if captures:
        return max(captures, key=lambda m: VALUE[board[m[1]].upper()])
    return random.choice(moves)


COMMANDS = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "reset_board",
    "num_repetition",
    "num_moves_to_draw",
    "move",
    "flip",
    "genmove",
    "game_over",
    "ready",
    "time_settings",
    "time_left",
    "showboard",
]


def main() -> None:
    board = dict.fromkeys(SQUARES, "X")
    clock = {"red": 900000, "black": 900000}
    for line in sys.stdin:
        words = line.split()
        if not words or not words[0].isdigit():
            continue  # not a command: ignore it
        ident, args = int(words[0]), words[2:]
        payload = ""
        if ident == 0:  # protocol_version
            payload = "1.1.0"
        elif ident == 1:  # name
            payload = "starter-bot"
        elif ident == 2:  # version
            payload = "1.0"
        elif ident == 3:  # known_command <name>
            payload = "true" if args and args[0] in COMMANDS else "false"
        elif ident == 4:  # list_commands: one name a line, the first on the =4 line
            payload = "\n".join(COMMANDS)
        elif ident == 7:  # reset_board: a new game, all 32 face down
            board = dict.fromkeys(SQUARES, "X")
        elif ident == 10:  # move <from> <to>: a move or capture was played
            board[args[1]], board[args[0]] = board[args[0]], "-"
        elif ident == 11:  # flip <square> <piece>: a flip showed that piece
            board[args[0]] = args[1]
        elif ident == 12:  # genmove red|black|unknown
            colour = args[0]
            moves = legal_moves(board, colour)
            if not moves:
                print(f"?{ident} no legal move", flush=True)
                continue
            frm, to = choose_move(board, colour, moves, clock.get(colour, 0))
            payload = f"{frm} {to}"  # a flip is "b6 b6"; "a0 a0" resigns
        elif ident == 15:  # time_settings <ms a side>
            clock = dict.fromkeys(clock, int(args[0]))
        elif ident == 16:  # time_left red|black <ms>
            clock[args[0]] = int(args[1])
        elif ident == 17:  # showboard: anything but a reply line is fine, on stderr here
            print(" ".join(board[sq] for sq in SQUARES), file=sys.stderr)
        elif ident not in (5, 6, 8, 9, 13, 14):
            print(f"?{ident} unknown command", flush=True)
            continue
        print(f"={ident} {payload}".rstrip(), flush=True)
        if ident == 5:  # quit: answered, then exit
            return


if __name__ == "__main__":
    main()
