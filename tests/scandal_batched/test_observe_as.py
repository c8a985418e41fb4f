"""``BatchedScandal.observe_as``: any player's view, identical to ``scandal_v0``'s.

Each batched game is mirrored by a ``scandal_v0.raw_env`` playing the same
deals and actions (the harness of ``differential.py``). At every step, for
every player id ``p``, ``observe_as(p)[g]`` must equal the env's
``observe(f"player_{p}")`` bit for bit (the player to act and the others),
and the call must leave the engine's state and the ``obs``/``mask`` the last
step returned untouched.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardsuite.errors import UsageError
from scandal_env import scandal_v0
from scandal_env.batched import BatchedScandal
from tests.scandal_batched.differential import env_preset, host, pick, redeal


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(np.uint32)


def _snapshot(batch: BatchedScandal) -> dict[str, np.ndarray]:
    return {k: host(v).copy() for k, v in batch.state_arrays().items()}


def _check_views(
    batch: BatchedScandal,
    envs: list[Any],
    obs: Any,
    mask: Any,
    over: np.ndarray,
    where: str,
) -> int:
    """Compare ``observe_as(p)`` with every env for every ``p``; return rows compared."""
    obs_before, mask_before = host(obs).copy(), host(mask).copy()
    state_before = _snapshot(batch)
    agents = envs[0].possible_agents
    sl = batch.obs_spec.slices
    phase = sl["phase"]
    to_act = host(batch.to_act())
    compared = 0
    for p in range(batch.num_players):
        view = batch.observe_as(p)
        assert type(view) is type(obs) and view is not obs
        got = host(view)
        assert got.shape == (batch.num_games, batch.obs_dim) and got.dtype == np.float32
        for g, env in enumerate(envs):
            want = env.observe(agents[p])["observation"]
            if over[g]:
                # A finished game (autoreset=False) is seen from its final
                # position; only the phase differs: the engine marks it over.
                assert not got[g, phase].any(), f"phase of a finished game at {where}"
                want = want.copy()
                want[phase] = 0.0
            same = _bits(got[g]) == _bits(want)
            if not same.all():
                bad = [name for name, s in sl.items() if not same[s].all()]
                raise AssertionError(f"player {p}, game {g} differs at {where} in {bad}")
            if p == to_act[g]:  # the acting player's view is the step's observation
                assert np.array_equal(_bits(got[g]), _bits(obs_before[g])), where
            compared += 1
        view[:] = -1.0  # a copy: writing to it changes nothing in the engine
    assert np.array_equal(_bits(host(obs)), _bits(obs_before)), f"obs changed at {where}"
    assert np.array_equal(host(mask), mask_before), f"mask changed at {where}"
    after = _snapshot(batch)
    for name, before in state_before.items():
        assert np.array_equal(after[name], before), f"state {name} changed at {where}"
    return compared


def run_observe_as(
    config: dict[str, Any], seed: int, num_games: int, steps: int, backend: str, autoreset: bool
) -> tuple[int, int]:
    """Play the batch and its envs in lockstep; return (rows compared, finished games)."""
    batch = BatchedScandal(num_games, backend=backend, autoreset=autoreset, **config)
    n = batch.t.n
    obs, mask, _ = batch.reset(seed)
    envs = [scandal_v0.raw_env(**config) for _ in range(num_games)]
    for g, env in enumerate(envs):
        env.reset(options=env_preset(batch.game_view(g)))
    rng = np.random.default_rng(seed)
    first_meld = batch.rules.layout.DISCARD
    over = np.zeros(num_games, dtype=bool)
    hand_no = host(batch.hand_no).copy()
    compared = 0
    for t in range(steps):
        where = f"step {t} ({config}, seed {seed}, {backend}, autoreset={autoreset})"
        compared += _check_views(batch, envs, obs, mask, over, where)
        if over.all():
            break
        mask_n = host(mask)
        actions = np.zeros(num_games, dtype=np.int64)
        for g in range(num_games):
            if not over[g]:
                actions[g] = pick(rng, mask_n[g], first_meld, 0.0 if g % 3 == 0 else 0.85)
        res = batch.step(actions)
        done, new_hand_no = host(res.done), host(batch.hand_no)
        for g, env in enumerate(envs):
            if over[g]:
                continue
            env.step(int(actions[g]))
            if done[g]:
                if autoreset:
                    env.reset(options=env_preset(batch.game_view(g)))
                else:
                    over[g] = True
            elif new_hand_no[g] != hand_no[g]:
                redeal(env, batch.game_view(g), n)
        hand_no = new_hand_no.copy()
        obs, mask = res.obs, res.mask
    return compared, int(over.sum())


@pytest.mark.parametrize("num_players", [2, 3, 4, 6])
@pytest.mark.parametrize("episode", ["hand", "game"])
def test_observe_as_matches_per_game_env(num_players: int, episode: str) -> None:
    config: dict[str, Any] = {"num_players": num_players, "episode": episode}
    if episode == "game":
        config |= {"target_score": 50, "max_turns": 70, "max_hands": 3}
    compared, _ = run_observe_as(config, num_players, 6, 220, "numpy", autoreset=True)
    assert compared > 0


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_observe_as_on_finished_games(episode: str) -> None:
    """autoreset=False: finished games are seen from their final position."""
    config = {"num_players": 3, "episode": episode, "max_turns": 50, "max_hands": 2}
    _, finished = run_observe_as(config, 7, 6, 600, "numpy", autoreset=False)
    assert finished > 0


@pytest.mark.parametrize("num_players", [2, 4])
def test_observe_as_on_torch(num_players: int) -> None:
    pytest.importorskip("torch")
    config = {"num_players": num_players, "episode": "game", "target_score": 60, "max_turns": 80}
    compared, _ = run_observe_as(config, 11, 5, 200, "torch", autoreset=True)
    assert compared > 0
    _, finished = run_observe_as(
        {"num_players": num_players, "max_turns": 40}, 12, 4, 300, "torch", autoreset=False
    )
    assert finished > 0


def test_observe_as_per_game_players() -> None:
    """``[N]`` player ids give each game's row of the matching ``observe_as(p)``."""
    batch = BatchedScandal(5, num_players=4)
    batch.reset(3)
    for _ in range(7):
        mask = host(batch.mask)
        batch.step(np.array([int(np.flatnonzero(m)[0]) for m in mask], dtype=np.int64))
    seats = np.array([3, 0, 2, 1, 3], dtype=np.int64)
    got = batch.observe_as(seats)
    for g, p in enumerate(seats):
        assert np.array_equal(_bits(got[g]), _bits(batch.observe_as(int(p))[g]))


