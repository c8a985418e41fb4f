"""Guided search (``search:pretrained:NAME``): specs, errors, and search over a learned prior."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardsuite.agents.base import table_info
from cardsuite.agents.registry import make_agent, parse_spec
from cardsuite.agents.search.guided import GuidedSearchAgent, PNode, softmax_prior, split_spec
from cardsuite.agents.search.rollouts import LearnedRollout
from cardsuite.errors import CardsuiteError, ConfigError
from cardsuite.games import get_game


def test_split_spec_takes_the_last_key_value_part() -> None:
    assert split_spec("pretrained:scum4") == ("pretrained:scum4", {})
    assert split_spec("pretrained:scum4:budget=20,temperature=0.5") == (
        "pretrained:scum4",
        {"budget": 20, "temperature": 0.5},
    )
    assert split_spec("ppo:runs/a:b/final:parallel=root") == (
        "ppo:runs/a:b/final",
        {"parallel": "root"},
    )


def test_the_kind_is_registered_and_wraps_only_learned_agents() -> None:
    assert parse_spec("search:pretrained:scum4").kind == "search"
    with pytest.raises(ConfigError, match="no policy logits"):
        make_agent("search:heuristic", "scum")
    with pytest.raises(ConfigError, match="temperature"):
        make_agent("search:pretrained:scum4:temperature=0", "scum")
    # Scum Party: the reference plays the leaves, with the heuristic only
    with pytest.raises(ConfigError, match="rollout=policy: 'scum_party'"):
        make_agent("search:pretrained:party8:rollout=policy", "scum_party")
    with pytest.raises(ConfigError, match="leaf=value: 'scum_party'"):
        make_agent("search:pretrained:party8:leaf=value", "scum_party")
    with pytest.raises(CardsuiteError):
        make_agent("search:pretrained:nosuch", "scum")


def test_softmax_prior_is_a_distribution_over_the_legal_moves() -> None:
    logits = np.array([[3.0, 1.0, 2.0, 9.0]])
    mask = np.array([[True, True, True, False]])
    p = softmax_prior(logits, mask, 1.0)[0]
    assert p[3] == 0.0 and p.sum() == pytest.approx(1.0)
    assert p[0] > p[2] > p[1]
    flat = softmax_prior(logits, mask, 1e6)[0]
    np.testing.assert_allclose(flat[:3], 1 / 3, atol=1e-5)


def test_guided_search_plays_a_legal_seeded_scum_game() -> None:
    """A guided searcher and three wrapped agents: every move legal; same seed, same game."""
    histories = []
    for _ in range(2):
        env = get_game("scum").make(num_players=4)
        env.reset(seed=5)
        specs = ["search:pretrained:scum4:budget=4,batch=2,max_hand=3"] + ["pretrained:scum4"] * 3
        agents = {n: make_agent(s, "scum", seed=1) for n, s in zip(env.possible_agents, specs)}
        for n, a in agents.items():
            a.reset(table_info(env, "scum", n), seed=2)
        moves = []
        for name in env.agent_iter():
            _o, _r, term, trunc, _i = env.last()
            if term or trunc:
                env.step(None)
                continue
            obs = env.observe(name)
            ctx = {"determinize": lambda rng, n=name, e=env: e.unwrapped.determinize(n, rng)}
            a = agents[name].act(obs["observation"], obs["action_mask"], ctx)
            assert obs["action_mask"][a] == 1
            moves.append(a)
            env.step(a)
        histories.append(moves)
    assert histories[0] == histories[1]


def test_guided_search_finds_the_forced_win_and_stores_priors() -> None:
    """The race of test_ismcts (J7): the President goes out first whatever the prior says."""
    from tests.agents.test_ismcts import RACE, RULES, SLOT, scum_position

    env = scum_position(RACE, lead=(1, "9"))
    name = env.agent_selection
    agent = make_agent("search:pretrained:scum4:budget=40,batch=8", "scum", seed=0)
    assert isinstance(agent, GuidedSearchAgent)
    agent.reset(table_info(env, "scum", name), seed=1)
    obs = env.observe(name)
    ctx = {"determinize": lambda rng: env.unwrapped.determinize(name, rng)}
    assert agent.act(obs["observation"], obs["action_mask"], ctx) == RULES.play_action(1, SLOT["P"])
    root = agent.search(ctx["determinize"])
    assert isinstance(root, PNode) and root.prior is not None
    assert root.prior[np.flatnonzero(obs["action_mask"] == 0)].sum() == 0.0
    assert root.visits == 40


def test_guided_search_plays_scandal() -> None:
    env = get_game("scandal").make(num_players=2)
    env.reset(seed=4)
    name = env.agent_selection
    agent = make_agent(
        "search:pretrained:scandal2:budget=6,batch=3,cutoff=6,leaf=rollout", "scandal", seed=0
    )
    agent.reset(table_info(env, "scandal", name), seed=1)
    obs = env.observe(name)
    ctx = {"determinize": lambda rng: env.unwrapped.determinize(name, rng)}
    a = agent.act(obs["observation"], obs["action_mask"], ctx)
    assert obs["action_mask"][a] == 1


def test_guided_search_at_a_party_table_has_a_learned_root_and_reference_leaves() -> None:
    """Scum Party: the root's prior is the wrapped policy's; the leaves are the
    reference's heuristic rollouts, so the nodes below the root have no prior."""
    env = get_game("scum_party").make(num_players=8)
    env.reset(seed=3)
    me = env.agent_selection
    wrapped = make_agent("pretrained:party8", "scum_party")
    agent = make_agent("search:pretrained:party8:budget=12,batch=4", "scum_party", seed=0)
    wrapped.reset(table_info(env, "scum_party", me))
    agent.reset(table_info(env, "scum_party", me), seed=0)
    assert agent._rollouts is None  # type: ignore[attr-defined]
    rng = np.random.default_rng(2)
    for _ in range(400):
        obs = env.observe(env.agent_selection)
        mine = env.agent_selection == me
        party, seat = env.unwrapped.game, env.unwrapped._seat_of[me]
        table = party.tables[party.table_of[seat]]
        hand = int(table.ncards[party.local_of[seat]]) if mine else 99
        if obs["action_mask"].sum() > 1 and hand <= 6:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    else:
        pytest.fail("the seat never reached a searched decision")
    ctx = {"determinize": lambda r: env.unwrapped.determinize(me, r)}
    agent.before_search(obs["observation"], obs["action_mask"])  # type: ignore[attr-defined]
    root = agent.search(ctx["determinize"])  # type: ignore[attr-defined]
    scale = np.asarray(wrapped.obs_scale, np.float32)  # type: ignore[attr-defined]
    logits = np.asarray(wrapped.logits(obs["observation"] * scale)).reshape(-1)  # type: ignore[attr-defined]
    expected = softmax_prior(logits, obs["action_mask"].astype(bool), 1.0)
    assert isinstance(root, PNode) and root.visits == 12
    np.testing.assert_allclose(root.prior, expected)
    below = [g for c in root.children.values() for g in c.children.values()]
    assert all(getattr(n, "prior", None) is None for n in below)
    assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"], ctx)] == 1


