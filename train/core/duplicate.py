"""The duplicate baseline (``duplicate_baseline``): a *twin* batch plays every training deal
with the heuristic in every seat, and a hand's rewards have the twin's subtracted
(``docs/training.md``, "Duplicate baseline")."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.batched.policies import call_policy
from cardsuite.errors import CheckpointError, StateError
from cardsuite.train.core.state import engine_state, restore_engine_state

RING = 4  # hands of twin rewards kept per game (the twin is at most one hand ahead)
PREFIX = "twin."  # the twin's arrays in a trainer checkpoint


class TwinDeals:
    """The twin batch of one table's games: the same deals, the heuristic in every seat.
    ``game``: a `TrainGame`; ``config``, ``num_games`` and ``engine_kwargs``: the table's."""

    def __init__(
        self, game: Any, config: dict[str, Any], num_games: int,
        engine_kwargs: dict[str, Any] | None = None,
    ) -> None:  # fmt: skip
        self.eng = game.make_engine(num_games, config, **(engine_kwargs or {}))
        self.xp = self.eng.xp
        self.heuristic = game.heuristic(self.eng)
        n, p = num_games, self.eng.num_players
        self.ledger = np.zeros((n, RING, p))  # twin rewards per hand (slot: hand % RING)
        self.margin = np.zeros((n, p))  # this episode's rewards minus the twin's, so far
        self.obs: Any = None
        self.mask: Any = None
        self.to_act: Any = None
        self.games = np.arange(n)

    def reset(self, seed: int) -> None:
        """New deals of ``seed`` in every twin game, as the table's engine was just reset."""
        self.obs, self.mask, self.to_act = self.eng.reset(seed)
        self.ledger[:] = 0.0
        self.margin[:] = 0.0

    def deals(self) -> np.ndarray:
        """Hands dealt so far in each twin game (the hand in play is ``deals - 1``)."""
        return np.array(self.xp.to_numpy(self.eng.deals), dtype=np.int64)  # a copy: it moves

    def _step(self, active: np.ndarray) -> None:
        """One heuristic move in the ``active`` twin games; their rewards go to the ledger."""
        rows = np.flatnonzero(active)
        if rows.size == 0:
            return
        xp = self.xp
        before = self.deals()
        obs, mask = xp.to_numpy(self.obs), xp.to_numpy(self.mask)
        who = xp.to_numpy(self.to_act)
        actions = np.zeros(len(active), dtype=np.int64)
        acts = call_policy(self.heuristic, obs[rows], mask[rows], self.games[rows], who[rows])
        actions[rows] = acts.cpu().numpy() if hasattr(acts, "cpu") else np.asarray(acts)
        res = self.eng.step(xp.asarray(actions, xp.int64), xp.asarray(active, xp.bool))
        rewards = np.asarray(xp.to_numpy(res.rewards), dtype=np.float64)
        slot = (before[rows] - 1) % RING
        self.ledger[rows, slot] += rewards[rows]
        self.obs, self.mask, self.to_act = res.obs, res.mask, res.to_act

    def keep_up(self, table_deals: np.ndarray) -> None:
        """Before a training step: one move in each twin game not yet past the table's hand."""
        self._step(self.deals() <= table_deals)

    def subtract(self, before: np.ndarray, after: np.ndarray, done: np.ndarray,
                 rewards: np.ndarray) -> np.ndarray:  # fmt: skip
        """The step's ``[N, P]`` rewards less the twin's for the games whose hand just ended
        (hands dealt ``before`` and ``after`` the step differ, or ``done``); others as they are."""
        out = np.array(rewards, dtype=np.float64)
        ended = (after != before) | done
        behind = ended & (self.deals() <= before)
        guard = 0
        while behind.any():
            self._step(behind)
            behind = ended & (self.deals() <= before)
            guard += 1
            if guard > 1_000_000:  # a twin that never finishes the hand: engines out of step
                raise StateError("duplicate baseline: the twin games do not reach the hand")
        rows = np.flatnonzero(ended)
        slot = (before[rows] - 1) % RING
        out[rows] -= self.ledger[rows, slot]
        self.ledger[rows, slot] = 0.0
        self.margin += out
        return out

    def take_margin(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The episode margins of the finished ``games`` at ``seats``; those games' sums restart."""
        got = self.margin[games, seats].copy()
        self.margin[games] = 0.0
        return got

    def state(self) -> dict[str, np.ndarray] | None:
        """The twin's arrays for a checkpoint, or None when its engine cannot be saved."""
        games = engine_state(self.eng)
        if games is None:
            return None
        xp = self.xp
        own = {"obs": xp.to_numpy(self.obs), "mask": xp.to_numpy(self.mask),
               "to_act": xp.to_numpy(self.to_act), "ledger": self.ledger, "margin": self.margin}  # fmt: skip
        return {PREFIX + k: np.asarray(v) for k, v in {**own, **games}.items()}

    def restore(self, arrays: dict[str, Any]) -> None:
        """Put back what `state` saved (the twin reset first; CheckpointError if incomplete)."""
        mine = {k[len(PREFIX) :]: v for k, v in arrays.items() if k.startswith(PREFIX)}
        try:
            self.reset(0)
            self.obs, self.mask, self.to_act = mine.pop("obs"), mine.pop("mask"), mine.pop("to_act")
            self.ledger[:] = mine.pop("ledger")
            self.margin[:] = mine.pop("margin")
        except (KeyError, ValueError) as err:
            raise CheckpointError(
                f"duplicate baseline: the twin games are incomplete: {err}"
            ) from None
        restore_engine_state(self.eng, mine)


def split_twin(arrays: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A table's checkpoint arrays as (its own, its twin's)."""
    own = {k: v for k, v in arrays.items() if not k.startswith(PREFIX)}
    twin = {k: v for k, v in arrays.items() if k.startswith(PREFIX)}
    return own, twin
