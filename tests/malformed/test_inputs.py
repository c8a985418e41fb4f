"""Broken records, deck files and presets: only the project's named errors, nothing hangs.

Hypothesis builds the inputs (`tests.malformed.strategies`): records and
decks with hostile changes deep inside, random bytes, and preset deals made
of valid and invalid card names, roles, seats and scores for every game. A
rejected preset leaves the env as it was; an accepted one plays to its end
with every observation in its space.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardsuite.agents.arena.records import read_records, replay_record, select_record
from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.errors import ConfigError, DeckError
from scandal_env import scandal_v0
from scandal_env.deck import deck_from_data, load_deck
from scum_env import scum_party_v0, scum_v0
from tests.fuzz.fuzz import check_obs
from tests.malformed.common import named_or_ok, watchdog
from tests.malformed.strategies import HOSTILE_SCALARS, mutated

SETTINGS = settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


# ------------------------------------------------------------------ records
@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    out = {}
    for game in ("scum", "scandal"):
        path = tmp_path_factory.mktemp("rec") / f"{game}.jsonl"
        run_tournament(game, ["random", "random"], games=1, seed=5, record=path)
        out[game] = json.loads(path.read_text().splitlines()[0])
    return out


def replay_file(path: Path) -> None:
    for record in read_records(path):
        replay_record(record)


@pytest.mark.parametrize("game", ["scum", "scandal"])
def test_hostile_records(game: str, records: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"

    @SETTINGS
    @given(mutated(records[game]))
    def run(record: Any) -> None:
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")
        named_or_ok(partial(replay_file, path))
        assert json.loads(path.read_text()) == record  # reading never changes the file

    run()


@SETTINGS
@given(st.binary(max_size=300))
def test_random_record_bytes(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("bytes") / "r.jsonl"
    path.write_bytes(data)
    named_or_ok(partial(select_record, path, 0))


# -------------------------------------------------------------------- decks
def canonical_deck() -> dict[str, Any]:
    text = resources.files("scandal_env").joinpath("data/deck.json").read_text("utf-8")
    return dict(json.loads(text))


def test_the_canonical_deck_builds() -> None:
    assert deck_from_data(canonical_deck()).n_cards == 80


@SETTINGS
@given(mutated(canonical_deck(), max_changes=2))
def test_hostile_deck_data(data: Any) -> None:
    err = named_or_ok(partial(deck_from_data, data, source="fuzz"))
    assert err is None or isinstance(err, DeckError)


@SETTINGS
@given(st.binary(max_size=400), st.sampled_from([".json", ".yaml"]))
def test_random_deck_file_bytes(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, suffix: str
) -> None:
    path = tmp_path_factory.mktemp("deck") / f"deck{suffix}"
    path.write_bytes(data)
    err = named_or_ok(partial(load_deck, path))
    assert isinstance(err, ConfigError)  # DeckError is a ConfigError; random bytes are no deck


# ------------------------------------------------------------------ presets
SCUM_CARDS = ["S", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "P", "W", "WP",
              "R2", "B12", "x", "", "13", "A", "joker"]  # fmt: skip
SCANDAL_CARDS = [*load_deck().names[:12], "Watergate ", "nope", 3, 79, 80, -1]

cards = partial(lambda names: st.lists(st.sampled_from(names), max_size=14))
hostile = HOSTILE_SCALARS


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(strategy, hostile)


def preset(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A dict with any subset of ``fields``, each a plausible or hostile value."""
    return st.fixed_dictionaries({}, optional={k: maybe(v) for k, v in fields.items()})


PRESETS: dict[str, tuple[Callable[[], Any], st.SearchStrategy[dict[str, Any]]]] = {
    "scum": (
        lambda: scum_v0.raw_env(num_players=5),
        preset(
            roles=st.one_of(st.permutations(range(5)), st.lists(st.integers(-1, 6), max_size=6)),
            hands=st.lists(cards(SCUM_CARDS), min_size=4, max_size=6),
            trade=st.booleans(),
            scores=st.lists(st.integers(-3, 40), max_size=6),
        ),
    ),
    "scum_party": (
        lambda: scum_party_v0.raw_env(num_players=5, num_hands=2),
        preset(
            seating=st.one_of(st.permutations(range(5)), st.lists(st.integers(-1, 6), max_size=6)),
            hands=st.lists(cards(SCUM_CARDS), min_size=4, max_size=6),
            trade=st.booleans(),
            scores=st.lists(st.integers(-3, 40), max_size=6),
        ),
    ),
    "scandal": (
        lambda: scandal_v0.raw_env(num_players=2),
        preset(
            hands=st.lists(cards(SCANDAL_CARDS), min_size=1, max_size=3),
            discard=cards(SCANDAL_CARDS),
            stock=cards(SCANDAL_CARDS),
            dealer=st.integers(-1, 3),
        ),
    ),
}


def snapshot(env: Any) -> tuple[Any, ...]:
    obs = env.observe(env.agent_selection)
    return (env.agent_selection, obs["observation"].tobytes(), env.state().tobytes())


def play_out(env: Any) -> None:
    rng = np.random.default_rng(0)
    for step in range(3000):
        if all(env.terminations[a] or env.truncations[a] for a in env.agents):
            return
        check_obs(env, env.agent_selection, f"preset step {step}", acting=True)
        env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
    raise AssertionError("a preset deal did not end in 3000 steps")


@pytest.mark.parametrize("game", sorted(PRESETS))
def test_hostile_presets(game: str) -> None:
    make, strategy = PRESETS[game]

    @SETTINGS
    @given(strategy)
    def run(options: dict[str, Any]) -> None:
        env = make()
        env.reset(seed=1)
        before = snapshot(env)
        err = named_or_ok(partial(env.reset, seed=2, options=options))
        if err is not None:
            assert snapshot(env) == before, f"{type(err).__name__} left the env changed: {err}"
            return
        with watchdog():
            play_out(env)

    run()