@pytest.mark.parametrize(
    ("game", "players", "name"),
    [
        ("scum", 4, "scum4"),
        ("scandal", 2, "scandal2"),
        ("scum_party", 8, "party8:max_hand=0"),  # root prior only; search every decision
    ],
)
def test_budget_one_plays_the_wrapped_agent(game: str, players: int, name: str) -> None:
    """One descent visits the move of highest prior, the learned policy's own choice."""
    agent, _, extra = name.partition(":")
    assert plays_the_wrapped_agent(game, players, agent, f"budget=1{',' * bool(extra)}{extra}")


def plays_the_wrapped_agent(
    game: str, players: int, name: str, extra: str, check: Any = None
) -> bool:
    """At each of seat 0's decisions with a choice in a seeded deal (random moves played),
    ``search:pretrained:NAME:EXTRA`` plays the wrapped agent's move; ``check(search, obs,
    calls)`` then sees the search and the determinizations it drew. True: 3 or more compared."""
    env = get_game(game).make(num_players=players)
    env.reset(seed=8)
    wrapped = make_agent(f"pretrained:{name}", game)
    search = make_agent(f"search:pretrained:{name}:{extra}", game, seed=0)
    me = env.agent_selection
    wrapped.reset(table_info(env, game, me))
    search.reset(table_info(env, game, me), seed=0)
    calls: list[int] = []

    def determinize(r: np.random.Generator) -> object:
        calls.append(1)
        return env.unwrapped.determinize(me, r)

    rng = np.random.default_rng(1)
    compared = 0
    for _ in range(40):
        name_ = env.agent_selection
        if env.terminations[name_] or env.truncations[name_]:
            break
        obs = env.observe(name_)
        if name_ == me and obs["action_mask"].sum() > 1:
            calls.clear()
            expected = wrapped.act(obs["observation"], obs["action_mask"], {})
            ctx = {"determinize": determinize}
            assert search.act(obs["observation"], obs["action_mask"], ctx) == expected
            if check is not None:
                check(search, obs, calls)
            compared += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return compared >= 3


