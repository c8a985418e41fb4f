"""Rule-based policy for the climbing games (Scum 4J, J1–J9; Scum Party's tables).

`ScumPolicy` reads a `ClimbView` of an observation (`view_from_obs`) or an engine state
(`view_from_state`, for rollouts): the rule books' advice plus card counting. The strategy:
docs/agents.md, "heuristic".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardsuite.obsspec import ObsSpec
from scum_env import engine as E
from scum_env.config import ScumConfig
from scum_env.rules import Rules, scum_rules

GIVE, LEAD, FOLLOW = 0, 1, 2


@dataclass
class ClimbView:
    """What the acting player knows, in card-slot counts: own hand, the top play's size and
    best slot (0 and -1 leading), the cards played this series, the phase, the mask."""

    hand: list[int]
    top_count: int
    top_slot: int
    played: list[int]
    phase: int
    mask: np.ndarray


def view_from_obs(
    obs_spec: ObsSpec, obs: np.ndarray, mask: np.ndarray, phase_offset: int = 0
) -> ClimbView:
    """The view of an observation (``phase_offset``: 0 for Scum, 1 for Scum Party)."""
    view = obs_spec.view
    top = [round(float(v)) for v in view(obs, "top_cards")]
    nz = [s for s, v in enumerate(top) if v]
    return ClimbView(
        hand=[round(float(v)) for v in view(obs, "hand")],
        top_count=sum(top),
        top_slot=nz[-1] if nz else -1,
        played=[round(float(v)) for v in view(obs, "played")],
        phase=int(np.argmax(view(obs, "phase"))) + phase_offset,
        mask=mask,
    )


def view_from_state(state: E.State, mask: np.ndarray | None = None) -> ClimbView:
    """The view of the player to act in an engine state (for search rollouts)."""
    phase = GIVE if state.phase == E.TRADE else LEAD if state.top_count == 0 else FOLLOW
    return ClimbView(
        hand=state.hands[state.to_act].tolist(),
        top_count=state.top_count,
        top_slot=state.top_slot,
        played=state.played.tolist(),
        phase=phase,
        mask=E.legal_mask(state) if mask is None else mask,
    )


@dataclass(frozen=True)
class ScumParams:
    """Tunable knobs of the climbing-game heuristic (chosen in self-play, docs/agents.md).

    Attributes:
        break_min_rest: break a group to follow only if this many cards of its rank stay
            together (0: never, except to go out or run out).
        spend_specials: play a special for the lead with two or more controls and more
            controls than losers - 1.
        special_top_count: also play a special against a top play of at least this many
            cards (0: never).
    """

    break_min_rest: int = 1
    spend_specials: bool = True
    special_top_count: int = 2


class _Counts:
    """Per-decision card counting: outstanding cards and what can beat a play."""

    __slots__ = ("spec_above", "sup_normal")

    def __init__(self, policy: ScumPolicy, hand: list[int], played: list[int]) -> None:
        k = policy.k
        out = [max(d - p - h, 0) for d, p, h in zip(policy.deck, played, hand)]
        avail = out if not policy.colour_mode else policy.avail(out)
        sup = [0] * k
        spec = [False] * k
        best, any_spec = 0, False
        special = policy.special
        for s in range(k - 1, -1, -1):
            sup[s] = best
            spec[s] = any_spec
            if special[s]:
                any_spec = any_spec or out[s] > 0
            elif avail[s] > best:
                best = avail[s]
        self.sup_normal = sup  # most cards of one play with a higher non-special best slot
        self.spec_above = spec  # a higher special card is outstanding


class ScumPolicy:
    """The heuristic for one table's rules; `choose` maps a view to an action."""

    def __init__(self, rules: Rules, params: ScumParams | None = None) -> None:
        """Precompute slot tables for ``rules``."""
        self.rules = rules
        self.params = params or ScumParams()
        self.k = rules.num_slots
        self.rank = [int(r) for r in rules.cards.rank]
        self.special = [bool(v) for v in rules.cards.special]
        self.ends = [bool(v) for v in rules.ends_round]
        self.deck = [int(v) for v in rules.deck]
        self.colour_mode = bool(rules.colour_mode)
        self.give_base = rules.give_base
        self.slots_of_rank = [
            [s for s in range(self.k) if self.rank[s] == r] for r in range(max(self.rank) + 1)
        ]
        self.special_rank = [all(self.special[s] for s in slots) for slots in self.slots_of_rank]
        self.max_count = int(rules.max_count)
        self.special_slots = [int(s) for s in rules.special_slots]

    # ------------------------------------------------------------------ entry
    def choose(self, view: ClimbView) -> int:
        """The heuristic's legal action for ``view``."""
        if view.phase == GIVE:
            return self.give_back(view)
        plays = self._legal_plays(view.mask)
        return self._decide(view.phase == LEAD, view.hand, view.top_count, view.played, plays)

    def choose_state(self, state: E.State) -> int:
        """``choose(view_from_state(state))``, faster (the plays listed from the hand)."""
        if self.colour_mode or state.phase != E.PLAY:
            return self.choose(view_from_state(state))
        hand = state.hands[state.to_act].tolist()
        top_count = state.top_count
        plays = self.plays_from_hand(hand, top_count, state.top_slot)
        return self._decide(top_count == 0, hand, top_count, state.played.tolist(), plays)

    def _decide(
        self,
        leading: bool,
        hand: list[int],
        top_count: int,
        played: list[int],
        plays: list[tuple[int, int, int]],
    ) -> int:
        """Pass without ``plays``; go out in one play if one can; else lead, or follow
        ``top_count`` cards, counting the cards ``played`` so far."""
        total = sum(hand)
        for a, c, _s in plays:
            if c == total:
                return a
        if not plays:
            return 0
        counts = _Counts(self, hand, played)
        if leading:
            return self.lead(hand, plays, counts)
        return self.follow(hand, top_count, plays, counts)

    # ------------------------------------------------------------------ analysis
    def _legal_plays(self, mask: np.ndarray) -> list[tuple[int, int, int]]:
        """``(action, count, slot)`` of every legal play, in action order."""
        k = self.k
        return [
            (a, (a - 1) // k + 1, (a - 1) % k)
            for a in (np.flatnonzero(mask[1 : self.give_base]) + 1).tolist()
        ]

    def plays_from_hand(
        self, hand: list[int], top_count: int, top_slot: int
    ) -> list[tuple[int, int, int]]:
        """The legal plays of ``hand`` as `_legal_plays` lists them (J5, J6; no colour mode)."""
        k = self.k
        if top_count == 0:
            most = min(max(hand), self.max_count)
            return [
                (1 + (c - 1) * k + s, c, s)
                for c in range(1, most + 1)
                for s in range(k)
                if hand[s] >= c
            ]
        out = []
        if top_count > 1:
            out = [(1 + s, 1, s) for s in self.special_slots if s > top_slot and hand[s] >= 1]
        base = 1 + (top_count - 1) * k
        out += [(base + s, top_count, s) for s in range(top_slot + 1, k) if hand[s] >= top_count]
        return out

    def avail(self, counts: list[int]) -> list[int]:
        """Per slot, the most cards of a play with that best slot (as the engine counts)."""
        out = [0] * self.k
        for slots in self.slots_of_rank:
            run = 0
            for s in slots:
                run += counts[s]
                out[s] = run if counts[s] > 0 else 0
        return out

    def unbeatable(self, count: int, slot: int, counts: _Counts) -> bool:
        """Whether a play of ``count`` cards with best ``slot`` cannot be beaten."""
        if self.ends[slot]:
            return True
        return not counts.spec_above[slot] and counts.sup_normal[slot] < count

    def group_size(self, hand: list[int], rank: int) -> int:
        """Cards of ``rank`` in ``hand``."""
        return sum(hand[s] for s in self.slots_of_rank[rank])

    def analyse(self, hand: list[int], counts: _Counts) -> tuple[list[int], list[int], int]:
        """Loser ranks, boss ranks and control specials of ``hand`` (groups played whole)."""
        losers: list[int] = []
        bosses: list[int] = []
        controls = 0
        for r, slots in enumerate(self.slots_of_rank):
            held = [s for s in slots if hand[s]]
            if not held:
                continue
            if self.special_rank[r]:
                controls += sum(hand[s] for s in held if self.unbeatable(1, s, counts))
            elif self.unbeatable(sum(hand[s] for s in held), held[-1], counts):
                bosses.append(r)
            else:
                losers.append(r)
        return losers, bosses, controls

    def runs_out(self, hand: list[int], counts: _Counts) -> bool:
        """With the lead, can ``hand`` surely go out (losers <= controls + 1)?"""
        losers, _bosses, controls = self.analyse(hand, counts)
        return len(losers) <= controls + 1

    def after(self, hand: list[int], count: int, slot: int) -> list[int]:
        """The hand after playing ``count`` cards with best ``slot`` (engine rule)."""
        rest = list(hand)
        rest[slot] -= 1
        left = count - 1
        for s in self.slots_of_rank[self.rank[slot]]:
            if not left:
                break
            take = min(left, rest[s])
            rest[s] -= take
            left -= take
        return rest

    # ------------------------------------------------------------------ lead
    def lead(self, hand: list[int], plays: list[tuple[int, int, int]], counts: _Counts) -> int:
        """Lead (no play goes out): run out, else the lowest loser group whole."""
        losers, bosses, controls = self.analyse(hand, counts)
        whole = self._whole_group_plays(hand, plays)
        if len(losers) <= controls + 1:
            # keep the lead with bosses, then control specials; the loser last
            for r in bosses:
                if r in whole:
                    return whole[r]
            for a, c, s in plays:
                if c == 1 and self.special[s] and self.unbeatable(1, s, counts):
                    return a
        targets = [r for r in losers + bosses if r in whole]
        if targets:
            return whole[min(targets)]
        return min((s, a) for a, _c, s in plays)[1]  # only specials left: the lowest

    def _whole_group_plays(
        self, hand: list[int], plays: list[tuple[int, int, int]]
    ) -> dict[int, int]:
        """Per non-special rank, the action playing the whole group (lowest best slot)."""
        out: dict[int, int] = {}
        for a, c, s in plays:
            r = self.rank[s]
            if not self.special_rank[r] and r not in out and c == self.group_size(hand, r):
                out[r] = a
        return out

    # ------------------------------------------------------------------ follow
    def follow(
        self, hand: list[int], top_count: int, plays: list[tuple[int, int, int]], counts: _Counts
    ) -> int:
        """Follow ``top_count`` cards (no play goes out): win the lead, the lowest unbroken set,
        or pass."""
        for a, c, s in plays:  # 1. an unbeatable play that leaves a hand that runs out
            if self.unbeatable(c, s, counts) and self.runs_out(self.after(hand, c, s), counts):
                return a
        normal = [(a, c, s) for a, c, s in plays if not self.special[s]]
        for a, c, s in normal:  # 2. the lowest set of exactly the needed size
            if self.group_size(hand, self.rank[s]) == c:
                return a
        need = self.params.break_min_rest
        if need > 0:  # 3. break a bigger group only if a set stays together
            for a, c, s in normal:
                if self.group_size(hand, self.rank[s]) - c >= need:
                    return a
        specials = [a for a, _c, s in plays if self.special[s]]
        if specials:  # 4. spend a special for the lead
            top_need = self.params.special_top_count
            if top_need and top_count >= top_need:
                return specials[0]
            if self.params.spend_specials:
                losers, _bosses, controls = self.analyse(hand, counts)
                if controls >= 2 and controls > len(losers) - 1:
                    return specials[0]
        return 0

    # ------------------------------------------------------------------ give back
    def give_back(self, view: ClimbView) -> int:
        """J5 give-back: the lowest single non-special card, else the lowest card."""
        hand = view.hand
        legal = (np.flatnonzero(view.mask[self.give_base :])).tolist()
        singles = [
            s for s in legal if not self.special[s] and self.group_size(hand, self.rank[s]) == 1
        ]
        return self.give_base + (singles[0] if singles else legal[0])


class ScumHeuristic:
    """The heuristic as an observation-level policy for one table (4J Scum)."""

    def __init__(self, rules: Rules, obs_spec: ObsSpec, **params: object) -> None:
        """Policy for ``rules``; ``params`` are `ScumParams` fields."""
        self.policy = ScumPolicy(rules, ScumParams(**params))  # type: ignore[arg-type]
        self.obs_spec = obs_spec

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The heuristic's action for an observation and mask."""
        return self.policy.choose(view_from_obs(self.obs_spec, observation, action_mask))


def make(config: ScumConfig, obs_spec: ObsSpec, **params: object) -> ScumHeuristic:
    """The Scum heuristic for a `ScumConfig`."""
    return ScumHeuristic(scum_rules(config), obs_spec, **params)
