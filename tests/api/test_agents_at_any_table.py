"""Every agent kind at random tables of every game: a legal move or a named error (issue 60).

Each example draws a game, its rule options (every player count the rules allow, the rule
variants) and an agent spec: the rule agents, the searches at a tiny budget, every shipped
``pretrained:NAME``, a ``ppo:`` folder and ``search:pretrained:...``. Seated through
``load_agent(spec, env=env)``, a rule agent always plays legal moves and a learned one plays
legal moves or refuses the table with a `TableMismatchError`; loaded for one table and asked
to act at another, an agent plays legally only where both tables have the same sizes, and
otherwise names the mismatch. Never an ``IndexError`` or a numpy broadcast ``ValueError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cardsuite
from cardsuite.agents.base import act_info
from cardsuite.agents.learned.pretrained import CATALOGUE, agent_dir
from cardsuite.errors import TableMismatchError

RULE_SPECS = (
    "random",
    "greedy",
    "heuristic",
    "ismcts:budget=4",
    "ismcts-batched:budget=4",
    "ismcts-reference:budget=4",
)
LEARNED_SPECS = (
    *(f"pretrained:{name}" for name in CATALOGUE),
    f"ppo:{agent_dir('scum4')}",
    "search:pretrained:scum4:budget=4",
    "search:pretrained:party8:budget=4",
    "search:pretrained:scandal2:budget=4",
)
SPECS = RULE_SPECS + LEARNED_SPECS

#: Every game's tables: each player count its rules allow, and its rule variants.
TABLES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "scum": st.fixed_dictionaries(
        {"num_players": st.integers(4, 12)},
        optional={
            "trade_rules": st.sampled_from(["english", "spanish"]),
            "carousel": st.booleans(),
            "color_clash": st.booleans(),
            "wild_queen": st.booleans(),
            "episode": st.sampled_from(["series", "game"]),
        },
    ),
    "scum_party": st.fixed_dictionaries(
        {"num_players": st.integers(5, 50)},
        optional={"num_hands": st.integers(1, 5), "reward": st.sampled_from(["final", "rank"])},
    ),
    "scandal": st.fixed_dictionaries(
        {"num_players": st.integers(2, 6)},
        optional={"episode": st.sampled_from(["hand", "game"]), "max_turns": st.integers(5, 300)},
    ),
}
tables = st.sampled_from(sorted(TABLES)).flatmap(
    lambda game: st.tuples(st.just(game), TABLES[game])
)


def _sizes(env: Any) -> tuple[int, int]:
    return env.unwrapped.obs_spec.size, env.unwrapped.num_actions


def _play_seat(env: Any, agent: Any, seat: str, steps: int, seed: int) -> int:
    """Up to ``steps`` moves of ``env``: ``agent`` at ``seat``, uniform random moves elsewhere;
    asserts each of the agent's moves is legal and returns how many it made."""
    rng = np.random.default_rng(seed)
    made = 0
    for name in env.agent_iter(max_iter=steps):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if name == seat:
            action = agent.act(obs["observation"], obs["action_mask"], act_info(env, name))
            assert obs["action_mask"][action] == 1, (name, action)
            made += 1
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return made


def seated_with_env(
    spec: str, game: str, options: dict[str, Any], seed: int, by_index: bool, steps: int = 40
) -> None:
    """``load_agent(spec, env=env)``: legal moves, or (learned only) a TableMismatchError."""
    env = cardsuite.make(game, **options)
    env.reset(seed=seed)
    seat = env.agent_selection
    where = env.possible_agents.index(seat) if by_index else seat
    try:
        agent = cardsuite.load_agent(spec, env=env, seat=where, seed=seed)
    except TableMismatchError:
        assert spec in LEARNED_SPECS, spec  # a rule agent reads any table
        return
    assert agent.table.config == env.unwrapped.config
    assert _play_seat(env, agent, seat, steps=steps, seed=seed) >= 1


def loaded_elsewhere(spec: str, built: tuple[str, dict[str, Any]], met: Any, seed: int) -> None:
    """Loaded for table ``built``, asked to act at ``met``: a legal move where the sizes are
    the same, else a TableMismatchError before the agent reads anything."""
    env = cardsuite.make(met[0], **met[1])
    env.reset(seed=seed)
    try:
        agent = cardsuite.load_agent(spec, built[0], seat=0, seed=seed, **built[1])
    except TableMismatchError:
        assert spec in LEARNED_SPECS, spec
        return
    obs = env.observe(env.agent_selection)
    if _sizes(env) != (agent.table.obs_spec.size, agent.table.num_actions):
        with pytest.raises(TableMismatchError, match="load_agent\\(spec, env=env"):
            agent.act(obs["observation"], obs["action_mask"], {"agent": "player_0"})
        return
    action = agent.act(obs["observation"], obs["action_mask"], {"agent": "player_0"})
    assert obs["action_mask"][action] == 1


@settings(max_examples=150, deadline=None)
@given(
    spec=st.sampled_from(SPECS),
    table=tables,
    seed=st.integers(0, 2**16),
    by_index=st.booleans(),
)
def test_an_agent_seated_with_env_plays_legal_moves_or_refuses_the_table(
    spec: str, table: tuple[str, dict[str, Any]], seed: int, by_index: bool
) -> None:
    seated_with_env(spec, table[0], table[1], seed, by_index)


@settings(max_examples=150, deadline=None)
@given(
    spec=st.sampled_from(SPECS),
    built=tables,
    met=tables,
    same=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_an_agent_loaded_for_another_table_names_the_mismatch(
    spec: str, built: Any, met: Any, same: bool, seed: int
) -> None:
    loaded_elsewhere(spec, built, built if same else met, seed)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(
    spec=st.sampled_from(SPECS),
    built=tables,
    met=tables,
    seed=st.integers(0, 2**31 - 1),
    by_index=st.booleans(),
)
def test_every_agent_at_many_tables(
    spec: str, built: Any, met: Any, seed: int, by_index: bool
) -> None:
    """The two properties above over many more tables, and longer games."""
    seated_with_env(spec, met[0], met[1], seed, by_index, steps=400)
    loaded_elsewhere(spec, built, met, seed)
