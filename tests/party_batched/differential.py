"""Differential harness: the batched Scum Party engine against ``scum_party_v0`` (the truth).

Each game of the batch is mirrored by one ``scum_party_v0`` raw env. The
first hand is the env's own seeded deal and seat draw (with or without the
trades, with or without preset totals), handed to the batched engine as
presets; every later hand is the batched engine's own hashed deal, handed to
the env's tables (``start_series`` with preset hands and the P5 trades), and
a restarted tournament is handed over as the env's reset presets. The same
uniformly random legal actions then run through both, and every step must
give identical observations, masks, players to act, rewards and ends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from scum_env import engine as E
from scum_env import scum_party_v0
from scum_env.party.batched import BatchedParty
from scum_env.party.cards import CARDS
from scum_env.party.engine import Party
from scum_env.party.env import PartyEnv


def to_numpy(x: Any) -> np.ndarray:
    """An engine output as numpy."""
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


def names(counts: np.ndarray) -> list[str]:
    """Card names of a ``[14]`` count vector."""
    return [CARDS.names[s] for s in range(len(counts)) for _ in range(int(counts[s]))]


def party_of(env: PartyEnv) -> Party:
    """The env's running tournament."""
    assert env.game is not None
    return env.game


def dealt_by_player(env: PartyEnv) -> np.ndarray:
    """``[n, 14]`` hands of every player as dealt this hand (before the trades)."""
    game = party_of(env)
    out = np.zeros((game.num_players, 14), dtype=np.int64)
    for members, st in zip(game.members, game.tables, strict=True):
        dealt = st.hands + st.given - st.received
        for q, player in enumerate(members):
            out[player] = dealt[q]
    return out


def view_hands(view: dict[str, Any], n: int) -> list[list[str]]:
    """Per player id, the card names the batched engine dealt this hand."""
    out: list[list[str]] = [[] for _ in range(n)]
    for members, dealt in zip(view["members"], view["dealt"], strict=True):
        for j, player in enumerate(members):
            out[player] = names(dealt[j])
    return out


def run_differential(
    config: dict[str, Any],
    seeds: list[int],
    steps: int,
    backend: str = "numpy",
    on_step: Callable[[int, BatchedParty, list[PartyEnv], Any, Any], None] | None = None,
) -> dict[str, int]:
    """Play ``steps`` steps of ``len(seeds)`` games through both engines; counts of events.

    Game ``i`` starts from ``scum_party_v0`` reset with ``seeds[i]``; seeds
    ``% 3 == 1`` start without the trades, ``% 3 == 2`` with preset totals.
    ``on_step(t, batch, envs, obs, mask)``, if given, runs at every step
    before the actions are chosen (the engines are in lockstep there).
    Returns ``hands`` (hands scored), ``tournaments`` (episodes ended),
    ``jokers`` (Joker plays) and ``outs`` (players who went out).
    """
    rng = np.random.default_rng(seeds[0] * 7919 + len(seeds))
    envs = []
    for s in seeds:
        env = scum_party_v0.raw_env(**config)
        options: dict[str, Any] = {"trade": s % 3 != 1}
        if s % 3 == 2:
            options["scores"] = [int(v) for v in rng.integers(-5, 30, env.config.num_players)]
        env.reset(seed=s, options=options)
        envs.append(env)
    n = envs[0].config.num_players
    batch = BatchedParty(len(seeds), backend=backend, **config)
    obs, mask, to_act = batch.reset(
        seed=seeds[0],
        seating=np.array([[p for m in party_of(e).members for p in m] for e in envs]),
        hands=np.stack([dealt_by_player(e) for e in envs]),
        trade=np.array([s % 3 != 1 for s in seeds]),
        scores=np.array([party_of(e).scores for e in envs]),
    )
    counts = {"hands": 0, "tournaments": 0, "jokers": 0, "outs": 0}
    spec = envs[0].obs_spec
    for t in range(steps):
        if on_step is not None:
            on_step(t, batch, envs, obs, mask)
        obs_n, mask_n, act_n = to_numpy(obs), to_numpy(mask), to_numpy(to_act)
        actions = np.zeros(len(envs), dtype=np.int64)
        for i, env in enumerate(envs):
            where = f"step {t}, game {i} (seed {seeds[i]}, {config}, {backend})"
            agent = env.agent_selection
            seen = env.observe(agent)
            assert act_n[i] == int(agent.split("_")[1]), f"player to act differs at {where}"
            assert np.array_equal(mask_n[i], seen["action_mask"]), f"mask differs at {where}"
            if not np.array_equal(obs_n[i], seen["observation"]):
                bad = [
                    p.name
                    for p in spec.pieces
                    if not np.array_equal(
                        obs_n[i][spec.slices[p.name]], seen["observation"][spec.slices[p.name]]
                    )
                ]
                raise AssertionError(f"observation differs at {where}: pieces {bad}")
            legal = np.flatnonzero(seen["action_mask"])
            actions[i] = legal[rng.integers(len(legal))]
            counts["jokers"] += int(actions[i] > 0 and (actions[i] - 1) % 14 == 13)
        res = batch.step(actions)
        done, rewards = to_numpy(res.done), to_numpy(res.rewards)
        for i, env in enumerate(envs):
            where = f"step {t}, game {i} (seed {seeds[i]}, {config}, {backend})"
            game = party_of(env)
            hand_before = game.hand
            outs_before = sum(len(st.finish) for st in game.tables)
            env.step(int(actions[i]))
            expected = np.array([env.rewards[a] for a in env.possible_agents], dtype=np.float32)
            assert np.array_equal(rewards[i], expected), (
                f"rewards differ at {where}: {rewards[i]} vs {expected}"
            )
            ended = all(env.terminations.values())
            assert bool(done[i]) == ended, f"tournament end differs at {where}"
            if game.hand == hand_before:
                counts["outs"] += sum(len(st.finish) for st in game.tables) - outs_before
                continue
            counts["hands"] += 1
            view = batch.game_view(i)
            if ended:
                counts["tournaments"] += 1
                flat = [p for m in view["members"] for p in m]
                env.reset(options={"seating": flat, "hands": view_hands(view, n), "trade": True})
                continue
            assert view["members"] == game.members, f"ladder differs at {where}"
            assert np.array_equal(view["scores"], game.scores), f"scores differ at {where}"
            hands = view_hands(view, n)
            for members, st in zip(game.members, game.tables, strict=True):
                local = [hands[p] for p in members]
                E.start_series(st, list(range(st.num_players)), hands=local, trade=True)
        obs, mask, to_act = res.obs, res.mask, res.to_act
    return counts
