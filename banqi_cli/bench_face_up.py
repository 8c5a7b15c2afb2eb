"""``banqi bench face-up``: how deep the engine sees in the face-up endgames of run records,
and how often ten times the time changes its move."""

from pathlib import Path

import click

from banqi_common.errors import InputError
from referee.reasons import Reason
from tournaments.face_up_review import ReviewedMove, band_figures, engine_seat, review_record
from tournaments.run_records import run_records

from . import output
from .param_types import FiniteFloatRange, shown_option


@click.command("face-up")
@click.argument("folders", metavar="RUN_FOLDER...", nargs=-1, required=True, type=Path)
@click.option(
    "--engine", "engine", required=True, help="The player name whose face-up moves to review."
)
@shown_option(
    "--seconds",
    type=FiniteFloatRange(min=0.001, max=60),
    default=0.04,
    help="Seconds of the short search of each position (about a move's time at 10 s a side).",
)
@shown_option(
    "--deep",
    type=FiniteFloatRange(min=1, max=1000),
    default=10.0,
    help="The deep search gets this many times --seconds.",
)
@shown_option(
    "--stride",
    type=click.IntRange(min=1),
    default=4,
    help="Review every N-th face-up move of the engine in each game.",
)
@click.option("--moves", "show_moves", is_flag=True, help="Also print every reviewed move.")
def bench_face_up_command(
    folders: tuple[Path, ...],
    engine: str,
    seconds: float,
    deep: float,
    stride: int,
    show_moves: bool,
) -> None:
    """Search the face-up positions where ENGINE was to move in the records of run folders
    again, with the full engine (level 3) for --seconds and for --deep times as long, and
    print by pieces left: positions, the depth each search reached, how often both chose
    the same move, and how often the deep search chose the move played in the game.

    Example: banqi bench face-up runs/m1 --engine ours --seconds 0.04 --deep 10
    """
    try:
        found = run_records(folders)
    except InputError as error:
        output.fail(error)
    reviewed: list[ReviewedMove] = []
    games = 0
    names: set[str] = set()
    for item in found:
        names.update(player.name for player in item.record.players)
        seat = engine_seat(item.record, engine)
        if seat is None or item.record.withheld or item.record.reason is Reason.FORFEIT:
            continue  # not played, or its layout not known yet: nothing to replay
        games += 1
        for move in review_record(item.record, seat, seconds, deep, stride):
            reviewed.append(move)
            if show_moves:
                click.echo(
                    f"{move.game_id} ply {move.ply:>3} pieces {move.pieces:>2} "
                    f"played {move.played:<6} {seconds:g}s {move.short_move:<6} "
                    f"depth {move.short_depth:>2}  {seconds * deep:g}s {move.deep_move:<6} "
                    f"depth {move.deep_depth:>2}"
                )
    if not games:
        output.fail(
            InputError(
                f"no record of {', '.join(map(str, folders))} has a player named {engine!r}; "
                f"the players are {', '.join(sorted(names))}"
            )
        )
    if not reviewed:
        output.fail(
            InputError(
                f"{engine} has no face-up move to review in {', '.join(map(str, folders))} "
                "(no game of its reached the last flip with a choice left, or --stride skips "
                "them all)"
            )
        )
    click.echo(
        f"face-up moves of {engine} in {games} games, every {stride}: "
        f"{seconds:g}s against {seconds * deep:g}s"
    )
    click.echo("pieces  positions  depth  deep depth  same move  played = deep")
    for band in band_figures(reviewed):
        click.echo(
            f"{band.low:>2}-{band.high:<3} {band.positions:>10} {band.short_depth:>6.1f} "
            f"{band.deep_depth:>11.1f} {100 * band.agreement:>9.0f}% "
            f"{100 * band.played_agreement:>13.0f}%"
        )
