"""``BatchedScum.observe_as``: any player's view, the trainers' per-player view (issue 20).

Differential against the per-game encoder (the truth): after random legal
play, ``observe_as(ids)`` row ``g`` is ``scum_v0``'s observation of player
``ids[g]`` in game ``g``, for the player to act and for every other seat, and
the engine's own buffers are left as they were.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.errors import UsageError
from scum_env import engine as E
from scum_env.batched.engine import BatchedScum
from scum_env.config import ScumConfig
from scum_env.encoding import Encoder
from scum_env.rules import scum_rules


@pytest.mark.parametrize(
    "config",
    [
        {"num_players": 4},
        {"num_players": 6, "carousel": True},
        {"num_players": 5, "trade_rules": "spanish", "color_clash": True, "wild_queen": True},
    ],
)
def test_every_seat_sees_what_the_per_game_encoder_shows(config: dict[str, object]) -> None:
    rules = scum_rules(ScumConfig.from_dict({**config, "episode": "series"}))
    enc = Encoder(rules)
    n, num = rules.num_players, 6
    games = [E.new_game(rules, s, trade=s % 2 == 1) for s in range(num)]
    batch = BatchedScum(num, autoreset=False, **config)
    batch.reset(
        seed=0,
        hands=np.stack([g.hands + g.given - g.received for g in games]),
        roles=np.array([g.order for g in games]),
        trade=np.array([s % 2 == 1 for s in range(num)]),
    )
    rng = np.random.default_rng(7)
    out = np.zeros(enc.spec.size, dtype=np.float32)
    checked = 0
    for _ in range(25):
        obs, mask = np.copy(batch.encoder.obs), np.copy(batch._mask)
        for p in range(n):
            view = batch.observe_as(p)
            for i, g in enumerate(games):
                if g.phase == E.OVER:
                    continue
                enc.encode(g, p, out)
                assert np.array_equal(view[i], out), f"player {p}, game {i}"
                checked += 1
        ids = rng.integers(0, n, num)
        mixed = batch.observe_as(ids)
        for i, g in enumerate(games):
            if g.phase != E.OVER:
                enc.encode(g, int(ids[i]), out)
                assert np.array_equal(mixed[i], out)
        # nothing of the engine changed: its buffers are as step() left them
        assert np.array_equal(batch.encoder.obs, obs) and np.array_equal(batch._mask, mask)
        live = np.array([g.phase != E.OVER for g in games])
        if not live.any():
            break
        actions = np.zeros(num, dtype=np.int64)
        for i, g in enumerate(games):
            if live[i]:
                legal = np.flatnonzero(E.legal_mask(g))
                actions[i] = legal[rng.integers(len(legal))]
                E.apply_unchecked(g, int(actions[i]))
        batch.step(actions, active=live)
    assert checked > 200


def test_observe_as_refuses_bad_players_and_an_unreset_engine() -> None:
    batch = BatchedScum(2)
    with pytest.raises(UsageError, match="reset"):
        batch.observe_as(0)
    batch.reset(seed=1)
    for bad in (4, -1, True, np.array([0, 9]), np.array([0.5, 1.0])):
        with pytest.raises(UsageError, match="observe_as"):
            batch.observe_as(bad)
