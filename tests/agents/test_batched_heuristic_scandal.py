"""Differential test: the batched Scandal heuristic chooses exactly what the per-game one does.

A [`BatchedScandal`][scandal_env.batched.BatchedScandal] batch is played with
autoreset; at every step the batched heuristic chooses for a random subset of
the acting rows, called as a trainer calls it (a shuffled subset, or one call
per seat, with the rows' game indices and player ids), and the other rows
play random moves. In lockstep, one plain
`ScandalHeuristic` per (game,
player) is fed the same observations: the actions must be identical at every
step, repeat memories (S4) included. Heuristic play rarely meets a position
twice, so some rows are asked twice (both heuristics, same observation):
the second answer is the repeated-position choice.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardsuite.agents.baselines.batched_scandal import (
    BatchedScandalHeuristic,
    make_batched_heuristic,
)
from cardsuite.agents.baselines.scandal import ScandalHeuristic, make
from cardsuite.errors import ConfigError, UsageError
from scandal_env.batched import BatchedScandal


def _random_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return np.array([int(rng.choice(np.flatnonzero(m))) for m in mask], dtype=np.int64)


def _play(
    config: dict[str, Any],
    games: int,
    steps: int,
    seed: int,
    explore: float,
    twice: float = 0.1,
    **params: Any,
) -> tuple[int, int]:
    """Lockstep play; return (rows compared, most positions met again in one hand).

    ``explore``: share of rows playing random moves; ``twice``: share of the
    heuristic's rows asked once more before the real call (a repeated position).
    """
    eng = BatchedScandal(games, **config)
    fast = BatchedScandalHeuristic(eng.config, eng.obs_spec, **params)
    slow: dict[tuple[int, int], ScandalHeuristic] = {}
    rng = np.random.default_rng(seed)
    obs, mask, to_act = eng.reset(seed)
    compared = repeats = 0
    for t in range(steps):
        mask_b = mask.astype(bool)
        actions = _random_actions(rng, mask_b)
        chosen = np.flatnonzero(rng.random(games) >= explore)
        rng.shuffle(chosen)
        if t % 2:  # one call per seat, as a trainer calls each seat's policy
            calls = [chosen[to_act[chosen] == p] for p in range(eng.num_players)]
        else:
            calls = [chosen]
        again = chosen[rng.random(chosen.size) < twice]
        if again.size:  # asked twice: the same position is met again (S4 memory)
            calls.insert(0, again)
        for rows in calls:
            got = fast(obs[rows], mask[rows], games=rows, players=to_act[rows])
            for r, a in zip(rows.tolist(), got.tolist()):
                key = (r, int(to_act[r]))
                if key not in slow:
                    slow[key] = make(eng.config, eng.obs_spec, **params)
                want = slow[key].act(obs[r], mask_b[r])
                assert a == want, f"step {t}, game {r}, player {key[1]}: {a} != {want} ({config})"
                actions[r] = a
                compared += 1
        # positions met again this hand (memories empty at each new hand)
        seen = sum(n > 1 for mem in fast.memory.values() for n in mem.seen.values())
        repeats = max(repeats, seen)
        res = eng.step(actions)
        obs, mask, to_act = res.obs, res.mask, res.to_act
    return compared, repeats


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("episode", ["hand", "game"])
def test_matches_per_game_heuristic(num_players: int, episode: str) -> None:
    config: dict[str, Any] = {"num_players": num_players, "episode": episode}
    if episode == "game":
        config |= {"target_score": 60, "max_turns": 80, "max_hands": 3}
    compared, repeats = _play(config, games=12, steps=260, seed=num_players, explore=0.25)
    assert compared > 1500
    assert repeats > 0, "no repeated position (S4) was exercised"


def test_matches_with_other_params_and_mostly_heuristic_play() -> None:
    """Heuristic against heuristic stalls hands: repeats (S4) are frequent."""
    compared, repeats = _play(
        {"num_players": 2, "max_turns": 120},
        games=10,
        steps=400,
        seed=9,
        explore=0.05,
        take_cost=0.5,
        deep_margin=5.0,
    )
    assert compared > 3000 and repeats > 0


def test_without_game_ids_rows_are_games() -> None:
    """games/players None: row i is game i, players told apart by the relative dealer."""
    eng = BatchedScandal(8, num_players=3)
    fast = BatchedScandalHeuristic(eng.config.to_dict())
    slow = {(g, p): make(eng.config, eng.obs_spec) for g in range(8) for p in range(3)}
    obs, mask, to_act = eng.reset(2)
    for t in range(300):
        got = fast(obs, mask)
        want = [slow[g, int(to_act[g])].act(obs[g], mask[g]) for g in range(8)]
        assert got.tolist() == want, f"step {t}"
        res = eng.step(got)
        obs, mask, to_act = res.obs, res.mask, res.to_act


def test_torch_in_torch_out() -> None:
    torch = pytest.importorskip("torch")
    eng = BatchedScandal(16, backend="torch", num_players=2)
    fast = make_batched_heuristic(eng.config, eng.obs_spec)
    slow = {(g, p): make(eng.config, eng.obs_spec) for g in range(16) for p in range(2)}
    obs, mask, to_act = eng.reset(5)
    for _ in range(120):
        rows = torch.arange(16)
        got = fast(obs, mask, games=rows, players=to_act)
        assert isinstance(got, torch.Tensor) and got.dtype == torch.int64
        o, m, ta = obs.numpy(), mask.numpy().astype(bool), to_act.numpy()
        want = [slow[g, int(ta[g])].act(o[g], m[g]) for g in range(16)]
        assert got.tolist() == want
        res = eng.step(got)
        obs, mask, to_act = res.obs, res.mask, res.to_act


def test_reset_games_forgets_memory() -> None:
    """After reset_games a game's players choose as fresh heuristics."""
    eng = BatchedScandal(4, num_players=2, max_turns=200)
    fast = BatchedScandalHeuristic(eng.config)
    slow = {(g, p): make(eng.config, eng.obs_spec) for g in range(4) for p in range(2)}
    obs, mask, to_act = eng.reset(7)
    rows = np.arange(4)
    for t in range(200):
        if t == 100:
            fast.reset_games([1, 3])
            for g in (1, 3):
                for p in range(2):
                    slow[g, p] = make(eng.config, eng.obs_spec)
            assert not any(k // 2 in (1, 3) for k in fast.memory)
        got = fast(obs, mask, games=rows, players=to_act)
        want = [slow[g, int(to_act[g])].act(obs[g], mask[g]) for g in range(4)]
        assert got.tolist() == want
        res = eng.step(got)
        obs, mask, to_act = res.obs, res.mask, res.to_act


def test_bad_input_is_refused() -> None:
    eng = BatchedScandal(2, num_players=2)
    obs, mask, _ = eng.reset(0)
    with pytest.raises(ConfigError, match="colour"):
        BatchedScandalHeuristic(eng.config, colour=1.0)
    with pytest.raises(ConfigError, match="config"):
        BatchedScandalHeuristic("scandal")  # type: ignore[arg-type]
    fast = BatchedScandalHeuristic({"num_players": 2})
    with pytest.raises(UsageError, match="games and players"):
        fast(obs, mask, games=np.arange(2))
    with pytest.raises(UsageError, match="players"):
        fast(obs, mask, games=np.arange(2), players=np.array([0, 2]))
    with pytest.raises(UsageError, match="obs"):
        fast(obs[:, :5], mask)


def test_memory_forgets_when_the_turn_goes_down() -> None:
    """S4: a position met again is played differently, but not after the turn
    counter went down (a new hand), exactly as the per-game memory."""
    eng = BatchedScandal(64, num_players=2)
    obs, mask, _ = eng.reset(4)
    player = BatchedScandalHeuristic(eng.config)
    for _ in range(30):  # some way into the hands
        res = eng.step(player(obs, mask))
        obs, mask = res.obs, res.mask
    turn = eng.obs_spec.slices["turn"]
    found = 0
    for g in range(64):
        probe = make(eng.config, eng.obs_spec)
        o, m = obs[g].copy(), mask[g].astype(bool)
        if probe.act(o, m) == probe.act(o, m):
            continue  # the repeat does not change this row's choice
        found += 1
        early = o.copy()
        early[turn] = 0.0
        fast, slow = BatchedScandalHeuristic(eng.config), make(eng.config, eng.obs_spec)
        rows, seat = np.array([g]), np.array([0])
        got = [int(fast(x[None], m[None], games=rows, players=seat)[0]) for x in (o, o, early)]
        want = [slow.act(x, m) for x in (o, o, early)]
        assert got == want and got[2] == got[0] != got[1]
    assert found > 0
