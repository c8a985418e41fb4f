"""The compiled policy rollouts (`cardsuite.agents.search.kernels.scandal_policy`) against the lockstep loop.

A guided search's ``rollout=policy`` leaves were played by stepping every row
together on ``BatchedScandal.step`` and choosing with ``LearnedRollout`` (the
numpy forward pass of the wrapped network). `play_out_policy` plays each row
on its own in compiled code. The pieces are checked one by one on positions
of real 2- to 6-player play (heuristic and random moves):

* the observation of the player to act: bit for bit ``BatchObserver.write``'s;
* the logits: the numpy forward pass's up to float32 rounding, for the
  shipped table-layout agent (``pretrained:scandal2_table``, at 2 players and through
  its projection at 4), the size-generic one
  (``pretrained:scandal4``, through its padded input map) and small ReLU
  networks of two and four layers;
* the rollouts: every state array ends as the lockstep loop leaves it, row
  for row, to the end of the hand and with a cutoff;
* the search: ``search:pretrained:scandal2_table`` makes the same choices with its
  rollouts compiled or in the lockstep loop.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from cardsuite.agents.base import table_info
from cardsuite.agents.learned.netspec import Snapshot, obs_scale
from cardsuite.agents.registry import make_agent
from cardsuite.agents.search.rollouts import BatchedRollouts, LearnedRollout
from cardsuite.errors import UsageError
from cardsuite.games import get_game
from scandal_env.batched import BatchedScandal
from scandal_env.batched.bridge import load_states, write_states
from scandal_env.batched.consts import OVER
from scandal_env.state import clone
from tests.scandal.real_play import (
    ROLLOUT_FIELDS,
    compiled_module,
    engine_arrays,
    heuristic_positions,
)
from tests.scandal.test_rollout_kernel import lockstep

rp = compiled_module("cardsuite.agents.search.kernels.scandal_policy")


def positions(num_players: int, count: int, seed: int, explore: float = 0.3) -> list[Any]:
    """``count`` states of real play (a quarter of those reached)."""
    return heuristic_positions(num_players, count, seed, explore=explore, keep=0.25)


def table(num_players: int) -> Any:
    """The `TableInfo` of seat 0 at a ``num_players`` Scandal table."""
    env = get_game("scandal").make(num_players=num_players)
    env.reset(seed=0)
    return table_info(env, "scandal", env.possible_agents[0])


def learned(spec: str, num_players: int) -> tuple[Any, np.ndarray]:
    """A shipped agent reset at a ``num_players`` table: (its snapshot, the table's scale)."""
    agent = make_agent(spec, "scandal", 0)
    agent.reset(table(num_players), 0)
    return agent.snapshot, np.asarray(agent.obs_scale, np.float32)


def synthetic(num_players: int, hidden: tuple[int, ...], seed: int) -> tuple[Snapshot, np.ndarray]:
    """A random ReLU MLP over the table's scaled observation."""
    spec = table(num_players).obs_spec
    rng = np.random.default_rng(seed)
    actions = get_game("scandal").make(num_players=num_players).action_space("player_0").n
    sizes = (spec.size, *hidden, actions)
    params = {}
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        params[f"actor.{2 * i}.weight"] = rng.normal(0, 1 / np.sqrt(a), (b, a)).astype(np.float32)
        params[f"actor.{2 * i}.bias"] = rng.normal(0, 0.1, b).astype(np.float32)
    return Snapshot(0, params, "relu"), obs_scale(spec)


def observe_rows(eng: BatchedScandal, m: int) -> np.ndarray:
    """``[m, D]`` float32: rows ``0 .. m-1`` observed by their players to act by the
    compiled encoder."""
    lay, st = rp.ObsLayout(eng), rp.base.state_arrays(eng)
    out = np.zeros((m, lay.size), dtype=np.float32)
    for g in range(m):
        rp._observe_row(g, out[g], lay.off, lay.fl, st)
    return out


def net_logits(net: Any, obs: np.ndarray) -> np.ndarray:
    """``[B, A]`` logits of raw observations ``obs``: the input map and the compiled
    hidden layers, then the output layer."""
    widest = max(b.shape[0] for b in net.biases)
    out = []
    for row in np.asarray(obs, np.float32):
        x = np.where(net.src >= 0, row[np.maximum(net.src, 0)] * net.factor, 0.0) + net.const
        x = x.astype(np.float32)
        buffers = (
            np.zeros(x.size, np.int64),
            np.zeros(x.size, np.float32),
            np.zeros(widest, np.float32),
            np.zeros(widest, np.float32),
        )
        h = rp._hidden(x, net.first, net.biases, net.weights, net.relu, *buffers)
        out.append(net.weights[-1] @ h + net.biases[-1])
    return np.array(out, dtype=np.float32)


@pytest.mark.parametrize("num_players", [2, 3, 4, 6])
def test_observations_are_the_observers_bits(num_players: int) -> None:
    states = positions(num_players, 40, seed=70 + num_players)
    eng = BatchedScandal(40, num_players=num_players, autoreset=False, episode="hand")
    want = np.array(load_states(eng, states)[0], copy=True)
    got = observe_rows(eng, len(states))
    assert got.dtype == np.float32 and got.shape == want.shape
    bad = np.flatnonzero((got != want).any(axis=1))
    assert not bad.size, f"rows {bad.tolist()} differ"
    assert len({(s.phase, s.pile.__len__() > 0) for s in states}) > 2, "varied positions"


NETS = [
    ("pretrained:scandal2_table", 2),
    ("pretrained:scandal2_table", 4),
    ("pretrained:scandal2", 2),
    ("pretrained:scandal4", 2),
    ("pretrained:scandal4", 5),
    ("relu:64", 3),
    ("relu:32,16,24", 2),
]


def network(name: str, num_players: int) -> tuple[Any, np.ndarray]:
    if name.startswith("relu:"):
        hidden = tuple(int(h) for h in name[5:].split(","))
        return synthetic(num_players, hidden, seed=len(hidden))
    return learned(name, num_players)


@pytest.mark.parametrize(("name", "num_players"), NETS)
def test_logits_are_the_numpy_forward_pass(name: str, num_players: int) -> None:
    snapshot, scale = network(name, num_players)
    states = positions(num_players, 30, seed=90 + num_players)
    eng = BatchedScandal(30, num_players=num_players, autoreset=False, episode="hand")
    obs = np.array(load_states(eng, states)[0], copy=True)
    net = rp.PolicyNet.of(snapshot, scale, eng.obs_dim)
    want = snapshot.logits(obs * scale)
    got = net_logits(net, obs)[:, : want.shape[1]]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-5)


