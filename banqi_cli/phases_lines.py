"""The lines ``banqi phases`` prints: what was read, the captures by phase, the face-up games."""

from collections.abc import Mapping

from tournaments.phase_material import Balance, Kings, MaterialByPhase, PhaseFigures
from tournaments.piece_values import values_text
from tournaments.report_tables import Table
from tournaments.reports import aligned_lines
from tournaments.results import Record

from .words import counted

CAPTURES_NOTE = (
    "Value captured by the engine (Taken) and from it (Lost) in each phase: while some piece "
    "is face down, and after the last flip (face up); per game over the games that reached "
    "the phase. Net: taken minus lost per game, SE its standard error."
)
FACE_UP_NOTE = (
    "How many of its games reached the face-up phase, and its score in those; its clock and "
    "its opponent's right after the last flip (mean seconds), the plies played after it "
    "(mean), and how those games ended (reason codes, see banqi reasons)."
)

BALANCE_NOTE = (
    "Its face-up games by its material against its opponent's at the last flip (what each "
    "took while pieces were face down, a deal's opening included): ahead or behind by more "
    "than a Pawn, else level; its W-D-L and score in each (a void game counts in none)."
)
KINGS_NOTE = (
    "Its face-up games by the Kings on the board at the last flip: both, its own only, its "
    "opponent's only, neither; its W-D-L and score in each (a void game counts in none)."
)


def phase_lines(report: MaterialByPhase) -> list[str]:
    """The whole text report: header, the captures table, the face-up games table."""
    lines = [
        f"material by phase in {counted(report.games, 'game')} of "
        f"{', '.join(report.folders)}; piece values {values_text()}"
    ]
    left_out = []
    if report.left_out.withheld:
        left_out.append(
            f"{counted(report.left_out.withheld, 'withheld record')} (a game of its deal "
            "has not ended)"
        )
    if report.left_out.forfeited:
        left_out.append(f"{counted(report.left_out.forfeited, 'forfeited game')} (not played)")
    if left_out:
        lines.append("left out: " + ", ".join(left_out))
    tables = [_captures_table(report), _face_up_table(report)]
    tables += [_balance_table(report), _kings_table(report)]
    for table in tables:
        lines += ["", table.title, table.note, ""]
        lines += aligned_lines(table) if table.rows else ["(none)"]
    return lines


def _number(value: float | None, sign: bool = False) -> str:
    if value is None:
        return "-"
    return f"{round(value, 2) + 0.0:{'+' if sign else ''}.2f}"


def _phase_cells(figures: PhaseFigures) -> list[str]:
    return [
        str(figures.games),
        f"{figures.taken:.1f}",
        f"{figures.lost:.1f}",
        _number(figures.taken_per_game),
        _number(figures.lost_per_game),
        _number(figures.net_per_game, sign=True),
        _number(figures.net_error),
    ]


def _captures_table(report: MaterialByPhase) -> Table:
    rows = []
    for engine in report.engines:
        rows.append([engine.name, "face down", *_phase_cells(engine.face_down)])
        rows.append(["", "face up", *_phase_cells(engine.face_up)])
    headers = ["Engine", "Phase", "Games", "Taken", "Lost", "Taken/game", "Lost/game"]
    headers += ["Net/game", "SE"]
    return Table(
        title="Captures by phase",
        note=CAPTURES_NOTE,
        headers=headers,
        right=[False, False] + [True] * (len(headers) - 2),
        rows=rows,
    )


def _with_void(report: MaterialByPhase) -> bool:
    """Whether any engine has a void face-up game (the tables then have a Void column)."""
    return any(engine.face_up_score.void for engine in report.engines)


def _score_cells(score: Record, with_void: bool) -> list[str]:
    """W, D, L (and Void) of a score."""
    cells = [str(score.wins), str(score.draws), str(score.losses)]
    return [*cells, str(score.void)] if with_void else cells


def _face_up_table(report: MaterialByPhase) -> Table:
    with_void = _with_void(report)
    rows = []
    for engine in report.engines:
        score = engine.face_up_score
        share = f"{100 * engine.face_up.games / engine.games:.0f}%" if engine.games else "-"
        cells = [engine.name, str(engine.games), str(engine.face_up.games), share]
        cells += _score_cells(score, with_void)
        cells += [
            _number(engine.clock_at_last_flip),
            _number(engine.opponent_clock_at_last_flip),
            "-" if engine.face_up_plies is None else f"{engine.face_up_plies:.0f}",
            ", ".join(f"{reason} {n}" for reason, n in engine.face_up_endings.items()) or "-",
        ]
        rows.append(cells)
    headers = [
        "Engine",
        "Games",
        "Face up",
        "Share",
        "W",
        "D",
        "L",
        *(["Void"] if with_void else []),
        "Clock",
        "Opp. clock",
        "Plies",
        "Endings",
    ]
    return Table(
        title="Games that reached the face-up phase",
        note=FACE_UP_NOTE,
        headers=headers,
        right=[False] + [True] * (len(headers) - 2) + [False],
        rows=rows,
    )


def _balance_table(report: MaterialByPhase) -> Table:
    by_engine = {engine.name: dict(engine.face_up_by_balance) for engine in report.engines}
    return _cases_table(
        report, by_engine, "Face-up games by the material at the last flip", BALANCE_NOTE
    )


def _kings_table(report: MaterialByPhase) -> Table:
    by_engine = {engine.name: dict(engine.face_up_by_kings) for engine in report.engines}
    return _cases_table(
        report, by_engine, "Face-up games by the Kings at the last flip", KINGS_NOTE
    )


def _cases_table(
    report: MaterialByPhase,
    by_engine: Mapping[str, Mapping[Balance, Record] | Mapping[Kings, Record]],
    title: str,
    note: str,
) -> Table:
    """Each engine's face-up score in each case (of the material, or of the Kings)."""
    with_void = _with_void(report)
    rows = []
    for engine, cases in by_engine.items():
        name = engine
        for case, score in cases.items():
            played = score.games - score.void
            share = f"{100 * score.points / played:.1f}%" if played else "-"
            cells = [name, case.value, str(score.games), *_score_cells(score, with_void)]
            rows.append([*cells, share])
            name = ""
    headers = ["Engine", "At the last flip", "Games", "W", "D", "L"]
    headers += ["Void", "Score"] if with_void else ["Score"]
    return Table(
        title=title,
        note=note,
        headers=headers,
        right=[False, False] + [True] * (len(headers) - 2),
        rows=rows,
    )
