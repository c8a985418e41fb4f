"""Differential harness: the batched Scandal engine against ``scandal_v0`` (the truth).

Every game of a batch is mirrored by one ``scandal_v0.raw_env``. Both start
from the same deal: the batched engine's hashed deal handed to the env as a
reset preset, or (``from_env=True``) the env's own seeded deal handed to the
batched engine as a preset. Later hands of a game (``episode="game"``) are the
batched engine's deals, written into the env through its JSON state (the
public ``to_json``/``reset(options={"state": ...})`` round trip). Both then
play the same actions, chosen at random among the legal ones with a bias
towards melding (so deep draws, melds, gold cards and lay-offs are frequent),
and every step must give identical observations (bit for bit), masks,
players to act, rewards, episode ends and truncations.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import numpy as np

from scandal_env import scandal_v0
from scandal_env.batched import BatchedScandal
from scandal_env.batched.consts import END_NAMES
from scandal_env.engine import to_json


def host(x: Any) -> np.ndarray:
    """An engine output as numpy."""
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


def env_preset(view: dict[str, Any]) -> dict[str, Any]:
    """The ``scandal_v0`` reset preset of a batched game's current deal."""
    return {k: view[k] for k in ("hands", "discard", "stock", "dealer")}


def redeal(env: Any, view: dict[str, Any], n: int) -> None:
    """Replace the env's freshly dealt hand by the batched engine's deal (same dealer)."""
    data = json.loads(to_json(env.game))
    hands = [[False] * n for _ in view["hands"]]
    for i, cards in enumerate(view["hands"]):
        for c in cards:
            hands[i][c] = True
    data["hands"] = hands
    data["known"] = [[False] * n for _ in view["hands"]]
    data["pile"] = view["discard"][::-1]
    data["stock"] = view["stock"][::-1]
    env.reset(options={"state": json.dumps(data)})


def batch_preset(envs: list[Any], n: int) -> dict[str, np.ndarray]:
    """Batched reset presets of the envs' current deals."""
    g, p = len(envs), envs[0].num_agents
    hands = np.zeros((g, p, n), dtype=bool)
    discard = np.full((g, n), -1, dtype=np.int64)
    stock = np.full((g, n), -1, dtype=np.int64)
    dealer = np.zeros(g, dtype=np.int64)
    for i, env in enumerate(envs):
        data = json.loads(to_json(env.game))
        hands[i] = np.asarray(data["hands"], dtype=bool)
        top_first = data["pile"][::-1]
        discard[i, : len(top_first)] = top_first
        stock_top = data["stock"][::-1]
        stock[i, : len(stock_top)] = stock_top
        dealer[i] = data["dealer"]
    return {"hands": hands, "discard": discard, "stock": stock, "dealer": dealer}


def pick(rng: np.random.Generator, mask: np.ndarray, first_meld: int, keen: float) -> int:
    """A random legal action; with probability ``keen`` one that is not a plain
    stock draw or discard when there is one (meld steps, lay-offs, discard draws)."""
    legal = np.flatnonzero(mask)
    if rng.random() < keen:
        rich = legal[(legal > 0) & (legal < first_meld)]
        if rich.size:
            return int(rng.choice(rich))
    return int(rng.choice(legal))


