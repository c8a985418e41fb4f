"""Differential test: the batched Party heuristic chooses exactly what ``PartyHeuristic`` does.

States come from the batched Scum Party engine (P1–P8: several tables of
different sizes, the ladder, new deals with the forced trades of P5, every
reward mode), played by a mix of random moves and the heuristic itself. On
every row of every step, `BatchedPartyHeuristic` must return the
action `PartyHeuristic` returns for
the same observation and mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardsuite.agents.baselines.party import BatchedPartyHeuristic, PartyHeuristic
from cardsuite.batched import RandomPolicy
from cardsuite.errors import ConfigError
from scum_env.party.batched import BatchedParty


def _compare(steps: int, games: int, seed: int, **config: Any) -> dict[str, int]:
    """Play ``steps`` steps; compare every row; counts of rows by size and phase."""
    eng = BatchedParty(games, **config)
    fast = BatchedPartyHeuristic(eng.config)
    slow = PartyHeuristic(eng.config, eng.obs_spec)
    rand = RandomPolicy(seed)
    rng = np.random.default_rng(seed)
    obs, mask, _ = eng.reset(seed)
    seats = eng.obs_spec.slices["seats"]
    phase = eng.obs_spec.slices["phase"]
    counts: dict[str, int] = {"rows": 0, "follow": 0, "hands": 0}
    for _ in range(steps):
        got = fast(obs, mask)
        want = np.array([slow.act(o, m.astype(bool)) for o, m in zip(obs, mask)])
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, (
            f"row {bad[0]}: batched {got[bad[0]]} != per-game {want[bad[0]]} "
            f"(obs {obs[bad[0]].tolist()}, legal {np.flatnonzero(mask[bad[0]]).tolist()})"
        )
        counts["rows"] += len(obs)
        counts["follow"] += int((obs[:, phase].argmax(axis=1) == 1).sum())
        for size in np.rint(obs[:, seats].sum(axis=1)).astype(int).tolist():
            counts[f"size{size}"] = counts.get(f"size{size}", 0) + 1
        explore = rng.random(games) < 0.3
        actions = np.where(explore, rand(obs, mask), got)
        before = eng.hand.copy()
        res = eng.step(actions)
        counts["hands"] += int(((eng.hand != before) | res.done).sum())  # scored, or restarted
        obs, mask = res.obs, res.mask
    return counts


CONFIGS: list[dict[str, Any]] = [
    {"num_players": 5, "num_hands": 2},
    {"num_players": 8, "reward": "final", "num_hands": 3},
    {"num_players": 12, "reward": "rank", "num_hands": 2},
    {"num_players": 12, "table_sizes": [7, 5], "num_hands": 2},
    {"num_players": 17, "table_sizes": [9, 8], "num_hands": 2},  # 3 decks and 2 (P2)
    {"num_players": 20, "num_hands": 2},
    {"num_players": 23, "reward": "rank", "num_hands": 1},
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
@pytest.mark.parametrize("seed", [0, 7])
def test_batched_party_heuristic_matches_per_row(config: dict[str, Any], seed: int) -> None:
    """Every row of 24 tournaments, long enough for every table to play out hands (P7, P8)."""
    steps = 200 + 40 * config["num_players"]
    counts = _compare(steps=steps, games=24, seed=seed, **config)
    assert counts["rows"] == steps * 24 and counts["follow"] > 0 and counts["hands"] > 0
    sizes = {int(k[4:]) for k in counts if k.startswith("size")}
    assert sizes == set(BatchedParty(1, **config).config.sizes)


def test_rows_of_finished_tables_get_their_first_legal_action() -> None:
    """Observations of players whose table is done (``observe_as``) act as PartyHeuristic."""
    eng = BatchedParty(16, num_players=16, num_hands=1)
    fast = BatchedPartyHeuristic({"num_players": 16, "num_hands": 1})
    slow = PartyHeuristic(eng.config, eng.obs_spec)
    obs, mask, _ = eng.reset(3)
    rand = RandomPolicy(3)
    done_rows = 0
    last = np.zeros((0, eng.obs_dim), dtype=np.float32)
    for t in range(1500):
        res = eng.step(rand(obs, mask))
        obs, mask = res.obs, res.mask
        if t % 10:
            continue
        for p in range(16):
            seen = eng.observe_as(p)
            done = seen[:, eng.obs_spec.slices["phase"]].argmax(axis=1) == 2
            if done.any():
                only_pass = np.zeros((int(done.sum()), eng.num_actions), dtype=bool)
                only_pass[:, 0] = True
                want = [slow.act(o, m) for o, m in zip(seen[done], only_pass)]
                assert fast(seen[done], only_pass).tolist() == want
                done_rows += int(done.sum())
                last = seen[done][:1]
    assert done_rows > 0
    assert fast(last, np.zeros((1, eng.num_actions), dtype=bool)).tolist() == [0]  # empty mask
    assert fast(last[:0], np.zeros((0, eng.num_actions), dtype=bool)).shape == (0,)


def test_torch_inputs_give_torch_actions() -> None:
    """Torch tensors in, torch int64 actions out, the same choices."""
    torch = pytest.importorskip("torch")
    eng = BatchedParty(32, num_players=12, table_sizes=[7, 5])
    obs, mask, _ = eng.reset(1)
    fast = BatchedPartyHeuristic(eng.config, eng.obs_spec)
    got = fast(torch.from_numpy(obs.copy()), torch.from_numpy(mask.copy()))
    assert isinstance(got, torch.Tensor) and got.dtype == torch.int64
    assert got.tolist() == fast(obs, mask).tolist()


def test_bad_config_and_params_raise_config_error() -> None:
    with pytest.raises(ConfigError):
        BatchedPartyHeuristic({"num_players": 3})
    with pytest.raises(ConfigError, match="bogus"):
        BatchedPartyHeuristic({"num_players": 8}, bogus=1)
