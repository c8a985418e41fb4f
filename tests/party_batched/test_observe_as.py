"""``BatchedParty.observe_as``: any player's observation, bit for bit ``scum_party_v0``'s.

The batched engine and per-game ``scum_party_v0`` envs run in lockstep (the
differential harness); at every step, for every player id, ``observe_as(p)``
must equal ``env.observe(f"player_{p}")`` in every game, also for players
who are not to act, sit at another table or are out (their table finished,
P7 waits for every table), and the engine's returned observation and mask
must be unchanged by the call.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardsuite.errors import UsageError
from scum_env.party.batched import BatchedParty, ShardedParty
from scum_env.party.config import PartyConfig
from scum_env.party.env import PartyEnv
from tests.party_batched.differential import run_differential, to_numpy

CASES: list[tuple[dict[str, Any], int]] = [
    ({"num_players": 5, "num_hands": 2}, 400),
    ({"num_players": 8, "reward": "final", "num_hands": 2}, 600),
    ({"num_players": 12, "table_sizes": [7, 5], "num_hands": 2, "reward": "rank"}, 800),
    ({"num_players": 16, "num_hands": 1}, 900),
    ({"num_players": 23, "num_hands": 1, "reward": "points"}, 1200),
]


def _checker(counts: dict[str, int]) -> Any:
    """An ``on_step`` hook comparing ``observe_as`` with every env's ``observe``."""

    def check(t: int, batch: BatchedParty, envs: list[PartyEnv], obs: Any, mask: Any) -> None:
        obs_before, mask_before = to_numpy(obs).copy(), to_numpy(mask).copy()
        spec = envs[0].obs_spec
        done_phase = spec.slices["phase"].start + 2
        own_rank = spec.slices["finish_rank"].start
        acting = to_numpy(batch.to_act())
        for p in range(batch.num_players):
            seen = batch.observe_as(p)
            got = to_numpy(seen)
            assert got.shape == obs_before.shape and got.dtype == np.float32
            for g, env in enumerate(envs):
                want = env.observe(f"player_{p}")["observation"]
                if not np.array_equal(got[g], want):
                    bad = [
                        q.name
                        for q in spec.pieces
                        if not np.array_equal(
                            got[g][spec.slices[q.name]], want[spec.slices[q.name]]
                        )
                    ]
                    raise AssertionError(f"step {t}, game {g}, player_{p}: pieces {bad} differ")
                if acting[g] == p:
                    assert np.array_equal(got[g], obs_before[g])
                    counts["acting"] += 1
                else:
                    counts["waiting"] += 1
                counts["table_done"] += int(got[g, done_phase] == 1.0)
                counts["out"] += int(got[g, own_rank] > 0.0)
            seen[...] = -7.0  # a copy: writing it leaves the engine alone
        ids = (np.arange(len(envs)) * 3 + t) % batch.num_players  # one player per game
        mixed = to_numpy(batch.observe_as(batch.xp.asarray(ids, batch.xp.int64)))
        for g, env in enumerate(envs):
            want = env.observe(f"player_{ids[g]}")["observation"]
            assert np.array_equal(mixed[g], want), f"step {t}, game {g}: ids {ids.tolist()}"
        assert np.array_equal(to_numpy(obs), obs_before), f"step {t}: engine obs changed"
        assert np.array_equal(to_numpy(mask), mask_before), f"step {t}: engine mask changed"

    return check


def batch_tables(config: dict[str, Any]) -> int:
    """Number of tables of a config."""
    return len(PartyConfig.from_dict(config).sizes)


def _id(case: tuple[dict[str, Any], int]) -> str:
    return "-".join(f"{k}={v}" for k, v in case[0].items())


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_observe_as_matches_scum_party_v0(case: tuple[dict[str, Any], int]) -> None:
    config, steps = case
    counts = {"acting": 0, "waiting": 0, "table_done": 0, "out": 0}
    # the harness then checks every later step against the envs: observe_as changed nothing
    events = run_differential(config, list(range(3)), steps, on_step=_checker(counts))
    assert events["hands"] > 0 and events["outs"] > 0
    assert counts["acting"] == 3 * steps
    assert counts["waiting"] > 0 and counts["out"] > 0
    if batch_tables(config) > 1:  # a finished table waits for the others (P7)
        assert counts["table_done"] > 0


@pytest.mark.parametrize("players", [5, 8, 12, 16])
def test_observe_as_torch_matches_scum_party_v0(players: int) -> None:
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    counts = {"acting": 0, "waiting": 0, "table_done": 0, "out": 0}
    config = {"num_players": players, "num_hands": 1, "reward": "rank"}
    steps = 120 + 40 * players
    events = run_differential(config, [3, 4], steps, backend="torch", on_step=_checker(counts))
    assert events["hands"] > 0 and counts["out"] > 0
    assert counts["table_done"] > 0 or batch_tables(config) == 1


def test_observe_as_refuses_bad_players_and_unreset_engines() -> None:
    eng = BatchedParty(2, num_players=8)
    with pytest.raises(UsageError, match="reset"):
        eng.observe_as(0)
    eng.reset(0)
    bad_ids = [np.array([0, 8]), np.array([0]), np.array([0.0, 1.0]), np.array([[0, 1]])]
    for bad in (-1, 8, True, 1.5, "player_0", *bad_ids):
        with pytest.raises(UsageError, match="player"):
            eng.observe_as(bad)  # type: ignore[arg-type]
    assert eng.observe_as(np.int64(7)).shape == (2, eng.obs_dim)  # type: ignore[arg-type]


def test_sharded_observe_as_is_one_batch() -> None:
    """Threads split the games; every player's view is the single batch's."""
    config = {"num_players": 16, "num_hands": 1}
    one = BatchedParty(7, **config)  # type: ignore[arg-type]
    sharded = ShardedParty(7, threads=3, **config)  # type: ignore[arg-type]
    rng = np.random.default_rng(2)
    _, mask, _ = one.reset(5)
    sharded.reset(5)
    try:
        for t in range(400):
            if t % 40 == 0:
                for p in range(16):
                    assert np.array_equal(one.observe_as(p), sharded.observe_as(p))
                ids = rng.integers(0, 16, 7)
                assert np.array_equal(one.observe_as(ids), sharded.observe_as(ids))
            actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
            mask = one.step(actions).mask
            sharded.step(actions)
    finally:
        sharded.close()
