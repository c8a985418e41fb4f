"""OpenSpiel's own algorithms on our games: its API checks, its random simulations, ISMCTS.

``pyspiel.random_sim_test`` plays random games through OpenSpiel's C++ API
checks (legal actions, chance outcomes summing to 1, clone, tensors, strings,
and with ``serialize=True`` a serialise/deserialise round trip of every
state). OpenSpiel's ISMCTS (the Python ``ISMCTSBot``: OpenSpiel's C++ bot
cannot call a Python game's ``resample_from_infostate``) with its random
rollout evaluator searches our states through ``resample_from_infostate``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardsuite.agents.external.openspiel import load_game, register
from cardsuite.errors import ConfigError

pyspiel = pytest.importorskip("pyspiel", reason="needs the openspiel extra (open-spiel)")
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402


def random_chance(state: Any, rng: np.random.Generator) -> None:
    """Resolve chance nodes by their probabilities."""
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(outcomes, p=probs)))


def test_register_names_the_three_games() -> None:
    # one adapter per game record that names one (cardsuite.games, the openspiel part)
    names = register()
    assert sorted(names) == ["cardsuite_scandal", "cardsuite_scum", "cardsuite_scum_party"]
    registered = {t.short_name for t in pyspiel.registered_games()}
    assert set(names) <= registered


@pytest.mark.parametrize(
    ("name", "params", "sims"),
    [
        ("scum", {}, 3),
        ("scum", {"players": 6, "trade": True, "trade_rules": "spanish", "carousel": True}, 2),
        ("scum_party", {"players": 6}, 1),
        ("scandal", {"players": 3, "max_turns": 40}, 1),
    ],
    ids=["scum", "scum-trade-6p", "party", "scandal"],
)
def test_random_sim_test(name: str, params: dict[str, Any], sims: int) -> None:
    game = load_game(name, **params)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_game_shape_matches_env() -> None:
    from scandal_env import scandal_v0
    from scum_env import scum_v0

    scum = load_game("scum", players=5)
    env = scum_v0.raw_env(num_players=5)
    assert scum.num_distinct_actions() == env.num_actions
    assert scum.observation_tensor_size() == env.obs_spec.size
    assert scum.num_players() == 5
    scandal = load_game("scandal")
    env2 = scandal_v0.raw_env()
    assert scandal.num_distinct_actions() == env2.num_actions
    assert scandal.observation_tensor_size() == env2.obs_spec.size


def test_bad_parameters_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="num_players"):
        load_game("scum", players=3)
    with pytest.raises(ConfigError, match="unknown OpenSpiel game"):
        load_game("hearts")
    with pytest.raises(ConfigError, match="unknown parameter 'carousell'"):
        load_game("scum", carousell=True)
    with pytest.raises(ConfigError, match="parameter players must be int, got 'x'"):
        load_game("scandal", players="x")
    with pytest.raises(ConfigError, match="parameter carousel must be bool, got 1"):
        load_game("scum", carousel=1)
    with pytest.raises(ConfigError, match="reward_scale"):
        load_game("scandal", reward_scale=0)  # an int for a float parameter is accepted
    with pytest.raises(ConfigError, match="one player's view"):
        load_game("scum").make_py_observer(
            pyspiel.IIGObservationType(
                perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
            )
        )


@pytest.mark.parametrize(
    ("name", "params"),
    [("scum", {"trade": True}), ("scandal", {"max_turns": 40}), ("scum_party", {"players": 6})],
)
def test_resample_keeps_the_player_view_and_changes_hidden_cards(
    name: str, params: dict[str, Any]
) -> None:
    """Resampling keeps the player's information state and observation; hidden cards move."""
    game = load_game(name, **params)
    rng = np.random.default_rng(3)
    state = game.new_initial_state()
    random_chance(state, rng)
    for _ in range(6):  # a few moves in
        state.apply_action(int(rng.choice(state.legal_actions())))
        random_chance(state, rng)
    player = state.current_player()
    text = hidden(state)
    changed = False
    for i in range(10):
        sample = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.observation_tensor(player) == state.observation_tensor(player)
        assert sample.legal_actions() == state.legal_actions()
        changed |= hidden(sample) != text
        if i == 0:  # the sample plays on to the end
            while not sample.is_terminal():
                random_chance(sample, rng)
                if not sample.is_terminal():
                    sample.apply_action(int(rng.choice(sample.legal_actions())))
    assert changed, "ten resamples all kept every hidden card"
    assert hidden(state) == text  # the real state is untouched


