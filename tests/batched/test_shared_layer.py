"""The shared batched layer (cardsuite.batched) and the scum_env.batched names that re-export it."""

from __future__ import annotations

import numpy as np
import pytest

import cardsuite.batched as shared
from cardsuite.batched import BatchedEngine, ShardedEngine, get_backend, run_arena
from cardsuite.batched.deal import permutations
from cardsuite.batched.policies import fill_actions, seat_groups
from cardsuite.errors import ConfigError
from scum_env.batched import BatchedScum, RandomPolicy, ShardedScum, sb3_policy


def test_scum_engines_keep_the_contract_and_old_names_work() -> None:
    assert isinstance(BatchedScum(2, num_players=4), BatchedEngine)
    sharded = ShardedScum(4, threads=2, num_players=5)
    assert isinstance(sharded, ShardedEngine) and isinstance(sharded, BatchedEngine)
    sharded.close()
    assert RandomPolicy is shared.RandomPolicy and sb3_policy is shared.sb3_policy


@pytest.mark.parametrize(
    ("old", "new", "name"),
    [
        ("scum_env.batched.backend", "cardsuite.batched.backend", "get_backend"),
        ("scum_env.batched.deal", "cardsuite.batched.deal", "permutations"),
        ("scum_env.batched.arena", "scum_env.batched.engine", "play_arena"),
        ("scum_env.batched.sharded", "scum_env.batched.engine", "ShardedScum"),
        ("scum_env.batched.vector_env", "scum_env.batched.engine", "ScumVectorEnv"),
    ],
)
def test_moved_scum_batched_modules_import_with_a_warning_naming_the_new_home(
    old: str, new: str, name: str
) -> None:
    import importlib
    import sys

    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        module = importlib.import_module(old)
    assert getattr(module, name) is getattr(importlib.import_module(new), name)


def test_permutations_are_the_same_on_both_backends() -> None:
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    games = np.arange(5, dtype=np.int64)
    a = permutations(get_backend("numpy"), 9, 3, games, games * 2, 54)
    b = permutations(
        get_backend("torch"), 9, 3, torch.as_tensor(games), torch.as_tensor(games * 2), 54
    )
    assert np.array_equal(a, b.numpy())
    assert all(sorted(row) == list(range(54)) for row in a)


def test_fill_actions_asks_each_policy_for_its_seats_only() -> None:
    xp = get_backend("numpy")
    calls: list[int] = []

    def seat_of_first(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        calls.append(len(obs))
        return obs[:, 0].astype(np.int64)

    def zero(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.zeros(len(obs), dtype=np.int64)

    to_act = np.array([0, 12, 3, 12, 40])
    obs = to_act[:, None].astype(np.float32) + 100
    policies = [zero] * 50
    for seat in (3, 12, 20, 21, 22, 23, 24, 25, 26, 40):  # more than 8 seats: the lookup path
        policies[seat] = seat_of_first
    rows = np.array([True, True, True, False, True])
    out = fill_actions(xp, seat_groups(policies), obs, obs > 0, to_act, rows)
    assert out.tolist() == [0, 112, 103, 0, 140] and calls == [3]


def test_bad_arguments_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="threads"):
        ShardedScum(4, threads=0, num_players=4)
    with pytest.raises(ConfigError, match="episodes"):
        run_arena(lambda n: BatchedScum(n, num_players=4), [RandomPolicy(0)] * 4, 0)
    with pytest.raises(ConfigError, match="batch"):
        run_arena(lambda n: BatchedScum(n, num_players=4), [RandomPolicy(0)] * 4, 5, batch=0)
    with pytest.raises(ConfigError, match="4 policies"):
        run_arena(lambda n: BatchedScum(n, num_players=4), [RandomPolicy(0)] * 3, 5)


def test_vector_env_and_arena_serve_scandal_with_its_truncations() -> None:
    """The shared adapters take Scandal's engine as they are; a game cut by ``max_hands``
    comes back truncated, not terminated."""
    batched = pytest.importorskip("scandal_env.batched")

    def make(n: int) -> BatchedEngine:
        return batched.BatchedScandal(n, num_players=2, episode="game", max_hands=1)

    env = shared.BatchedVectorEnv(make(6), learner=1, seed=3)
    obs, _ = env.reset()
    cut = ended = 0
    for _ in range(300):
        obs, _, terminated, truncated, _ = env.step(RandomPolicy(0)(obs, env.action_masks()))
        assert not (terminated & truncated).any()
        cut += int(truncated.sum())
        ended += int(terminated.sum())
    assert cut > 0
    res = run_arena(make, [RandomPolicy(1)] * 2, 12, batch=6)
    assert res.episodes == 12 and res.steps > 0


@pytest.mark.parametrize("pick", ["numpy", "torch_cpu", "torch_max"])
def test_random_policy_is_uniform_over_the_legal_actions(pick: str) -> None:
    """Every pick of RandomPolicy (numpy, torch's running count, the accelerator's arg-max
    of uniforms, here on CPU tensors) is legal and uniform: a chi-square test per mask row."""
    rows = np.array(
        [
            [1, 0, 1, 0, 0, 0, 0, 0, 0, 1],  # 3 legal, first and last columns
            [0] * 9 + [1],  # 1 legal
            [1] * 10,  # all legal
        ],
        dtype=np.int8,
    )
    reps = 6000
    mask = np.repeat(rows, reps, axis=0)
    policy = RandomPolicy(4)
    if pick == "numpy":
        actions = policy(None, mask)
    else:
        torch = pytest.importorskip("torch")
        t_mask = torch.as_tensor(mask)
        if pick == "torch_cpu":
            actions = policy(None, t_mask).numpy()
        else:
            gen = torch.Generator().manual_seed(4)
            actions = RandomPolicy._torch_pick_max(t_mask, gen).numpy()
    actions = np.asarray(actions).reshape(len(rows), reps)
    for row, chosen in zip(rows, actions, strict=True):
        legal = np.flatnonzero(row)
        assert np.isin(chosen, legal).all()
        counts = np.array([(chosen == a).sum() for a in legal])
        expected = reps / len(legal)
        chi2 = float(((counts - expected) ** 2 / expected).sum())
        # 99.9% quantile of chi-square with up to 9 degrees of freedom is 27.9
        assert chi2 < 27.9, (row, counts)
