"""Batched search: the state bridges, batched rollouts and the batched ISMCTS against the reference.

* the bridges (``scum_env.batched.bridge``, ``scandal_env.batched.bridge``)
  load a per-game state into a batched row that observes, masks and then
  plays on exactly as the per-game env (differential, random play);
* batched heuristic rollouts give the per-game reference's leaf values;
* with ``batch=1`` the batched ISMCTS makes the reference's choices and grows
  the same tree (same determinizations, descents and rollouts);
* waves, root parallelism, the torch backend and bad settings.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from benchmarks.search_bench import play
from cardsuite.agents.base import table_info
from cardsuite.agents.search.reference import BatchedISMCTSAgent, ISMCTSAgent, Node
from cardsuite.agents.search.rollouts import BatchedRollouts
from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from scandal_env.batched import BatchedScandal
from scandal_env.batched.bridge import load_states as load_scandal
from scum_env.batched import BatchedScum
from scum_env.batched.bridge import load_states as load_scum


def host(x: Any) -> np.ndarray:
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


def live_state(env: Any) -> Any:
    return env.unwrapped.game


# ------------------------------------------------------------------ bridges
@pytest.mark.parametrize(
    ("game", "options", "seed"),
    [
        ("scum", {"num_players": 4}, 0),
        ("scum", {"num_players": 5, "carousel": True}, 1),
        ("scum", {"num_players": 6, "color_clash": True}, 2),
        ("scandal", {"num_players": 2}, 3),
        ("scandal", {"num_players": 3}, 4),
    ],
)
def test_bridge_row_plays_on_as_the_env(game: str, options: dict[str, Any], seed: int) -> None:
    """Every 5th position of a random game is loaded into row 0 of a fresh engine; the row's
    observation, mask and player to act equal the env's, and so do the next 6 steps."""
    rng = np.random.default_rng(seed)
    env = get_game(game).make(**options, episode="series" if game == "scum" else "hand")
    reset_options = {"trade": True} if game == "scum" and seed % 2 else None
    env.reset(seed=seed, options=reset_options)
    if game == "scum":
        eng: Any = BatchedScum(2, autoreset=False, episode="series", **options)
        load: Any = load_scum
    else:
        eng = BatchedScandal(2, autoreset=False, episode="hand", **options)
        load = load_scandal
    step = 0
    compared = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        if step % 5 == 0:
            obs, mask, to_act = load(eng, [live_state(env)])
            assert not host(mask)[1].any()  # the row past the states is over
            fork = env.unwrapped
            for k in range(6):
                name = env.agent_selection
                if env.terminations[name] or env.truncations[name]:
                    break
                seen = env.observe(name)
                assert np.array_equal(host(obs)[0], seen["observation"]), (step, k)
                assert np.array_equal(host(mask)[0].astype(bool), seen["action_mask"] == 1)
                assert int(host(to_act)[0]) == int(name.rsplit("_", 1)[1])
                a = int(rng.choice(np.flatnonzero(seen["action_mask"])))
                env.step(a)
                step += 1
                res = eng.step(np.array([a, 0]), active=np.array([True, False]))
                obs, mask, to_act = res.obs, res.mask, res.to_act
                compared += 1
            assert fork is env.unwrapped
            continue
        seen = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
        step += 1
    assert compared > 20


# ------------------------------------------------------------------ rollouts
def random_positions(game: str, players: int, seed: int, count: int) -> tuple[Any, list[Any]]:
    """``count`` engine states of one randomly played deal, and its env."""
    from scandal_env import engine as XE
    from scum_env import engine as SE

    clone = SE.clone if game == "scum" else XE.clone
    rng = np.random.default_rng(seed)
    env = get_game(game).make(num_players=players)
    env.reset(seed=seed)
    states: list[Any] = []
    while len(states) < count:
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            env.reset(seed=seed + len(states) + 1000)
            continue
        states.append(clone(live_state(env)))
        seen = env.observe(name)
        env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
    return env, states


@pytest.mark.parametrize(
    ("game", "players", "cutoff"), [("scum", 4, 0), ("scum", 4, 5), ("scandal", 2, 40)]
)
def test_batched_rollouts_give_the_reference_values(game: str, players: int, cutoff: int) -> None:
    """Heuristic rollouts of the same leaf states, one batch against one by one: equal values."""
    env, states = random_positions(game, players, 7, 24)
    agent = ISMCTSAgent(game, cutoff=cutoff)
    agent.reset(table_info(env, game, "player_0"))
    adapter = agent._search
    assert adapter is not None
    rng = np.random.default_rng(0)
    expected = []
    prepared = []
    for s in states:
        state, _ = adapter.prepare(adapter.clone(s), 0)
        prepared.append(state)
        expected.append(agent.rollout_values(adapter, adapter.clone(state), rng))
    roll = BatchedRollouts(game, env.unwrapped.config, "heuristic", cutoff, 10, {})
    got = roll.values(prepared, rng)
    np.testing.assert_allclose(got, np.array(expected), rtol=0, atol=1e-12)