def test_the_leaderboard_adds_a_guided_search_over_each_shipped_agent() -> None:
    from cardsuite.agents.arena.leaderboard import default_agents
    from cardsuite.agents.search.guided import guided_specs

    assert guided_specs("scum", ["heuristic", "pretrained:scum4"]) == ["search:pretrained:scum4"]
    # Party: a guided pair costs an ISMCTS pair's time, so only over the first agent
    assert guided_specs("scum_party", ["pretrained:party8", "pretrained:party20"]) == [
        "search:pretrained:party8"
    ]
    assert guided_specs("nosuchgame", ["pretrained:party8"]) == []
    agents = default_agents("scandal", {"num_players": 2}, "")
    shipped = [a for a in agents if a.startswith("pretrained:")]
    assert "pretrained:scandal2" in shipped
    assert [a for a in agents if a.startswith("search:")] == [f"search:{a}" for a in shipped]


def test_the_prior_temperature_follows_what_the_logits_are() -> None:
    """DMC outputs are action values a few hundredths apart: a sharp prior; PPO's are logits."""
    assert make_agent("search:pretrained:scum4", "scum").temperature == 0.1
    assert make_agent("search:pretrained:scandal2", "scandal").temperature == 1.0
    assert make_agent("search:pretrained:scum4:temperature=2", "scum").temperature == 2.0


def _two_moves(spec: str, game: str) -> int:
    """PUCT's choice at a node whose prior says 0.9 for move 0; move 1 has the better mean.

    Both moves visited 10 times; means 0.50 (move 0) and 0.55 (move 1): a Scandal
    difference of 20 points after the ``0.5 + d / 400`` squash.
    """
    agent = make_agent(spec, game, seed=0)
    assert isinstance(agent, GuidedSearchAgent)
    node = PNode(-1)
    node.prior = np.array([0.9, 0.1])
    node.visits = 20
    for a, mean in ((0, 0.50), (1, 0.55)):
        child = node.children[a] = PNode(0)
        child.visits, child.total = 10, 10 * mean
    agent._lo, agent._hi = 0.50, 0.55  # the spread of the means seen so far
    return agent.select(None, None, node, np.array([0, 1]), None)


def test_min_max_values_let_a_better_mean_overrule_the_prior() -> None:
    """Raw values in [0, 1] move PUCT by hundredths: the prior decides (search = copy)."""
    assert _two_moves("search:pretrained:scandal2:leaf=rollout,value=raw", "scandal") == 0
    assert _two_moves("search:pretrained:scandal2:leaf=rollout", "scandal") == 1
    with pytest.raises(ConfigError, match="value must be one of"):
        make_agent("search:pretrained:scandal2:value=tanh", "scandal")
    with pytest.raises(ConfigError, match="rollout must be one of"):
        make_agent("search:pretrained:scandal2:rollout=random", "scandal")


def test_heuristic_rollouts_keep_the_learned_prior() -> None:
    env = get_game("scum").make(num_players=4)
    env.reset(seed=3)
    name = env.agent_selection
    agent = make_agent("search:pretrained:scum4:budget=8,batch=4,rollout=heuristic", "scum", 0)
    assert isinstance(agent, GuidedSearchAgent)
    agent.reset(table_info(env, "scum", name), seed=1)
    obs = env.observe(name)
    root = agent.search(lambda rng: env.unwrapped.determinize(name, rng))
    assert root.visits == 8
    assert agent._rollouts is not None and not isinstance(agent._rollouts.policy, LearnedRollout)
    priors = [c.prior for c in root.children.values() if isinstance(c, PNode)]
    assert priors and all(p is not None and p.sum() == pytest.approx(1.0) for p in priors)
    assert obs["action_mask"].sum() > 1  # a real choice was searched


