"""banqi_engine: the rules of Chinese Dark Chess and a player that speaks them.

The rules live here and nowhere else: rule sets, positions, move generation,
the end of a game, perft. The referee, the protocol and the tests all use them.
Above the rules, the players: random, greedy and the search (levels 0 to 3).

The rules:

- ``squares``: ``Square``, ``Bitboard`` and the board's geometry tables.
- ``pieces``: ``Colour``, ``Kind``, ``Piece``, ``SquareState`` and their letters.
- ``moves``: move codes, one int per action (``from << 5 | to``; a flip has from == to).
- ``position``: a position as one side sees it: board, face-down pool, side to move, counters.
- ``rules``: rule sets as data: the validated model, the presets, loading from files.
- ``movegen``: legal-move generation for every rule set, and the one-ply leaf count.
- ``movegen_tables``: the bitboard tables and masks that move generation and counting share.
- ``game``: a game in progress: plies checked and applied, history, the end.
- ``notation``: move strings (``a2-a3``, ``b6(K)``, ``a2-a3(k)``).
- ``layout``: the hidden layout, which piece lies under each face-down square.
- ``perft``: leaf counts of the game tree, to check move generation.
- ``two_ply_count``: perft 2 counted without making any move.
- ``bits``: the hot loops' bit tricks (lowest square, square count); C versions in ``cbits.pxd``.
- ``errors``: ``RulesInputError`` (``PositionError``, ``MoveError``, ``RulesError``), bad
  input to the rules.

The players and the search:

- ``players``: the player interface; level 0 (``RandomPlayer``) and level 1 (``GreedyPlayer``).
- ``search_player``: levels 2 and 3, a ``Searcher`` within a time budget or on a clock.
- ``search``: iterative-deepening alpha-beta with chance nodes for flips.
- ``search_config``: the search's feature switches, so a benchmark can turn one off.
- ``search_flips``: which flips the search tries, ranked.
- ``transposition``: the transposition table's keys, entry flags and mate scores.
- ``eval_params``: the evaluation's weights, one validated model with a tuner's bounds.
- ``evaluation``: piece values by what is left, and the static evaluation.
- ``evaluation_tactics``: threats, protection and trapped pieces for the evaluation.
- ``endgame``: exact endgame tables, built on the fly by retrograde analysis.
- ``endgame_build``: the retrograde analysis of one material.
- ``endgame_bits``: sets of endgame positions as Python ints, one bit per placement.
- ``time_manager``: a soft target and a hard limit for each move from the clock.
- ``speed_bench``: perft and search speed on one fixed list of positions.

The build:

- ``core_modules``: the modules of the compiled core, and the stamp of what it was built from.
- ``core_build``: which core runs, compiled or pure Python (``BANQI_PURE=1``), and why.
"""

# Chosen before any core module is imported: the import hook for a pure core must come first.
from .core_build import CORE_BUILD as CORE_BUILD
