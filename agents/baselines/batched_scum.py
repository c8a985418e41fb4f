"""The Scum heuristic over a whole batch (`BatchedScumHeuristic`): every step of
``ScumPolicy.choose`` a ``[rows, plays]`` boolean table, "the first legal play that satisfies
X" an ``argmax`` over it; with ``color_clash``, `ScumPolicy` row by row.
"""

from __future__ import annotations

from typing import Any, Self

import numpy as np

from cardsuite.agents.baselines.heuristic import BatchedHeuristic
from cardsuite.agents.baselines.scum import ScumParams, ScumPolicy, view_from_obs
from cardsuite.obsspec import ObsSpec
from scum_env.encoding import observation_spec
from scum_env.rules import Rules


def _first(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of the first true entry of each row, and whether there is one."""
    return table.argmax(axis=1), np.asarray(table.any(axis=1))


class BatchedScumHeuristic(BatchedHeuristic):
    """The Scum heuristic over ``[M, obs_dim]`` observations and ``[M, A]`` masks (numpy or
    torch) of a table of ``rules``; ``phase_offset``: as in ``view_from_obs``; ``params``:
    `ScumParams` fields."""

    @classmethod
    def from_engine(cls, engine: Any, **params: Any) -> Self:
        """The heuristic for the tables of a batched ``engine`` (its compiled ``rules``)."""
        return cls(engine.rules, **params)

    def __init__(
        self, rules: Rules, obs_spec: ObsSpec | None = None, phase_offset: int = 0, **params: Any
    ) -> None:
        """Precompute the action table and slot properties of ``rules``."""
        self.rules = rules
        self.phase_offset = phase_offset
        self.spec = obs_spec or observation_spec(rules)
        self.params = ScumParams(**params)
        self.policy = ScumPolicy(rules, self.params)
        self.rowwise = bool(rules.colour_mode)
        k = rules.num_slots
        self.give_base = rules.give_base
        acts = np.arange(1, rules.give_base)
        self.count_a = (acts - 1) // k + 1  # [M] cards of play action 1 + i
        self.slot_a = (acts - 1) % k  # [M] its best slot
        self.special = np.asarray(rules.cards.special, dtype=bool)
        self.ends = np.asarray(rules.ends_round, dtype=bool)
        self.deck = np.asarray(rules.deck, dtype=np.int64)
        self.spec_a = self.special[self.slot_a]
        self.ends_a = self.ends[self.slot_a]
        self.single_special_a = self.spec_a & (self.count_a == 1)
        self.by_slot = np.argsort(self.slot_a, kind="stable")  # (slot, count) order
        sl = self.spec.slices
        self.sl_hand, self.sl_top, self.sl_played = sl["hand"], sl["top_cards"], sl["played"]
        self.sl_phase = sl["phase"]

    def choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions ``[M]`` for numpy observations and masks."""
        mask = mask.astype(bool, copy=False)
        if self.rowwise:
            return np.array(
                [
                    self.policy.choose(view_from_obs(self.spec, o, m, self.phase_offset))
                    for o, m in zip(obs, mask)
                ],
                dtype=np.int64,
            )
        m = obs.shape[0]
        hand = np.rint(obs[:, self.sl_hand]).astype(np.int64)
        top = np.rint(obs[:, self.sl_top]).astype(np.int64)
        played = np.rint(obs[:, self.sl_played]).astype(np.int64)
        phase = obs[:, self.sl_phase].argmax(axis=1) + self.phase_offset
        legal = mask[:, 1 : self.give_base]
        actions = np.zeros(m, dtype=np.int64)
        give = phase == 0
        if give.any():
            actions[give] = self._give_back(hand[give], mask[give])
        play = ~give & legal.any(axis=1)
        if play.any():
            actions[play] = self._play(
                hand[play], top[play].sum(axis=1), played[play], phase[play], legal[play]
            )
        return actions

    def _counts(self, hand: np.ndarray, played: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per slot, ``_Counts``'s ``sup_normal`` and ``spec_above``."""
        out = np.maximum(self.deck[None, :] - played - hand, 0)
        normal = np.where(self.special[None, :], 0, out)
        # over the slots strictly above s: a running max (or any) from the top slot down
        sup = np.zeros_like(out)
        sup[:, :-1] = np.maximum.accumulate(normal[:, :0:-1], axis=1)[:, ::-1]
        spec_out = (out > 0) & self.special[None, :]
        spec_above = np.zeros_like(spec_out)
        spec_above[:, :-1] = np.logical_or.accumulate(spec_out[:, :0:-1], axis=1)[:, ::-1]
        return sup, spec_above

    def _unbeatable(
        self, count: np.ndarray, slot_ends: np.ndarray, sup: np.ndarray, spec_above: np.ndarray
    ) -> np.ndarray:
        """``ScumPolicy.unbeatable`` elementwise (sup/spec_above already gathered)."""
        return slot_ends | (~spec_above & (sup < count))

    def _analyse(
        self, hand: np.ndarray, sup: np.ndarray, spec_above: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per slot: loser and boss groups, whether one card is unbeatable; per row: control
        specials (``analyse``)."""
        has = hand > 0
        ends = self.ends[None, :]
        unb_m = self._unbeatable(hand, ends, sup, spec_above)
        unb_1 = self._unbeatable(np.ones_like(hand), ends, sup, spec_above)
        special = self.special[None, :]
        boss = has & ~special & unb_m
        loser = has & ~special & ~unb_m
        controls = np.where(special & unb_1, hand, 0).sum(axis=1)
        return loser, boss, unb_1, controls

    def _give_back(self, hand: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Lowest single non-special card, else the lowest card (J5 give-back)."""
        legal = mask[:, self.give_base :]
        single = legal & ~self.special[None, :] & (hand == 1)
        s1, has1 = _first(single)
        s2, _ = _first(legal)
        return self.give_base + np.where(has1, s1, s2)

    def _play(
        self,
        hand: np.ndarray,
        top_count: np.ndarray,
        played: np.ndarray,
        phase: np.ndarray,
        legal: np.ndarray,
    ) -> np.ndarray:
        """Lead or follow decisions of rows with at least one legal play."""
        m = hand.shape[0]
        ca, sa = self.count_a[None, :], self.slot_a
        total = hand.sum(axis=1)
        sup, spec_above = self._counts(hand, played)
        loser, boss, unb1_slot, controls = self._analyse(hand, sup, spec_above)
        n_losers = loser.sum(axis=1)
        runs = n_losers <= controls + 1
        group_a = hand[:, sa]  # [m, M] cards of the play's rank in hand
        unb_a = self._unbeatable(ca, self.ends_a[None, :], sup[:, sa], spec_above[:, sa])
        choice = np.zeros(m, dtype=np.int64)
        decided = np.zeros(m, dtype=bool)

        def take(table: np.ndarray, where: np.ndarray, by_slot: bool = False) -> None:
            # the first true entry in action order, or in (slot, count) order
            idx, has = _first(table[:, self.by_slot] if by_slot else table)
            hit = where & has & ~decided
            choice[hit] = (self.by_slot[idx[hit]] if by_slot else idx[hit]) + 1
            decided[hit] = True

        take(legal & (ca == total[:, None]), np.ones(m, dtype=bool))  # go out
        lead = phase == 1
        # ---- lead: run out with bosses then control specials; else the lowest group whole
        whole = legal & ~self.spec_a[None, :] & (ca == group_a)
        take(whole & boss[:, sa], lead & runs, by_slot=True)  # the lowest boss group
        take(legal & self.single_special_a[None, :] & unb1_slot[:, sa], lead & runs)
        take(whole, lead, by_slot=True)  # the lowest group, played whole
        take(legal, lead, by_slot=True)  # only specials left: the lowest slot, fewest cards
        # ---- follow
        follow = ~lead
        rest = group_a - ca  # cards of the rank left after the play
        ends_s = self.ends[sa][None, :]
        unb_rest = self._unbeatable(rest, ends_s, sup[:, sa], spec_above[:, sa])
        spec_s = self.spec_a[None, :]
        old_loser = loser[:, sa]
        new_loser = (rest > 0) & ~spec_s & ~unb_rest
        losers_after = n_losers[:, None] - old_loser + new_loser
        unb1_a = unb1_slot[:, sa]
        controls_after = controls[:, None] - np.where(spec_s & unb1_a, ca, 0)
        take(legal & unb_a & (losers_after <= controls_after + 1), follow)
        normal = legal & ~spec_s
        take(normal & (group_a == ca), follow)
        need = self.params.break_min_rest
        if need > 0:
            take(normal & (rest >= need), follow)
        specials = legal & spec_s
        top_need = self.params.special_top_count
        if top_need:
            take(specials, follow & (top_count >= top_need))
        if self.params.spend_specials:
            take(specials, follow & (controls >= 2) & (controls > n_losers - 1))
        return np.where(decided, choice, 0)


#: The batched Scum heuristic for compiled ``rules`` (``params``: ScumParams fields).
make_batched_heuristic = BatchedScumHeuristic