def test_scandal_defaults_come_from_the_record_and_a_spec_overrides_them() -> None:
    agent = make_agent("search:pretrained:scandal2", "scandal")
    assert (agent.budget, agent.batch, agent.cutoff) == (40, 10, 20)
    agent = make_agent("search:pretrained:scandal2:cutoff=5", "scandal")
    assert (agent.budget, agent.cutoff) == (40, 5)
    agent = make_agent("search:pretrained:scum4", "scum")
    assert (agent.budget, agent.batch, agent.cutoff, agent.max_hand) == (50, 10, 0, 8)


def test_an_agent_with_a_critic_gets_value_leaves_unless_the_spec_names_a_leaf() -> None:
    """Scandal's ``guided_critic`` defaults: the setting that beat scandal2_table (docs/search.md)."""
    settings = ("leaf", "root", "value")
    agent = make_agent("search:pretrained:scandal2", "scandal")
    assert [getattr(agent, k) for k in settings] == ["value", "gumbel", "raw"]
    agent = make_agent("search:pretrained:scandal2:root=puct", "scandal")
    assert [getattr(agent, k) for k in settings] == ["value", "puct", "raw"]
    agent = make_agent("search:pretrained:scandal2:leaf=rollout", "scandal")
    assert [getattr(agent, k) for k in settings] == ["rollout", "puct", "minmax"]
    assert (agent.budget, agent.batch, agent.cutoff) == (40, 10, 20)
    no_critic = make_agent("search:pretrained:scandal4", "scandal")
    assert not no_critic.inner.has_value
    assert [getattr(no_critic, k) for k in settings] == ["rollout", "puct", "minmax"]
    assert make_agent("search:pretrained:scum4", "scum").leaf == "rollout"


@pytest.mark.parametrize("players", [2, 4])
def test_the_guided_search_wraps_a_size_generic_agent_at_any_table(players: int) -> None:
    # pretrained:scandal4 reads the generic layout: its logits() must pad a table's
    # observation as its act() does, or the search's priors meet a matrix of the
    # wrong size (the leaderboard's default Scandal roster seats this search)
    env = get_game("scandal").make(num_players=players)
    env.reset(seed=11)
    name = env.agent_selection
    wrapped = make_agent("pretrained:scandal4", "scandal", seed=0)
    search = make_agent("search:pretrained:scandal4:budget=4,batch=2", "scandal", seed=0)
    wrapped.reset(table_info(env, "scandal", name), seed=0)
    search.reset(table_info(env, "scandal", name), seed=0)
    obs = env.observe(name)
    logits = wrapped.logits(obs["observation"] * wrapped.obs_scale)
    assert logits.shape == obs["action_mask"].shape
    legal = np.flatnonzero(obs["action_mask"])
    expected = wrapped.act(obs["observation"], obs["action_mask"], {})
    assert int(legal[np.argmax(logits[legal])]) == expected
    ctx = {"determinize": lambda rng: env.unwrapped.determinize(name, rng)}
    assert obs["action_mask"][search.act(obs["observation"], obs["action_mask"], ctx)]


# ---------------------------------------------------------------- root="gumbel"
def _root(stats: dict[int, tuple[int, float]]) -> PNode:
    """A root whose children have (visits, mean) as given."""
    from cardsuite.agents.search.guided import PNode as Root

    root = Root(-1)
    for a, (visits, mean) in stats.items():
        child = root.children[a] = Root(0)
        child.visits, child.total = visits, visits * mean
    root.visits = sum(v for v, _ in stats.values())
    return root