def run_differential(
    config: dict[str, Any],
    seed: int,
    num_games: int,
    steps: int,
    backend: str = "numpy",
    from_env: bool = False,
) -> Counter[str]:
    """Play ``steps`` batched steps of ``num_games`` games against ``scandal_v0``.

    Returns counts of the events exercised: ``deep_draws``, ``gold_placed``,
    ``layoffs``, ``melds``, ``flips`` (the pile turned over, S4),
    ``flip_one`` (a one-card pile turned over, S7), ``hands`` and how they
    ended (``out``, ``blocked``, ``max_turns``), ``episodes``,
    ``truncated_episodes`` and ``match_ends`` (a game reached its target).
    """
    batch = BatchedScandal(num_games, backend=backend, **config)
    lay, deck = batch.rules.layout, batch.rules.deck
    n = deck.n_cards
    envs = [scandal_v0.raw_env(**config) for _ in range(num_games)]
    if from_env:
        for i, env in enumerate(envs):
            env.reset(seed=seed * 1000 + i)
        obs, mask, to_act = batch.reset(seed, **batch_preset(envs, n))
    else:
        obs, mask, to_act = batch.reset(seed)
        for i, env in enumerate(envs):
            env.reset(options=env_preset(batch.game_view(i)))
    rng = np.random.default_rng(seed)
    keen = [0.0 if i % 3 == 0 else 0.85 for i in range(num_games)]
    first_meld = lay.DISCARD
    sl = batch.obs_spec.slices
    o_stock, o_pile = sl["stock_size"].start, sl["discard_in"]
    hand_no = host(batch.hand_no).copy()
    events: Counter[str] = Counter()
    agents = envs[0].possible_agents
    for t in range(steps):
        obs_n, mask_n, act_n = host(obs), host(mask), host(to_act)
        actions = np.zeros(num_games, dtype=np.int64)
        for i, env in enumerate(envs):
            where = f"step {t}, game {i} ({config}, seed {seed}, {backend})"
            agent = env.agent_selection
            assert agent == agents[act_n[i]], f"player to act differs at {where}"
            ob = env.observe(agent)
            assert np.array_equal(mask_n[i], ob["action_mask"]), f"mask differs at {where}"
            same = obs_n[i].view(np.uint32) == ob["observation"].view(np.uint32)
            if not same.all():
                bad = [name for name, s in sl.items() if not same[s].all()]
                raise AssertionError(f"observation differs at {where} in {bad}")
            a = pick(rng, mask_n[i], first_meld, keen[i])
            actions[i] = a
            _count(events, a, lay, deck, obs_n[i], o_stock, o_pile)
        res = batch.step(actions)
        done, trunc = host(res.done), host(res.truncated)
        rewards = host(res.rewards)
        new_hand_no = host(batch.hand_no)
        hand_end = host(batch.hand_end)
        for i, env in enumerate(envs):
            where = f"step {t}, game {i} ({config}, seed {seed}, {backend})"
            env.step(int(actions[i]))
            want = np.array([env.rewards[ag] for ag in agents], dtype=np.float32)
            assert np.array_equal(rewards[i], want), f"rewards differ at {where}"
            ended = all(env.terminations[ag] or env.truncations[ag] for ag in agents)
            assert done[i] == ended, f"done differs at {where}"
            assert trunc[i] == any(env.truncations[ag] for ag in agents), f"truncation at {where}"
            if want.any() or ended:
                events["hands"] += 1
                events[END_NAMES[int(hand_end[i])] or "none"] += 1
            if ended:
                events["episodes"] += 1
                events["truncated_episodes"] += int(trunc[i])
                game = env.game
                if game is not None and game.game_over and config.get("episode") == "game":
                    events["match_ends"] += 1
                env.reset(options=env_preset(batch.game_view(i)))
            elif new_hand_no[i] != hand_no[i]:
                redeal(env, batch.game_view(i), n)
        hand_no = new_hand_no.copy()
        obs, mask, to_act = res.obs, res.mask, res.to_act
    return events


def _count(
    events: Counter[str], a: int, lay: Any, deck: Any, obs: np.ndarray, o_stock: int, o_pile: slice
) -> None:
    """Count what action ``a`` exercises (read from the observation before it)."""
    if a == lay.DRAW_STOCK and obs[o_stock] == 0.0:
        events["flips"] += 1
        if obs[o_pile].sum() == 1.0:
            events["flip_one"] += 1
    elif lay.DRAW_DISCARD < a < lay.MELD_START:
        events["deep_draws"] += 1
    elif a == lay.MELD_FINISH:
        events["melds"] += 1
    elif lay.LAYOFF <= a < lay.DISCARD:
        events["layoffs"] += 1
        if deck.is_gold[int(deck.pair_card[a - lay.LAYOFF])]:
            events["gold_placed"] += 1
    elif lay.MELD_ADD <= a < lay.MELD_FINISH and deck.is_gold[a - lay.MELD_ADD]:
        events["gold_placed"] += 1
