"""cardsuite dataset: records of any agents as per-decision arrays for behaviour cloning."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from cardsuite.agents.arena import dataset as ds
from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.agents.base import RandomAgent
from cardsuite.errors import ConfigError


class Spy(RandomAgent):
    """A random agent that logs what it was shown and what it did."""

    name = "spy"
    log: ClassVar[list[tuple[np.ndarray, np.ndarray, int]]] = []

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        action = super().act(observation, action_mask, info)
        Spy.log.append((observation.copy(), action_mask.astype(bool), action))
        return action


def test_rows_are_exactly_what_the_agents_saw_and_did(tmp_path: Path) -> None:
    """Differential: the replayed decisions equal the ones the arena showed a logging agent."""
    Spy.log.clear()
    rec = tmp_path / "games.jsonl"
    res = run_tournament("scum", [Spy(seed=1), "heuristic"], games=3, players=4, record=rec, seed=2)
    data = ds.build_dataset([rec])
    mine = np.flatnonzero(data.agent == "spy")
    assert len(mine) == len(Spy.log) > 0
    for row, (obs, mask, action) in zip(mine, Spy.log, strict=True):
        assert np.array_equal(data.observation[row], obs)
        assert np.array_equal(data.action_mask[row], mask)
        assert data.action[row] == action
    assert len(data) == sum(g.steps for g in res.results)
    assert data.action_mask[np.arange(len(data)), data.action].all()  # every action legal
    assert sorted(set(data.game.tolist())) == [0, 1, 2] and not data.human.any()
    for g in res.results:  # final rewards: the acting seat's episode return
        rows = data.game == g.index
        for seat, reward in enumerate(g.rewards):
            assert np.all(data.reward[rows & (data.player == seat)] == reward)


def test_saved_file_loads_without_pickle(tmp_path: Path) -> None:
    rec = tmp_path / "games.jsonl"
    run_tournament("scandal", ["random", "greedy"], games=2, players=2, record=rec)
    data = ds.build_dataset([rec])
    path = ds.save_dataset(data, tmp_path / "bc.npz")
    with np.load(path, allow_pickle=False) as z:
        assert str(z["game_name"]) == "scandal" and int(z["num_actions"]) == data.num_actions
        for key, value in data.arrays().items():
            assert np.array_equal(z[key], value), key
    with pytest.raises(ConfigError, match="already exists"):
        ds.save_dataset(data, path)
    with pytest.raises(ConfigError, match=r"\.npz"):
        ds.save_dataset(data, tmp_path / "bc.zip")


def test_human_seats_are_flagged(tmp_path: Path) -> None:
    rec = tmp_path / "games.jsonl"
    run_tournament("scum", ["random", "greedy"], games=1, players=4, record=rec)
    record = json.loads(rec.read_text())
    record["seats"]["player_1"] = (
        "human"  # as cardsuite play / serve --record write a person's seat
    )
    human = tmp_path / "human.jsonl"
    human.write_text(json.dumps(record) + "\n")
    data = ds.build_dataset([rec, human])
    assert data.game_file.tolist() == [0, 1]
    second = data.game == 1
    assert np.array_equal(data.human, second & (data.player == 1))
    assert ds.is_human("human#2") and not ds.is_human("humane")


def test_mixed_inputs_are_named_errors(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    run_tournament("scum", ["random", "greedy"], games=1, players=4, record=a)
    run_tournament("scandal", ["random", "greedy"], games=1, players=2, record=b)
    run_tournament("scum", ["random", "greedy"], games=1, players=5, record=c)
    with pytest.raises(ConfigError, match="one game per dataset"):
        ds.build_dataset([a, b])
    with pytest.raises(ConfigError, match="observation size"):
        ds.build_dataset([a, c])
    with pytest.raises(ConfigError, match="at least one"):
        ds.build_dataset([])


def test_command_writes_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = tmp_path / "games.jsonl"
    run_tournament("scum", ["random", "greedy"], games=1, players=4, record=rec)
    _, run = ds.add_command(argparse.ArgumentParser().add_subparsers())
    out = tmp_path / "d.npz"
    assert run(argparse.Namespace(records=[str(rec)], out=str(out)), []) == 0
    assert out.is_file() and "decisions from 1 scum games" in capsys.readouterr().out
    with pytest.raises(ConfigError, match="already exists"):
        run(argparse.Namespace(records=[str(rec)], out=str(out)), [])