def test_halving_searches_the_best_prior_moves_and_keeps_the_better_half() -> None:
    from cardsuite.agents.search.roots import C_SCALE, C_VISIT, HalvingRoot

    prior = np.array([0.0, 0.6, 0.25, 0.1, 0.05])  # action 0 illegal
    with np.errstate(divide="ignore"):
        h = HalvingRoot(np.log(prior), budget=16, candidates=4)
    assert h.remaining == [1, 2, 3, 4] and h.phases == 2
    assert h.quota == 2  # 16 descents over 2 phases of 4 moves
    root = _root({1: (2, 0.50), 2: (1, 0.52)})
    assert h.pick(root) == 3  # unvisited first, then by prior
    h.after_wave(root)
    assert h.remaining == [1, 2, 3, 4], "not every move has had its share yet"
    root = _root({1: (2, 0.50), 2: (2, 0.52), 3: (2, 0.60), 4: (2, 0.40)})
    h.after_wave(root)
    # log prior + (50 + 2) * q, q the means rescaled to their spread (0.40 .. 0.60)
    expect = {a: np.log(prior[a]) + (C_VISIT + 2) * C_SCALE * (m - 0.4) / 0.2
              for a, m in {1: 0.5, 2: 0.52, 3: 0.6, 4: 0.4}.items()}  # fmt: skip
    assert h.score(_root({1: (2, 0.50), 2: (2, 0.52), 3: (2, 0.60), 4: (2, 0.40)}), 3) == (
        pytest.approx(expect[3])
    )
    assert sorted(h.remaining) == [2, 3] and h.quota == 2 + 4
    root = _root({1: (2, 0.5), 2: (6, 0.55), 3: (6, 0.58), 4: (2, 0.4)})
    h.after_wave(root)
    assert h.remaining == [3]
    assert h.choose(root, {1, 2, 3, 4}) == 3, "the value overrules a prior four times larger"
    assert h.choose(root, {1, 2}) is None


def test_a_one_candidate_halving_plays_the_prior_move() -> None:
    from cardsuite.agents.search.roots import HalvingRoot

    h = HalvingRoot(np.log(np.array([0.3, 0.7])), budget=5, candidates=2)
    assert h.remaining == [1, 0]
    root = _root({1: (3, 0.4), 0: (2, 0.4)})  # equal means: the prior decides
    assert h.choose(root, {0, 1}) == 1