def test_observe_as_refuses_bad_input() -> None:
    batch = BatchedScandal(3, num_players=2)
    with pytest.raises(UsageError, match="reset"):
        batch.observe_as(0)
    batch.reset(0)
    for bad in (2, -1, True, 1.0, "0", np.array([0, 1]), np.array([0.0, 1.0, 0.0])):
        with pytest.raises(UsageError, match="player"):
            batch.observe_as(bad)  # type: ignore[arg-type]


def test_sharded_observe_as_matches_one_batch() -> None:
    from scandal_env.batched import ShardedScandal

    one = BatchedScandal(7, num_players=3)
    sharded = ShardedScandal(7, threads=3, num_players=3)
    one.reset(4)
    sharded.reset(4)
    for _ in range(9):
        actions = np.array([int(np.flatnonzero(m)[-1]) for m in host(one.mask)], dtype=np.int64)
        one.step(actions)
        sharded.step(actions)
    seats = np.array([0, 1, 2, 2, 1, 0, 1], dtype=np.int64)
    for player in (0, 1, 2, seats):
        want, got = host(one.observe_as(player)), sharded.observe_as(player)
        assert np.array_equal(_bits(got), _bits(want))
    with pytest.raises(UsageError, match="player"):
        sharded.observe_as(np.array([0, 1]))
