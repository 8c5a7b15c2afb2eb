"""Where the material goes: the value each engine captures and loses while pieces are still
face down and after the last flip, from the game records of run folders.

Each record is replayed on its layout with the rules' own code (``banqi_engine.game``): a
ply belongs to the *face-down* phase when some piece is face down before it (a flip and a
move onto a face-down piece always do), else to the *face-up* phase, which a game reaches
with its last flip (or the move onto the last face-down piece). What a ply captures is the
value of the pieces it took out of the game (``tournaments.piece_values``): a capture, a
cannon's jump, or a move onto a face-down piece that takes it. It counts for the mover and
against the other player.

For the games that reached the face-up phase, each engine's clock and its opponent's right
after the last flip (the time a face-up endgame is played on), the plies played after it,
how those games ended (the record's reason codes), and its score in them by the material
it had at the last flip against its opponent's (``Balance``: ahead, level within
``LEVEL_MARGIN``, behind): whether it fails to win the endgames it enters ahead, or loses
those it enters level. Both sides start with the same material, so the balance at the last
flip is what each took while pieces were face down. The same games again by the Kings on the
board at the last flip (``Kings``: both, its own only, its opponent's only, neither): the King
takes every piece but a Pawn, so who still has one shapes the endgame.

A game dealt from a deal book entry with an opening (``referee.book_openings``) starts with
plies neither player chose: they count in neither phase, but what each side took in them
counts in its balance at the last flip (an opening cut at the last flip starts the game in
the face-up phase, ahead, level or behind).

Withheld records (their layout not known yet) and forfeited games (not played) are left out
and counted; a void game that was played counts, its score void.
"""

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from banqi_engine.game import Game
from banqi_engine.layout import parse_layout
from banqi_engine.notation import parse_ply
from banqi_engine.pieces import BLACK, KING, RED, make_piece
from banqi_engine.position import Position
from referee.reasons import Reason
from referee.record import GameRecord

from .piece_values import PIECE_VALUES, material_left
from .results import Record
from .run_records import run_records

_FROZEN = ConfigDict(frozen=True, extra="forbid")

LEVEL_MARGIN = 1.0
"""At the last flip, an engine is level when its material and its opponent's differ by at
most this (a Pawn), ahead or behind beyond it."""


class Balance(StrEnum):
    """An engine's material against its opponent's at the last flip."""

    AHEAD = "ahead"
    LEVEL = "level"
    BEHIND = "behind"

    @classmethod
    def of(cls, net: float) -> "Balance":
        """The balance of an engine that has ``net`` more material than its opponent."""
        if net > LEVEL_MARGIN:
            return cls.AHEAD
        if net < -LEVEL_MARGIN:
            return cls.BEHIND
        return cls.LEVEL


class Phase(StrEnum):
    """A part of a game: while some piece is face down, and after the last flip."""

    FACE_DOWN = "face-down"
    FACE_UP = "face-up"


class Kings(StrEnum):
    """Whose Kings are on the board at the last flip, as one engine sees it."""

    BOTH = "both"
    OWN = "own only"
    OPPONENTS = "opponent's only"
    NEITHER = "neither"

    @classmethod
    def of(cls, own: bool, opponents: bool) -> "Kings":
        """The case of an engine that has its King (``own``) and of its opponent."""
        if own:
            return cls.BOTH if opponents else cls.OWN
        return cls.OPPONENTS if opponents else cls.NEITHER


@dataclass(frozen=True)
class GameMaterial:
    """One game's captures: the value each seat took in each phase, and whether the game
    reached the face-up phase."""

    taken: Mapping[Phase, tuple[float, float]]
    reached_face_up: bool
    clocks_at_last_flip_ms: tuple[int, int] | None = None
    """Both seats' clocks right after the last flip (None: the game did not reach it)."""
    face_up_plies: int = 0
    """Plies played after the last flip."""
    opening_taken: tuple[float, float] = (0.0, 0.0)
    """The value each seat's side took in the deal's opening (played by neither player)."""
    kings_at_last_flip: tuple[bool, bool] = (False, False)
    """Whether each seat's King is on the board right after the last flip."""


