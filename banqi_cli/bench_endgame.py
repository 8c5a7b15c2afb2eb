"""``banqi bench endgame``: build endgame tables and print their counts and build times."""

import time

import click

from banqi_engine.endgame import EndgameTables, material_name, parse_material
from banqi_engine.endgame_build import Material
from banqi_engine.errors import RulesInputError
from banqi_engine.rules import RuleSet

from .game_options import rules_option

DEFAULT_MATERIALS = ("KvP", "KPvG", "CvNP", "KPvGP", "RNvCP", "KCvGP")


def _material(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> list[Material]:
    try:
        return [parse_material(value) for value in values or DEFAULT_MATERIALS]
    except RulesInputError as error:
        raise click.BadParameter(str(error), ctx, param) from None


@click.command("endgame")
@rules_option
@click.option(
    "--material",
    "materials",
    multiple=True,
    callback=_material,
    help=f"A material like KPvG (red kinds, v, black kinds); repeatable. "
    f"Default: {', '.join(DEFAULT_MATERIALS)}.",
)
def bench_endgame_command(rules: RuleSet, materials: list[Material]) -> None:
    """Build the endgame tables of each material (and those it captures into) from scratch.

    Per material: positions (both sides to move), wins/draws/losses for the side to
    move, the longest win in plies, the seconds for its own table and with the tables
    one or more captures away.
    """
    for material in materials:
        tables = EndgameTables(rules)
        start = time.perf_counter()
        try:
            tables.build(material)
        except RulesInputError as error:
            raise click.ClickException(str(error)) from None
        total = time.perf_counter() - start
        stats = tables.built(material)
        assert stats is not None
        click.echo(
            f"{rules.name:<22} {material_name(material):<7} {stats.positions:>10,} positions  "
            f"W {stats.wins:>9,} D {stats.draws:>9,} L {stats.losses:>9,}  "
            f"longest win {stats.longest_win:>3} plies  "
            f"{stats.seconds:6.2f}s own  {total:6.2f}s with its captures"
        )