# ------------------------------------------------------------------ the search
class Asked:
    """Seat 0 of `play`: asks every agent the same decision, plays the first one's move."""

    def __init__(self, agents: list[Any]) -> None:
        self.agents, self.picks = agents, []

    def reset(self, table: Any, seed: int | None = None) -> None:
        for a in self.agents:
            a.reset(table, seed=5)

    def act(self, obs: np.ndarray, mask: np.ndarray, info: Any) -> int:
        self.picks.append(tuple(a.act(obs, mask, info) for a in self.agents))
        return int(self.picks[-1][0])


def play_deal(
    game: str, players: int, agents: list[Any], seed: int, limit: int = 1000
) -> list[tuple[int, ...]]:
    """Seat 0 is ``agents`` (`Asked`), the others play the heuristic; the choices of seat
    0's first ``limit`` decisions, one per agent."""
    seat = Asked(agents)
    play(game, {"num_players": players}, lambda: seat, seed, limit)
    return seat.picks


def tree(node: Node) -> tuple[Any, ...]:
    return (
        node.visits,
        node.avail,
        round(node.total, 9),
        tuple((a, tree(c)) for a, c in sorted(node.children.items())),
    )


@pytest.mark.parametrize(("game", "players", "budget"), [("scum", 4, 20), ("scandal", 2, 8)])
def test_batch_of_one_makes_the_reference_choices(game: str, players: int, budget: int) -> None:
    """Same seed and budget, heuristic rollouts (no random numbers), one leaf per wave: the
    batched search takes the reference's determinizations in the same order and plays every
    decision of a whole deal as the reference does."""
    cutoff = 10 if game == "scandal" else None
    ref = ISMCTSAgent(game, budget=budget, max_hand=0, cutoff=cutoff)
    bat = BatchedISMCTSAgent(game, budget=budget, max_hand=0, cutoff=cutoff, batch=1)
    choices = play_deal(game, players, [ref, bat], seed=11, limit=6)
    assert len(choices) == 6
    assert all(a == b for a, b in choices)


def test_batch_of_one_grows_the_reference_tree() -> None:
    env = get_game("scum").make(num_players=4)
    env.reset(seed=2)
    name = env.agent_selection
    det = lambda rng: env.unwrapped.determinize(name, rng)  # noqa: E731
    trees = []
    for agent in (
        ISMCTSAgent("scum", budget=40, max_hand=0),
        BatchedISMCTSAgent("scum", budget=40, max_hand=0, batch=1),
    ):
        agent.reset(table_info(env, "scum", name), seed=3)
        trees.append(tree(agent.search(det)))
    assert trees[0] == trees[1]


@pytest.mark.parametrize("parallel", ["leaf", "root"])
def test_waves_spend_the_whole_budget(parallel: str) -> None:
    env = get_game("scum").make(num_players=4)
    env.reset(seed=2)
    name = env.agent_selection
    agent = BatchedISMCTSAgent("scum", budget=45, max_hand=0, batch=10, parallel=parallel)
    agent.reset(table_info(env, "scum", name), seed=3)
    root = agent.search(lambda rng: env.unwrapped.determinize(name, rng))
    assert root.visits == 45
    assert sum(c.visits for c in root.children.values()) == 45
    assert all(0.0 <= c.total <= c.visits for c in root.children.values())


@pytest.mark.parametrize(("parallel", "limit", "visits"), [("root", None, 45), ("leaf", 0, 10)])
def test_the_guided_search_shares_the_loop(parallel: str, limit: float | None, visits: int) -> None:
    """`SearchBase.search` serves the guided search too: waves, merged roots, the time cap."""
    from cardsuite.agents.registry import make_agent

    env = get_game("scum").make(num_players=4)
    env.reset(seed=2)
    name = env.agent_selection
    extra = "" if limit is None else f",time_limit={limit}"
    spec = f"search:pretrained:scum4:budget=45,batch=10,max_hand=0,parallel={parallel}{extra}"
    agent = make_agent(spec, "scum", seed=0)
    agent.reset(table_info(env, "scum", name), seed=3)
    root = agent.search(lambda rng: env.unwrapped.determinize(name, rng))
    assert root.visits == visits
    assert sum(c.visits for c in root.children.values()) == visits