def game_material(record: GameRecord) -> GameMaterial:
    """The captures of the game of a complete record whose plies replay (``referee.replay``);
    the plies of its deal's opening count in neither phase, as neither player played them."""
    if record.layout is None:
        raise ValueError(f"record {record.game_id} is withheld: its layout is not known yet")
    layout = parse_layout(record.layout)
    game = Game(record.rules)
    taken = {phase: [0.0, 0.0] for phase in Phase}
    opening_taken = [0.0, 0.0]
    clocks: tuple[int, int] | None = None
    kings = (False, False)
    face_up_plies = 0
    for number, ply in enumerate(record.plies):
        phase = Phase.FACE_DOWN if game.position.hidden else Phase.FACE_UP
        before = material_left(game.position)
        move = parse_ply(ply.move).move
        game.play(move, game.piece_shown(move, layout))
        gain = before - material_left(game.position)
        if number < record.opening_plies:  # the deal's opening is played by neither player
            opening_taken[ply.player] += gain
        else:
            taken[phase][ply.player] += gain
            if phase is Phase.FACE_UP:
                face_up_plies += 1
        if phase is Phase.FACE_DOWN and not game.position.hidden:
            clocks = ply.clocks_ms
            kings = (_has_king(game.position, record, 0), _has_king(game.position, record, 1))
    return GameMaterial(
        taken={phase: (seats[0], seats[1]) for phase, seats in taken.items()},
        reached_face_up=not game.position.hidden,
        clocks_at_last_flip_ms=clocks,
        face_up_plies=face_up_plies,
        opening_taken=(opening_taken[0], opening_taken[1]),
        kings_at_last_flip=kings,
    )


def _has_king(position: Position, record: GameRecord, seat: int) -> bool:
    """Whether the King of the player in ``seat`` is on the board of ``position``."""
    colour = record.players[seat].colour
    if colour is None:
        return False
    return make_piece(RED if colour == "red" else BLACK, KING) in position.board


class PhaseFigures(BaseModel):
    """One engine's captures in one phase, over the games that reached the phase."""

    model_config = _FROZEN

    games: int = Field(ge=0, description="Games that reached the phase.")
    taken: float = Field(description="Value the engine captured in the phase, all games.")
    lost: float = Field(description="Value captured from it in the phase, all games.")
    taken_per_game: float | None = Field(description="taken / games (null: no game).")
    lost_per_game: float | None = Field(description="lost / games (null: no game).")
    net_per_game: float | None = Field(description="(taken - lost) / games (null: no game).")
    net_error: float | None = Field(
        description="Standard error of net_per_game: the standard deviation of the games' "
        "nets over the square root of games (null under 2 games)."
    )


class EngineMaterial(BaseModel):
    """One engine's captures by phase, and the score of its games that reached the
    face-up phase."""

    model_config = _FROZEN

    name: str
    games: int = Field(ge=0, description="Its games counted (every one has a face-down phase).")
    face_down: PhaseFigures
    face_up: PhaseFigures
    face_up_score: Record = Field(description="W-D-L (and void) of its face-up games.")
    clock_at_last_flip: float | None = Field(
        description="Mean seconds on its clock right after the last flip, over its face-up "
        "games (null: none)."
    )
    opponent_clock_at_last_flip: float | None = Field(
        description="The same for its opponents' clocks (null: none)."
    )
    face_up_plies: float | None = Field(
        description="Mean plies played after the last flip, over its face-up games (null: none)."
    )
    face_up_endings: dict[str, int] = Field(
        description="How its face-up games ended: the count of each reason code."
    )
    face_up_by_balance: dict[Balance, Record] = Field(
        description="W-D-L of its face-up games by its material against its opponent's at "
        "the last flip: ahead or behind by more than a Pawn, else level (every key present)."
    )
    face_up_by_kings: dict[Kings, Record] = Field(
        description="W-D-L of its face-up games by the Kings on the board at the last flip: "
        "both, its own only, its opponent's only, neither (every key present)."
    )


class LeftOut(BaseModel):
    """Records not counted, and why."""

    model_config = _FROZEN

    withheld: int = Field(
        default=0, ge=0, description="Withheld: another game of the deal has not ended."
    )
    forfeited: int = Field(default=0, ge=0, description="Forfeited without play.")


class MaterialByPhase(BaseModel):
    """Where the material goes, per engine: ``banqi phases --json``."""

    model_config = _FROZEN

    folders: list[str] = Field(description="The run folders read, in the order given.")
    piece_values: dict[str, float] = Field(description="The value of each kind, by letter.")
    games: int = Field(ge=0, description="Games counted.")
    left_out: LeftOut
    engines: list[EngineMaterial] = Field(description="In the order they first appear.")


