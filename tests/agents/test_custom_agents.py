"""Your own agent in the arena: module:Class and file.py:Class specs, Agent objects, entry points."""

from __future__ import annotations

import re
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

from cardsuite.agents import registry
from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.agents.base import RandomAgent
from cardsuite.agents.registry import make_agent, parse_spec
from cardsuite.errors import ConfigError

DOCS = Path(__file__).resolve().parents[2] / "docs" / "agents.md"

AGENT_FILE = '''
import numpy as np


class FirstLegal:
    """Plays the first legal action."""

    name = "first"

    def __init__(self, game, seed=None, offset=0):
        self.game, self.seed, self.offset = game, seed, offset

    def reset(self, table, seed=None):
        pass

    def act(self, observation, action_mask, info):
        legal = np.flatnonzero(action_mask)
        return int(legal[min(self.offset, len(legal) - 1)])


class NoAct:
    name = "broken"

    def reset(self, table, seed=None):
        pass
'''


def docs_snippet() -> str:
    """The first Python block of the "Your own agent in the arena" section of docs/agents.md."""
    text = DOCS.read_text()
    section = text.split("## Your own agent in the arena", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match is not None
    return match.group(1)


def test_the_documented_custom_agent_plays_a_duplicate_tournament(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = docs_snippet()
    assert 15 <= len(code.splitlines()) <= 25  # "a 20-line custom agent"
    scope: dict[str, Any] = {"__name__": "docs_snippet"}
    exec(compile(code, str(DOCS), "exec"), scope)
    result = scope["result"]
    assert result.names == ["lowest-first", "greedy", "heuristic"]
    assert result.duplicate and result.deals == 20
    out = capsys.readouterr().out
    assert "lowest-first" in out and "heuristic" in out


def test_file_spec_loads_the_class_with_parameters(tmp_path: Path) -> None:
    path = tmp_path / "my_agent.py"
    path.write_text(AGENT_FILE)
    parsed = parse_spec(f"{path}:FirstLegal:offset=1")
    assert parsed.kind == registry.CLASS_KIND and parsed.params == {"offset": 1}
    agent = make_agent(f"{path}:FirstLegal:offset=1", "scum", seed=3)
    assert agent.name == "first"
    assert (agent.game, agent.seed, agent.offset) == ("scum", 3, 1)  # type: ignore[attr-defined]
    result = run_tournament("scum", [f"{path}:FirstLegal", "random"], games=4, seed=1)
    assert result.names == [f"{path}:FirstLegal", "random"]


def test_module_spec_imports_the_class() -> None:
    agent = make_agent("cardsuite.agents.base:RandomAgent", "scum", seed=1)
    assert isinstance(agent, RandomAgent)


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ("{dir}/missing.py:FirstLegal", "not found"),
        ("{dir}/my_agent.py:Nope", "has no 'Nope'"),
        ("{dir}/my_agent.py:NoAct", "lacks act"),
        ("{dir}/my_agent.py:FirstLegal:bogus=1", "unknown parameter 'bogus'"),
        ("{dir}/my_agent.py:First-Legal", "is not a class name"),
        ("no_such_module_xyz:Agent", "module 'no_such_module_xyz' not found"),
        ("{dir}/raises.py:X", "importing"),
    ],
)
def test_bad_class_specs_are_named(tmp_path: Path, spec: str, named: str) -> None:
    (tmp_path / "my_agent.py").write_text(AGENT_FILE)
    (tmp_path / "raises.py").write_text("raise RuntimeError('boom')\n")
    with pytest.raises(ConfigError, match=re.escape(named)):
        make_agent(spec.format(dir=tmp_path), "scum")


def test_run_tournament_accepts_agent_objects_and_names_them() -> None:
    class Picky(RandomAgent):
        name = "picky"

    result = run_tournament("scum", [Picky(0), "random", RandomAgent(1)], games=6, seed=2)
    assert result.names == ["picky", "random#1", "random#2"]
    assert [row.spec for row in result.agents] == ["picky", "random", "random"]
    assert all(row.games == 6 for row in result.agents)


def test_run_tournament_rejects_what_is_not_an_agent() -> None:
    with pytest.raises(ConfigError, match=r"agents\[1\]"):
        run_tournament("scum", ["random", object()], games=1)  # type: ignore[list-item]


def test_unpicklable_agent_objects_need_one_worker() -> None:
    agent = RandomAgent(0)
    agent.hook = lambda: None  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="workers=1"):
        run_tournament("scum", [agent, "random"], games=2, workers=2)


def test_third_party_agents_come_through_the_entry_point_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "thirdparty_bots_xyz.py").write_text(AGENT_FILE)
    monkeypatch.syspath_prepend(str(tmp_path))
    fake = [
        EntryPoint("firstlegal", "thirdparty_bots_xyz:FirstLegal", registry.ENTRY_POINT_GROUP),
        EntryPoint("broken_xyz", "no_such_pkg_xyz:Agent", registry.ENTRY_POINT_GROUP),
    ]

    def entry_points(group: str) -> list[EntryPoint]:
        return fake if group == registry.ENTRY_POINT_GROUP else []

    monkeypatch.setattr("importlib.metadata.entry_points", entry_points)
    with pytest.warns(RuntimeWarning, match="broken_xyz"):
        kinds = registry._plugin_kinds()
    assert [k.name for k in kinds] == ["firstlegal"]
    assert kinds[0].doc == "Plays the first legal action."
    monkeypatch.setattr(registry, "KINDS", {**registry.KINDS, "firstlegal": kinds[0]})
    agent = make_agent("firstlegal:offset=2", "scum", seed=5)
    assert (agent.game, agent.offset) == ("scum", 2)  # type: ignore[attr-defined]


def test_replaying_a_record_never_loads_the_files_its_seats_name(tmp_path: Path) -> None:
    """A record names a file.py:Class seat; reading and replaying it runs no code from it."""
    from cardsuite.agents.arena.records import read_records, replay_record

    path = tmp_path / "my_agent.py"
    path.write_text(AGENT_FILE)
    record = tmp_path / "games.jsonl"
    run_tournament("scum", [f"{path}:FirstLegal", "random"], games=1, record=record)
    path.write_text("raise SystemExit('this file must not run')\n")
    for game in read_records(record):
        replay_record(game)
