"""A tournament's pairs: both games of a pair are dealt one layout, with the seats swapped."""

import contextlib
import shlex
from collections import defaultdict
from pathlib import Path

from click.testing import CliRunner
from referee_fakes import Fake, running_scripts, write_fake

from banqi_cli.main import cli
from referee.engine_spec import EngineSpec
from referee.game_setup import deal_secret_of
from referee.record import GameRecord, read_record
from tournaments.config import TournamentConfig
from tournaments.schedule import schedule

KEY = b"k" * 32


def engine(name: str) -> EngineSpec:
    return EngineSpec(name=name, command=(name,))


def test_the_games_of_a_pair_share_their_deal_and_swap_who_moves_first() -> None:
    config = TournamentConfig(engines=(engine("a"), engine("b"), engine("c")), rounds=2)
    games = list(schedule(config, 5))
    assert len(games) == config.games_total() == 12
    pairs = defaultdict(list)
    for game in games:
        pairs[game.pair_id].append(game)
    assert len(pairs) == 6
    for pair_id, (one, two) in pairs.items():
        assert one.engines == two.engines, pair_id
        assert one.setup.deal == two.setup.deal, pair_id
        assert deal_secret_of(one.setup, KEY) == deal_secret_of(two.setup, KEY), pair_id
        movers = {game.setup.players[game.setup.first].name for game in (one, two)}
        names = {config.engines[index].name for index in one.engines}
        assert movers == names, pair_id
    assert len({deal_secret_of(game.setup, KEY) for game in games}) == 6


RESIGNS_AT_ITS_SECOND_MOVE = """
def on_genmove(i, words):
    reply(i, "a0 a0" if genmoves >= 2 else choose(words[2]))
"""


def first_mover(record: GameRecord) -> str:
    """Who played the first ply, by the plies themselves."""
    return record.players[record.plies[0].player].name


def test_in_a_real_tournament_each_engine_moves_first_once_on_the_same_layout(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    alpha = write_fake(tmp_path / "engines", "alpha", RESIGNS_AT_ITS_SECOND_MOVE)
    beta = write_fake(tmp_path / "engines", "beta", RESIGNS_AT_ITS_SECOND_MOVE)
    fakes += [alpha, beta]
    key = tmp_path / "referee.key"
    key.write_bytes(bytes(range(32)))
    out = tmp_path / "run"
    flags = [f"--engine={fake.name}={shlex.join(fake.command)}" for fake in (alpha, beta)]
    arguments = ["--rounds", "1", "--rules", "casual", "--seed", "9", "--quiet"]
    with contextlib.chdir(tmp_path / "engines"):  # the fakes write their notes there
        result = CliRunner().invoke(
            cli, ["tournament", *flags, *arguments, "--key-file", str(key), "--out", str(out)]
        )
    assert result.exit_code == 0, result.output

    records = [read_record(path) for path in sorted((out / "games").glob("*.json"))]
    assert len(records) == 2
    by_deal = defaultdict(list)
    for record in records:
        assert len(record.plies) == 2, record.result
        assert first_mover(record) == record.players[record.first].name
        by_deal[record.deal].append(record)
    [(one, two)] = by_deal.values()
    assert {first_mover(one), first_mover(two)} == {"alpha", "beta"}
    assert one.layout == two.layout
    assert one.deal_secret == two.deal_secret
    assert running_scripts([alpha, beta]) == []