@dataclass
class _Tally:
    """One engine's captures, game by game, while they are gathered."""

    taken: dict[Phase, list[float]] = field(default_factory=lambda: {p: [] for p in Phase})
    lost: dict[Phase, list[float]] = field(default_factory=lambda: {p: [] for p in Phase})
    points: list[float | None] = field(default_factory=list)
    """Points of each face-up game (None: void)."""
    clocks_ms: list[int] = field(default_factory=list)
    opponent_clocks_ms: list[int] = field(default_factory=list)
    face_up_plies: list[int] = field(default_factory=list)
    endings: dict[str, int] = field(default_factory=dict)
    """Of each face-up game: the clocks at the last flip, the plies after it, the reason."""
    balances: list[Balance] = field(default_factory=list)
    """Of each face-up game (as ``points``): the engine's material against its opponent's at
    the last flip."""
    kings: list[Kings] = field(default_factory=list)
    """Of each face-up game (as ``points``): the Kings on the board at the last flip."""

    def figures(self, phase: Phase) -> PhaseFigures:
        taken, lost = self.taken[phase], self.lost[phase]
        games = len(taken)
        nets = [t - lo for t, lo in zip(taken, lost, strict=True)]

        def per_game(values: list[float]) -> float | None:
            return sum(values) / games if games else None

        error = statistics.stdev(nets) / math.sqrt(games) if games > 1 else None
        return PhaseFigures(
            games=games,
            taken=sum(taken),
            lost=sum(lost),
            taken_per_game=per_game(taken),
            lost_per_game=per_game(lost),
            net_per_game=per_game(nets),
            net_error=error,
        )

    def face_up_game(
        self, material: GameMaterial, seat: int, reason: Reason, points: float | None
    ) -> None:
        """Count a game that reached the face-up phase, the engine in ``seat`` with
        ``points`` (None: void)."""
        self.points.append(points)
        down, opening = material.taken[Phase.FACE_DOWN], material.opening_taken
        ahead = down[seat] + opening[seat] - down[1 - seat] - opening[1 - seat]
        self.balances.append(Balance.of(ahead))
        own = material.kings_at_last_flip
        self.kings.append(Kings.of(own[seat], own[1 - seat]))
        if material.clocks_at_last_flip_ms is not None:
            self.clocks_ms.append(material.clocks_at_last_flip_ms[seat])
            self.opponent_clocks_ms.append(material.clocks_at_last_flip_ms[1 - seat])
        self.face_up_plies.append(material.face_up_plies)
        self.endings[reason.value] = self.endings.get(reason.value, 0) + 1

    def score(self, case: Balance | Kings | None = None) -> Record:
        """W-D-L of its face-up games, or of those it entered in ``case``."""
        points = [
            p
            for p, b, k in zip(self.points, self.balances, self.kings, strict=True)
            if case is None or case is b or case is k
        ]
        return Record(
            wins=points.count(1.0),
            draws=points.count(0.5),
            losses=points.count(0.0),
            void=points.count(None),
        )


def _mean_seconds(values_ms: Sequence[int]) -> float | None:
    return statistics.fmean(values_ms) / 1000 if values_ms else None


def material_by_phase(records: Sequence[GameRecord], folders: Sequence[Path]) -> MaterialByPhase:
    """The figures of ``records`` (read from ``folders``), per engine by its player name."""
    tallies: dict[str, _Tally] = {}
    withheld = forfeited = 0
    for record in records:
        if record.withheld:
            withheld += 1
            continue
        if record.reason is Reason.FORFEIT:
            forfeited += 1
            continue
        material = game_material(record)
        for seat, player in enumerate(record.players):
            tally = tallies.setdefault(player.name, _Tally())
            for phase in Phase:
                if phase is Phase.FACE_UP and not material.reached_face_up:
                    continue
                tally.taken[phase].append(material.taken[phase][seat])
                tally.lost[phase].append(material.taken[phase][1 - seat])
            if material.reached_face_up:
                points = None if record.void else record.points(seat)
                tally.face_up_game(material, seat, record.reason, points)
    engines = [
        EngineMaterial(
            name=name,
            games=len(tally.taken[Phase.FACE_DOWN]),
            face_down=tally.figures(Phase.FACE_DOWN),
            face_up=tally.figures(Phase.FACE_UP),
            face_up_score=tally.score(),
            clock_at_last_flip=_mean_seconds(tally.clocks_ms),
            opponent_clock_at_last_flip=_mean_seconds(tally.opponent_clocks_ms),
            face_up_plies=statistics.fmean(tally.face_up_plies) if tally.face_up_plies else None,
            face_up_endings=dict(sorted(tally.endings.items())),
            face_up_by_balance={balance: tally.score(balance) for balance in Balance},
            face_up_by_kings={kings: tally.score(kings) for kings in Kings},
        )
        for name, tally in tallies.items()
    ]
    return MaterialByPhase(
        folders=[str(folder) for folder in folders],
        piece_values=dict(PIECE_VALUES),
        games=len(records) - withheld - forfeited,
        left_out=LeftOut(withheld=withheld, forfeited=forfeited),
        engines=engines,
    )


def phase_report(folders: Sequence[Path]) -> MaterialByPhase:
    """The figures of every record of the run ``folders`` (``tournaments.run_records``:
    RunRecordsError names a folder or record they cannot be computed from)."""
    return material_by_phase([found.record for found in run_records(folders)], folders)