@pytest.mark.parametrize(("name", "num_players"), NETS)
def test_rollouts_end_every_row_as_the_lockstep_loop(name: str, num_players: int) -> None:
    snapshot, scale = network(name, num_players)
    states = positions(num_players, 32, seed=110 + num_players)
    eng = BatchedScandal(32, num_players=num_players, autoreset=False, episode="hand")
    policy = LearnedRollout(snapshot.logits, scale)
    run = rp.compiled_policy_rollouts(eng, snapshot, scale)
    assert run is not None
    for cutoff in (0, 40, 3):
        longest = lockstep(eng, [clone(s) for s in states], cutoff, policy)
        want = engine_arrays(eng)
        if cutoff == 0:
            assert (want["phase"] == OVER).all(), "every hand was played to its end"
        write_states(eng, [clone(s) for s in states])
        played = rp.play_out_policy(eng, len(states), cutoff,
                                    rp.PolicyNet.of(snapshot, scale, eng.obs_dim))  # fmt: skip
        assert played.max() == longest
        for f in ROLLOUT_FIELDS:
            bad = np.flatnonzero((getattr(eng, f) != want[f]).reshape(len(states), -1).any(axis=1))
            assert not bad.size, f"cutoff {cutoff}: {f} differs in rows {bad.tolist()}"
        run([clone(s) for s in states], cutoff)  # the search's entry: writes, then plays
        for f in ROLLOUT_FIELDS:
            assert np.array_equal(getattr(eng, f), want[f]), f