def test_gumbel_root_finds_the_forced_win_and_spends_the_budget() -> None:
    from tests.agents.test_ismcts import RACE, RULES, SLOT, scum_position

    env = scum_position(RACE, lead=(1, "9"))
    name = env.agent_selection
    agent = make_agent("search:pretrained:scum4:budget=40,batch=8,root=gumbel", "scum", seed=0)
    assert isinstance(agent, GuidedSearchAgent) and agent.root == "gumbel"
    agent.reset(table_info(env, "scum", name), seed=1)
    obs = env.observe(name)
    ctx = {"determinize": lambda rng: env.unwrapped.determinize(name, rng)}
    assert agent.act(obs["observation"], obs["action_mask"], ctx) == RULES.play_action(1, SLOT["P"])
    assert agent._halving is not None and agent._root_node is not None
    assert agent._root_node.visits == 40
    legal = int(obs["action_mask"].sum())
    assert len(agent._root_node.children) == min(legal, 8), "every candidate was searched"


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        ("budgte=20", "unknown parameter 'budgte'"),
        ("budget=2,budget=3", "given twice"),
        ("budget=2,oops", "not key=value"),
        ("root=best", "root must be one of"),
        ("root=gumbel,candidates=1", "candidates must be an integer >= 2"),
        ("root=gumbel,parallel=root", "root=gumbel needs parallel=leaf"),
        ("root=paired,gate=-1", "gate must be a number >= 0"),
        ("root=paired,gate=yes", "gate must be a number >= 0"),
        ("root=paired,parallel=root", "root=paired needs parallel=leaf"),
    ],
)
def test_bad_parameters_are_named(extra: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        make_agent(f"search:pretrained:scum4:{extra}", "scum")


def test_halving_with_raw_values_adds_the_mean_itself() -> None:
    """``value=raw``: ``sigma(q)`` of the mean reward, not of its rank in the spread."""
    from cardsuite.agents.search.roots import C_SCALE, C_VISIT, HalvingRoot

    prior = np.array([0.9, 0.1])
    h = HalvingRoot(np.log(prior), budget=8, candidates=2, spread=False)
    root = _root({0: (4, 0.50), 1: (4, 0.52)})
    assert h.score(root, 1) == pytest.approx(np.log(0.1) + (C_VISIT + 4) * C_SCALE * 0.52)
    assert h.choose(root, {0, 1}) == 0, "0.02 of reward does not overrule a 9:1 prior"
    spread = HalvingRoot(np.log(prior), budget=8, candidates=2)
    assert spread.choose(root, {0, 1}) == 1, "rescaled to the spread, it does"
    agent = make_agent("search:pretrained:scum4:root=gumbel,value=raw", "scum")
    assert isinstance(agent, GuidedSearchAgent) and agent.value == "raw"


# ---------------------------------------------------------------- root="paired"
def test_paired_choice_needs_a_significant_paired_gain() -> None:
    from cardsuite.agents.search.roots import paired_choice

    base = np.array([0.3, 0.9, 0.5, 0.1, 0.7])  # the deals differ by far more than the moves
    same = np.stack([base, base, base], axis=1)
    assert paired_choice(same, 2.0) == 0, "no gain: the prior's move"
    small = np.stack([base, base + 0.01, base - 0.01], axis=1)
    assert paired_choice(small, 2.0) == 1, "a constant gain of 0.01 has no spread: significant"
    noisy = np.stack([base, base + np.array([0.2, -0.19, 0.2, -0.19, 0.0])], axis=1)
    # mean gain 0.004, standard error 0.2 / sqrt(5): not 2 of them, but above 0 at gate 0
    assert paired_choice(noisy, 2.0) == 0
    assert paired_choice(noisy, 0.0) == 1
    two = np.stack([base, base + 0.02, base + 0.05, base - 0.5], axis=1)
    assert paired_choice(two, 2.0) == 2, "the highest mean gain among the significant ones"
    assert paired_choice(two[:1], 0.0) == 0, "one deal has no standard error"
    assert paired_choice(base[:, None], 0.0) == 0, "one candidate"


def test_candidates_by_prior_take_the_best_legal_moves() -> None:
    from cardsuite.agents.search.roots import candidates_by_prior

    prior = np.array([0.5, 0.2, 0.2, 0.1, 0.0])
    assert candidates_by_prior(prior, np.array([1, 2, 3, 4]), 3) == [1, 2, 3]
    assert candidates_by_prior(prior, np.array([4, 2]), 8) == [2, 4]


@pytest.mark.parametrize(
    ("game", "players", "name"), [("scum", 4, "scum4"), ("scandal", 2, "scandal2")]
)
def test_paired_root_with_a_high_gate_plays_the_wrapped_agent(
    game: str, players: int, name: str
) -> None:
    """Each candidate rolled out on the same ``budget // candidates`` determinizations; no gain
    passes a gate of 1000, so the move is the learned policy's own."""

    def check(search: Any, obs: dict[str, np.ndarray], calls: list[int]) -> None:
        assert isinstance(search, GuidedSearchAgent) and search.gate == 1000
        k = min(3, int(obs["action_mask"].sum()))
        deals = max(2, 12 // k)
        root = search._root_node
        assert root is not None and len(root.children) == k
        assert all(c.visits == deals for c in root.children.values())
        assert len(calls) == deals, "one determinization per deal, shared by the candidates"

    extra = "root=paired,budget=12,candidates=3,gate=1000,batch=5,max_hand=0"
    assert plays_the_wrapped_agent(game, players, name, extra, check)


def test_paired_root_finds_the_forced_win() -> None:
    from tests.agents.test_ismcts import RACE, RULES, SLOT, scum_position

    env = scum_position(RACE, lead=(1, "9"))
    name = env.agent_selection
    agent = make_agent("search:pretrained:scum4:budget=40,root=paired,gate=0", "scum", seed=0)
    agent.reset(table_info(env, "scum", name), seed=1)
    obs = env.observe(name)
    ctx = {"determinize": lambda rng: env.unwrapped.determinize(name, rng)}
    best = RULES.play_action(1, SLOT["P"])
    assert agent.act(obs["observation"], obs["action_mask"], ctx) == best
    root = agent._root_node
    assert root is not None and root.children[best].total == root.children[best].visits