def test_time_limit_stops_after_the_first_wave() -> None:
    """A spent wall-clock cap starts no new wave; the first always runs (no timing asserted)."""
    env = get_game("scum").make(num_players=4)
    env.reset(seed=2)
    name = env.agent_selection
    agent = BatchedISMCTSAgent("scum", budget=40, max_hand=0, batch=10, time_limit=0)
    agent.reset(table_info(env, "scum", name), seed=3)
    root = agent.search(lambda rng: env.unwrapped.determinize(name, rng))
    assert root.visits == 10
    with pytest.raises(ConfigError, match="time_limit"):
        BatchedISMCTSAgent("scum", time_limit=-1)


def test_leaf_parallel_finds_the_forced_win() -> None:
    """The position of test_ismcts.test_search_plays_the_president_that_goes_out (J7)."""
    from tests.agents.test_ismcts import RACE, RULES, SLOT, scum_position

    env = scum_position(RACE, lead=(1, "9"))
    name = env.agent_selection
    for parallel in ("leaf", "root"):
        agent = BatchedISMCTSAgent("scum", budget=40, max_hand=0, batch=8, parallel=parallel)
        agent.reset(table_info(env, "scum", name), seed=1)
        obs = env.observe(name)
        ctx = {"determinize": lambda rng: env.unwrapped.determinize(name, rng)}
        assert agent.act(obs["observation"], obs["action_mask"], ctx) == RULES.play_action(
            1, SLOT["P"]
        )


def test_random_rollouts_are_legal_and_seeded() -> None:
    env = get_game("scandal").make(num_players=2)
    env.reset(seed=4)
    name = env.agent_selection
    obs = env.observe(name)
    ctx = {"determinize": lambda rng: env.unwrapped.determinize(name, rng)}
    picks = []
    for _ in range(2):
        agent = BatchedISMCTSAgent("scandal", budget=12, cutoff=10, rollout="random", batch=6)
        agent.reset(table_info(env, "scandal", name), seed=9)
        picks.append(agent.act(obs["observation"], obs["action_mask"], ctx))
    assert picks[0] == picks[1] and obs["action_mask"][picks[0]] == 1


def test_torch_backend_makes_the_numpy_choices() -> None:
    pytest.importorskip("torch")
    agents = [
        BatchedISMCTSAgent("scum", budget=10, max_hand=0, batch=5),
        BatchedISMCTSAgent("scum", budget=10, max_hand=0, batch=5, device="cpu", backend="torch"),
    ]
    choices = play_deal("scum", 4, agents, seed=3, limit=2)
    assert len(choices) == 2 and all(a == b for a, b in choices)


def test_party_tables_are_searched_with_reference_rollouts() -> None:
    agents = [BatchedISMCTSAgent("scum_party", budget=10, max_hand=0, batch=5)]
    choices = play_deal("scum_party", 5, agents, seed=1, limit=3)
    assert len(choices) == 3


def test_bad_settings_are_named() -> None:
    with pytest.raises(ConfigError, match="batch"):
        BatchedISMCTSAgent("scum", batch=0)
    with pytest.raises(ConfigError, match="parallel"):
        BatchedISMCTSAgent("scum", parallel="tree")
    with pytest.raises(ConfigError, match="backend=torch"):
        BatchedISMCTSAgent("scum", backend="numpy", device="cuda")
    with pytest.raises(ConfigError, match="backend"):
        BatchedISMCTSAgent("scum", backend="jax")


def test_scandal_defaults_come_from_its_leaf_engine_and_a_spec_wins() -> None:
    """Scandal's ``ismcts-batched``: two waves of 50 (docs/search.md, "Speed"), the
    reference's cutoff; the reference, Scum and the guided search keep their own defaults."""
    from cardsuite.agents.registry import make_agent

    agent = make_agent("ismcts-batched", "scandal")
    assert (agent.batch, agent.cutoff, agent.budget) == (50, 40, 100)
    agent = make_agent("ismcts-batched:batch=25,cutoff=20", "scandal")
    assert (agent.batch, agent.cutoff) == (25, 20)
    assert ISMCTSAgent("scandal").cutoff == 40
    scum = BatchedISMCTSAgent("scum")
    assert (scum.batch, scum.cutoff) == (25, 0)
    guided = make_agent("search:pretrained:scandal2", "scandal")
    assert (guided.batch, guided.cutoff) == (10, 20)