def keep_roots(agent: Any) -> Any:
    """``agent.search`` that also appends each root it returns to ``agent.roots``."""
    search = agent.search

    def wrapped(determinize: Any) -> Any:
        root = search(determinize)
        agent.roots.append(root)
        return root

    return wrapped


def root_stats(root: Any) -> dict[int, tuple[int, float]]:
    """Each root move's visits and summed value (the leaf values' sums, in backup order)."""
    return {a: (c.visits, c.total) for a, c in root.children.items()}


def test_guided_search_makes_the_same_choices_compiled_or_not() -> None:
    """A hand of ``search:pretrained:scandal2_table`` against the heuristic: both paths, every
    decision, the same moves and the same visits and values at the root (the rollouts' values)."""
    from cardsuite.agents.baselines.heuristic import HeuristicAgent
    from cardsuite.agents.search.guided import GuidedSearchAgent

    env = get_game("scandal").make(num_players=2)
    env.reset(seed=11)
    me = env.possible_agents[0]
    searches = []
    for compiled in (True, False):
        spec = "search:pretrained:scandal2_table:budget=16,leaf=rollout" + (
            "" if compiled else ",compiled=false"
        )
        agent = make_agent(spec, "scandal", 3)  # Scandal's defaults: batch 10, cutoff 20
        assert isinstance(agent, GuidedSearchAgent) and agent.compiled is compiled
        agent.reset(table_info(env, "scandal", me), 3)
        agent.roots = []  # type: ignore[attr-defined]
        agent.search = keep_roots(agent)  # type: ignore[method-assign]
        assert (agent._rollouts is not None and agent._rollouts._compiled is not None) is compiled
        searches.append(agent)
    other = HeuristicAgent("scandal")
    other.reset(table_info(env, "scandal", env.possible_agents[1]), 0)
    decisions = searched = 0
    for name in env.agent_iter():
        obs, _r, term, trunc, _info = env.last()
        if term or trunc or decisions == 12:
            break
        if name != me:
            env.step(other.act(obs["observation"], obs["action_mask"], {}))
            continue
        ctx = {"determinize": lambda rng: env.unwrapped.determinize(me, rng)}
        before = [len(a.roots) for a in searches]
        picks = [a.act(obs["observation"], obs["action_mask"], ctx) for a in searches]
        assert picks[0] == picks[1], f"decision {decisions}"
        new = [a.roots[n:] for a, n in zip(searches, before, strict=True)]
        assert len(new[0]) == len(new[1]) <= 1
        if new[0]:
            stats = [root_stats(roots[0]) for roots in new]
            assert stats[0] == stats[1], f"decision {decisions}: the leaf values differ"
            searched += 1
        decisions += 1
        env.step(picks[0])
    assert decisions >= 8 and searched >= 4


def test_compiled_policy_rollouts_refuse_what_they_cannot_play(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snapshot, scale = learned("pretrained:scandal2_table", 2)
    game = BatchedScandal(2, num_players=2, autoreset=False, episode="game")
    assert rp.compiled_policy_rollouts(game, snapshot, scale) is None
    hand = BatchedScandal(2, num_players=2, autoreset=False, episode="hand")
    hand.reset(0)
    net = rp.PolicyNet.of(snapshot, scale, hand.obs_dim)
    with pytest.raises(UsageError, match=r"m must be in 0\.\.2"):
        rp.play_out_policy(hand, 3, 0, net)
    four = BatchedScandal(2, num_players=4, autoreset=False, episode="hand")
    with pytest.raises(UsageError, match="does not fit"):
        rp.PolicyNet.of(snapshot, obs_scale(table(4).obs_spec), four.obs_dim)
    from cardsuite.agents.search.kernels import base

    monkeypatch.setattr(base, "numba", None)
    assert rp.compiled_policy_rollouts(hand, snapshot, scale) is None
    with pytest.raises(UsageError, match="needs numba"):
        rp.play_out_policy(hand, 2, 0, net)
    policy = LearnedRollout(snapshot.logits, scale, snapshot)
    rollouts = BatchedRollouts("scandal", hand.config, policy, 40, 4, {})
    assert rollouts._compiled is None
