"""Card-counting inputs on Scum Party's size-generic layout (``--features counts`` with ``sizes``).

A Party table's decks depend on its size (scum-party.txt, "The Cards"; P1:
two decks at 5-8 players, three at 9-12, four at 13-15), so one network that
sits at every table must count each row against its own table's deck.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from cardsuite.agents.base import table_info
from cardsuite.agents.learned.layout import generic_spec, pad_observation
from cardsuite.agents.learned.netspec import obs_scale
from cardsuite.agents.learned.size_generic import SizeGenericAgent
from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from cardsuite.train.core.games import train_game
from cardsuite.train.core.learned import table_features
from cardsuite.train.ppo.config import PPOConfig
from cardsuite.train.ppo.trainer import train
from tests.train.test_count_inputs import assert_tampered_features_refused

GAME = "scum_party"


def _generic_counts() -> object:
    game = train_game(GAME)
    eng = game.make_engine(1, game.config(5, {}))
    return table_features("counts", game, eng, 5, obs_scale(generic_spec(GAME)), generic=GAME)


def _played_into(players: int, steps: int = 40) -> tuple:
    """A batch of Party tables ``steps`` heuristic moves into the first hand."""
    game = train_game(GAME)
    eng = game.make_engine(4, game.config(players, {}))
    obs, mask, _ = eng.reset(3)
    heuristic = game.heuristic(eng)
    for _ in range(steps):
        res = eng.step(heuristic(obs, mask))
        obs, mask = res.obs, res.mask
    return game, eng, np.asarray(obs, np.float32)


@pytest.mark.parametrize("players", [5, 8, 20, 50])
def test_generic_counts_are_each_tables_own_counts(players: int) -> None:
    """Differential: on real states of 1 to 4 tables (tables of 10 at 20 players, of 12 and 13
    at 50: P2), the generic features count what the table's own layout counts (P1)."""
    game, eng, raw = _played_into(players)
    generic = _generic_counts()
    table = table_features("counts", game, eng, players, obs_scale(eng.obs_spec))
    assert table is not None and generic is not None
    mine = generic(pad_observation(raw, eng.obs_spec, GAME) * obs_scale(generic_spec(GAME)))
    theirs = table(raw * obs_scale(eng.obs_spec))
    r = len(table.deck)
    # counts blocks are divided by the largest deck of each layout; compare in cards
    np.testing.assert_array_equal(mine[:, : 2 * r] * max(generic.deck),
                                  theirs[:, : 2 * r] * max(table.deck))  # fmt: skip
    np.testing.assert_array_equal(mine[:, 2 * r :], theirs[:, 2 * r :])
    assert mine[:, :r].sum() > 0  # cards are out: the comparison is not of zeros


def test_scripted_rows_count_against_their_own_tables_deck() -> None:
    """Hand: 2 fives; played: 3 fives and every Joker but one. At a 13-seat table (four
    decks: 16 fives, 8 Jokers) 11 fives are out; at a 9-seat table (three decks) 7; at
    a 5-seat one (two decks) 3, and one Joker is out at each (P1)."""
    spec = generic_spec(GAME)
    sl = spec.slices
    raw = np.zeros((3, spec.size), np.float32)
    jokers_of = {13: 8, 9: 6, 5: 4}  # four, three and two decks
    for row, (seats, jokers) in enumerate(jokers_of.items()):
        raw[row, sl["seats"].start : sl["seats"].start + seats] = 1
        raw[row, sl["hand"].start + 3] = 2
        raw[row, sl["played"].start + 3] = 3
        raw[row, sl["played"].start + 13] = jokers - 1
    feats = _generic_counts()
    assert feats is not None
    out, _sup, spec_above, _boss = np.split(feats(raw * obs_scale(spec)), 4, axis=1)
    np.testing.assert_array_equal(out[:, 3] * 16, [11, 7, 3])
    np.testing.assert_array_equal(out[:, 13] * 16, [1, 1, 1])
    np.testing.assert_array_equal(out[:, 0] * 16, [16, 12, 8])  # nothing of rank 0 seen
    assert spec_above[:, 3].all()  # the Joker still out beats the fives


def _tiny(run_dir: Path) -> PPOConfig:
    return PPOConfig(
        game=GAME, sizes="5,20", features="counts", num_games=4, rollout_steps=8,
        total_steps=200, hidden=16, layers=1, eval_deals=2, eval_every=0, snapshot_every=0,
        checkpoint_every=0, tensorboard=False, quiet=True, threads=1, self_play=0.0,
        baselines="heuristic", eval_against="heuristic", bc_steps=1200, bc_games=4,
        bc_epochs=1, bc_dagger=1, run_dir=str(run_dir),
    )  # fmt: skip


@pytest.fixture(scope="module")
def generic_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny size-generic Party run with counting inputs and a DAgger round."""
    run = tmp_path_factory.mktemp("generic_counts") / "run"
    train(_tiny(run))
    return run


@pytest.mark.parametrize("players", [8, 50])
def test_the_saved_generic_agent_plays_what_the_trainer_trained(
    generic_run: Path, players: int
) -> None:
    """Differential: at a table size it never trained at, the numpy agent's logits are the
    torch network's on the padded, scaled observation with its counting inputs."""
    from cardsuite.train.ppo.network import load_network

    doc = json.loads((generic_run / "agent" / "agent.json").read_text())
    assert doc["network"]["layout"] == "generic"
    assert [n for n, _ in doc["network"]["features"]["sized"]] == list(range(5, 16))
    agent = SizeGenericAgent.load(generic_run / "agent")
    assert agent.meta.network.features == _generic_counts()
    _game, eng, raw = _played_into(players)
    env = get_game(GAME).make(num_players=players)
    env.reset(seed=0)
    agent.reset(table_info(env, GAME, env.agent_selection))
    assert env.unwrapped.obs_spec.size == eng.obs_spec.size
    net, _ = load_network(generic_run / "agent")
    x = pad_observation(raw, eng.obs_spec, GAME) * obs_scale(generic_spec(GAME))
    with torch.no_grad():
        want = net.actor(net.inputs(torch.from_numpy(x.astype(np.float32)))).numpy()
    got = agent.logits(raw * obs_scale(eng.obs_spec))
    np.testing.assert_allclose(got, want[:, : eng.num_actions], atol=1e-5)


def test_a_tampered_sized_entry_is_refused_naming_it(generic_run: Path, tmp_path: Path) -> None:
    cases = {
        "network.features.seats": lambda f: f.pop("seats"),
        "network.features.sized": lambda f: f.update(sized=f["sized"][::-1]),
        "network.features.seats_scale": lambda f: f.update(seats_scale="1"),
    }
    assert_tampered_features_refused(generic_run / "agent", tmp_path, cases, SizeGenericAgent.load)


def test_generic_counts_are_refused_where_the_game_has_no_deck_counts() -> None:
    with pytest.raises(ConfigError, match="features"):
        PPOConfig(game="scandal", sizes="2,4", snapshot_every=0, features="counts")
