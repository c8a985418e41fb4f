"""Agent specs: parsing, building, and named errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from cardsuite.agents import registry
from cardsuite.agents.base import Agent, RandomAgent, TableInfo
from cardsuite.agents.registry import (
    KINDS,
    AgentKind,
    AgentSpec,
    available_agents,
    display_names,
    make_agent,
    parse_spec,
)
from cardsuite.errors import CheckpointError, ConfigError


class FakeAgent:
    """A parameterised agent for registry tests."""

    name = "fake"

    def __init__(
        self, game: str, seed: int | None = None, *, budget: int = 10, c: float = 1.0
    ) -> None:
        if budget < 1:
            raise ValueError(f"budget must be positive, got {budget}")
        self.game, self.seed, self.budget, self.c = game, seed, budget, c

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Nothing to reset."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """First legal action."""
        return int(np.flatnonzero(action_mask)[0])


@pytest.fixture
def fake_kinds(monkeypatch: pytest.MonkeyPatch) -> None:
    kinds = dict(KINDS)
    kinds["fake"] = AgentKind("fake", f"{__name__}:FakeAgent", "test agent")
    kinds["ghost"] = AgentKind(
        "ghost", "cardsuite.agents.no_such_module_xyz:Ghost", "missing module"
    )
    kinds["hollow"] = AgentKind("hollow", f"{__name__}:NoSuchClass", "missing class")
    monkeypatch.setattr(registry, "KINDS", kinds)


def test_parse_plain_and_parameterised_specs() -> None:
    assert parse_spec("random") == AgentSpec("random", "random", {})
    assert parse_spec(" Greedy ") == AgentSpec("Greedy", "greedy", {})
    spec = parse_spec("ismcts:budget=200,c=1.5,rollout=heuristic,reuse=true")
    assert spec.kind == "ismcts"
    assert spec.params == {"budget": 200, "c": 1.5, "rollout": "heuristic", "reuse": True}
    assert parse_spec("ppo:runs/a=b,c/final").path == "runs/a=b,c/final"


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ("", "non-empty"),
        ("bogus", "unknown agent 'bogus'"),
        ("bogus:budget=2", "unknown agent 'bogus'"),
        ("ismcts:", "nothing after ':'"),
        ("ismcts:budget", "'budget' is not key=value"),
        ("ismcts:=3", "'=3' is not key=value"),
        ("ismcts:budget=1,budget=2", "'budget' given twice"),
        ("ppo", "needs a checkpoint"),
        ("ppo:  ", "needs a checkpoint"),
    ],
)
def test_bad_specs_are_named(spec: str, named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        parse_spec(spec)


def test_random_agent_is_built_and_rejects_parameters() -> None:
    agent = make_agent("random", "scum", seed=3)
    assert isinstance(agent, RandomAgent)
    assert isinstance(agent, Agent)
    with pytest.raises(ConfigError, match="random takes no parameters, got budget"):
        make_agent("random:budget=3", "scum")


def test_parameters_reach_the_constructor(fake_kinds: None) -> None:
    agent = make_agent("fake:budget=7,c=0.5", "scandal", seed=11)
    assert isinstance(agent, FakeAgent)
    assert (agent.game, agent.seed, agent.budget, agent.c) == ("scandal", 11, 7, 0.5)


def test_unknown_parameter_is_named_with_the_accepted_ones(fake_kinds: None) -> None:
    with pytest.raises(
        ConfigError, match=r"unknown parameter 'depth' for fake; parameters: budget, c"
    ):
        make_agent("fake:depth=3", "scum")


def test_bad_parameter_value_is_a_config_error(fake_kinds: None) -> None:
    with pytest.raises(ConfigError, match="'fake:budget=0': budget must be positive"):
        make_agent("fake:budget=0", "scum")


def test_agent_missing_from_the_install_is_named(fake_kinds: None) -> None:
    with pytest.raises(ConfigError, match=r"'ghost' is not available.*no_such_module_xyz"):
        make_agent("ghost", "scum")
    with pytest.raises(ConfigError, match=r"'hollow' is not available.*no NoSuchClass"):
        make_agent("hollow", "scum")


def test_missing_checkpoint_is_a_checkpoint_error(tmp_path: Any) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(CheckpointError, match=r"checkpoint .*nope.* not found"):
        make_agent(f"ppo:{missing}", "scum")


@pytest.mark.parametrize("kind", ["greedy", "heuristic", "ismcts"])
def test_baseline_agents_build_and_name_unknown_parameters(kind: str) -> None:
    agent = make_agent(kind, "scum", seed=0)
    assert isinstance(agent, Agent)
    with pytest.raises(
        ConfigError, match=r"unknown (heuristic |ismcts )?parameter 'no_such_param_q'"
    ):
        make_agent(f"{kind}:no_such_param_q=1", "scum")


def test_available_agents_lists_every_kind() -> None:
    names = [line.split()[0] for line in available_agents()]
    assert names[:4] == ["random", "greedy", "heuristic", "ismcts"]  # built in, in this order
    assert {"ppo", "rllib"} <= set(names)  # from the training layer's entry points


def test_display_names_number_repeats_only() -> None:
    assert display_names(["random", "greedy", "random"]) == ["random#1", "greedy", "random#2"]
    assert display_names(["random", "greedy"]) == ["random", "greedy"]


def test_a_huge_spec_parameter_is_a_short_named_error() -> None:
    # A 5000-digit number passes Python's int-to-str limit: it must neither raise a raw
    # ValueError from the YAML scalar reader nor be echoed whole (issue 25, hostile input).
    with pytest.raises(ConfigError) as err:
        make_agent("ismcts:budget=" + "1" * 5000, "scum")
    assert "budget" in str(err.value) and len(str(err.value)) < 200


def test_ismcts_is_the_batched_search_and_the_reference_keeps_an_explicit_name() -> None:
    """Issue 58: ``ismcts`` plays the batched search in every game; ``ismcts-reference`` the
    readable per-game one; ``ismcts-batched`` (the name before 0.4) stays the batched one."""
    from cardsuite.agents.search.reference import BatchedISMCTSAgent, ISMCTSAgent

    for game in ("scum", "scum_party", "scandal"):
        fast, ref = make_agent("ismcts:budget=5", game), make_agent("ismcts-reference", game)
        assert type(fast) is BatchedISMCTSAgent and fast.budget == 5
        assert type(ref) is ISMCTSAgent and ref.name == "ismcts-reference"
        assert type(make_agent("ismcts-batched", game)) is BatchedISMCTSAgent
