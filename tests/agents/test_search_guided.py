"""Guided search (``search:pretrained:NAME``): specs, errors, and search over a learned prior."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.agents.base import table_info
from cardsuite.agents.guided_search import GuidedSearchAgent, PNode, softmax_prior, split_spec
from cardsuite.agents.registry import make_agent, parse_spec
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


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("pretrained:scum4:budgte=20", "unknown parameter 'budgte'"),
        ("pretrained:scum4:budget=2,budget=3", "given twice"),
        ("pretrained:scum4:budget=2,oops", "not key=value"),
    ],
)
def test_bad_parameters_are_named(text: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        split_spec(text)


def test_the_kind_is_registered_and_wraps_only_learned_agents() -> None:
    assert parse_spec("search:pretrained:scum4").kind == "search"
    with pytest.raises(ConfigError, match="no policy logits"):
        make_agent("search:heuristic", "scum")
    with pytest.raises(ConfigError, match="temperature"):
        make_agent("search:pretrained:scum4:temperature=0", "scum")
    with pytest.raises(ConfigError, match="no guided search"):
        make_agent("search:pretrained:party8", "scum_party")
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
    agent = make_agent("search:pretrained:scandal2:budget=6,batch=3,cutoff=6", "scandal", seed=0)
    agent.reset(table_info(env, "scandal", name), seed=1)
    obs = env.observe(name)
    ctx = {"determinize": lambda rng: env.unwrapped.determinize(name, rng)}
    a = agent.act(obs["observation"], obs["action_mask"], ctx)
    assert obs["action_mask"][a] == 1


@pytest.mark.parametrize(
    ("game", "players", "name"), [("scum", 4, "scum4"), ("scandal", 2, "scandal2")]
)
def test_budget_one_plays_the_wrapped_agent(game: str, players: int, name: str) -> None:
    """One descent visits the move of highest prior, the learned policy's own choice."""
    env = get_game(game).make(num_players=players)
    env.reset(seed=8)
    wrapped = make_agent(f"pretrained:{name}", game)
    search = make_agent(f"search:pretrained:{name}:budget=1", game, seed=0)
    me = env.agent_selection
    wrapped.reset(table_info(env, game, me))
    search.reset(table_info(env, game, me), seed=0)
    rng = np.random.default_rng(1)
    compared = 0
    for _ in range(40):
        name_ = env.agent_selection
        if env.terminations[name_] or env.truncations[name_]:
            break
        obs = env.observe(name_)
        if name_ == me and obs["action_mask"].sum() > 1:
            ctx = {"determinize": lambda r: env.unwrapped.determinize(me, r)}
            expected = wrapped.act(obs["observation"], obs["action_mask"], {})
            assert search.act(obs["observation"], obs["action_mask"], ctx) == expected
            compared += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert compared >= 3