def hidden(state: Any) -> bytes:
    """Every hand of the state's engine (all tables' for Scum Party)."""
    engine = state.d.engine
    tables = getattr(engine, "tables", [engine])
    return b"".join(t.hands.tobytes() for t in tables)


def play_with_ismcts(game: Any, seat: int, sims: int, decisions: int, seed: int) -> list[float]:
    """Seat OpenSpiel's ISMCTS at ``seat`` against random players; returns or partial returns."""
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    bot = ismcts.ISMCTSBot(
        game, evaluator, uct_c=2.0, max_simulations=sims, random_state=np.random.RandomState(seed)
    )
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    made = 0
    while not state.is_terminal() and made < decisions:
        random_chance(state, rng)
        if state.is_terminal():
            break
        legal = state.legal_actions()
        if state.current_player() == seat:
            action = int(bot.step(state))
            made += 1
        else:
            action = int(rng.choice(legal))
        assert action in legal
        state.apply_action(action)
    return list(state.returns())


def test_ismcts_plays_a_whole_scum_series() -> None:
    game = load_game("scum")
    returns = play_with_ismcts(game, seat=0, sims=30, decisions=1000, seed=0)
    assert sorted(returns) == [1.0, 2.0, 3.0, 4.0]  # J8 points of a finished series


def test_ismcts_searches_scandal() -> None:
    game = load_game("scandal", max_turns=12)
    play_with_ismcts(game, seat=0, sims=15, decisions=6, seed=1)


def test_give_back_is_hidden_from_the_other_players() -> None:
    """J5: the President's give-back card is seen by the President and the Scum only."""
    game = load_game("scum", trade=True)
    state = game.new_initial_state()
    random_chance(state, np.random.default_rng(0))
    engine = state.d.engine
    president, scum = engine.order[0], engine.order[-1]
    assert state.current_player() == president  # the give-back decision (J5)
    give = state.legal_actions()[0]
    state.apply_action(give)
    first = game.observation_tensor_size()  # the history piece follows the observation
    for player in range(4):
        seen = state.information_state_string(player).split("moves:")[1]
        if player in (president, scum):
            assert seen.strip() == f"{president}:{give}"
            assert state.information_state_tensor(player)[first] == give + 1
        else:
            assert seen.strip() == f"{president}:?"
            assert state.information_state_tensor(player)[first] == -1


@pytest.mark.parametrize(
    ("name", "params"),
    [("scum", {"trade": True}), ("scandal", {"max_turns": 40}), ("scum_party", {"players": 6})],
)
def test_information_state_fixes_the_legal_actions(name: str, params: dict[str, Any]) -> None:
    """Within and across resampled worlds, one information state has one legal-action set.

    ISMCTS keys its nodes by information-state strings; two states with the
    same key and different legal actions would break its tree (KeyError).
    """
    game = load_game(name, **params)
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    random_chance(state, rng)
    for _ in range(4):
        state.apply_action(int(rng.choice(state.legal_actions())))
        random_chance(state, rng)
    seen: dict[tuple[int, str], list[int]] = {}
    for _ in range(15):
        world = state.resample_from_infostate(
            state.current_player(), pyspiel.UniformProbabilitySampler(0.0, 1.0)
        )
        for _ in range(25):
            random_chance(world, rng)
            if world.is_terminal():
                break
            key = (world.current_player(), world.information_state_string(world.current_player()))
            legal = world.legal_actions()
            assert seen.setdefault(key, legal) == legal
            world.apply_action(int(rng.choice(legal)))


def test_demo_prints_seat_zero_return(capsys: pytest.CaptureFixture[str]) -> None:
    from cardsuite.agents.external.openspiel.demo import main

    main(["scum", "--sims", "5", "--episodes", "2", "--set", "players=5"])
    out = capsys.readouterr().out
    assert "players=5" in out and "seat-0 mean return" in out and "ms per ISMCTS decision" in out
