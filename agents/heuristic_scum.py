"""Rule-based policy for the climbing games (Scum 4J, J1–J9; Scum Party's tables).

The policy reads a :class:`ClimbView` — the acting player's hand, the top play,
the cards played this series and the other hand sizes — built either from an
observation through the env's named views (:func:`view_from_obs`, what the
agents use) or from an engine state (:func:`view_from_state`, what ISMCTS
rollouts use). Both give the same view, so the agent and the rollouts share
one policy.

The strategy follows the rule books' advice ("get rid of your lowest cards as
soon as possible", "reserve your high cards, especially the President",
"keep doubles and triples together", "lead with the lower cards") plus card
counting:

* **Groups.** The hand is seen as groups: all cards of one non-special rank.
  A special card (President / Wild President in 4J, Joker in Party) is one
  whose single card beats a set of any size (J6, P1).
* **Bosses and losers.** A group is a *boss* when no card still outstanding
  (not in this hand and not played, from the ``played`` piece) can beat it, and
  a *loser* otherwise. A special is a *control* card when it cannot be beaten:
  it ends the round (J7) or no higher special is outstanding.
* **Running out.** With the lead, a hand with at most ``controls + 1`` losers
  goes out for sure: play bosses and control cards first (each keeps the lead),
  win the lead back with a control card after each loser, and keep one loser
  for last.
* **Leading.** Go out if one play does it; otherwise run out when the hand
  allows it; otherwise lead the lowest loser group whole.
* **Following.** Go out if one play does it; take the lead with a play that
  cannot be beaten when the rest of the hand then runs out; otherwise play the
  lowest group of exactly the needed size (never break a set when a
  non-breaking play exists); break a bigger group only when a set of at least
  ``break_min_rest`` cards remains; spend a special only to run out, or when
  ``spend_specials`` is on and the special is not needed to finish; else pass.
* **Giving back (J5).** Give the lowest single card (a card that is in no set),
  else the lowest card.

Deliberately not done: passing "cheaply" when the next player is about to go
out. A pass never stops that player, and the lead after they go out passes to
the next player with cards (J6), so holding back only wastes a turn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scum_env import engine as E
from scum_env.config import ScumConfig
from scum_env.rules import Rules, scum_rules
from scum_env.suite.obsspec import ObsSpec

GIVE, LEAD, FOLLOW = 0, 1, 2


@dataclass
class ClimbView:
    """What the acting player knows, in card-slot counts.

    Attributes:
        hand: own cards per slot.
        top_count: cards in the current top play (0 when leading).
        top_slot: best slot of the top play (-1 when leading).
        played: cards played this series by everyone, per slot.
        phase: ``GIVE`` (a give-back decision, J5), ``LEAD`` or ``FOLLOW``.
        others: cards held by the other players, in turn order after me.
        mask: the legal action mask.
    """

    hand: np.ndarray
    top_count: int
    top_slot: int
    played: np.ndarray
    phase: int
    others: list[int]
    mask: np.ndarray


def view_from_obs(obs_spec: ObsSpec, obs: np.ndarray, mask: np.ndarray) -> ClimbView:
    """The view of an observation, read only through the spec's named views."""
    view = obs_spec.view
    hand = np.rint(view(obs, "hand")).astype(np.int64)
    top = np.rint(view(obs, "top_cards")).astype(np.int64)
    nz = np.flatnonzero(top)
    phase_vec = view(obs, "phase")
    phase = int(np.argmax(phase_vec))
    left = np.rint(view(obs, "cards_left")).astype(np.int64)
    return ClimbView(
        hand=hand,
        top_count=int(top.sum()),
        top_slot=int(nz[-1]) if nz.size else -1,
        played=np.rint(view(obs, "played")).astype(np.int64),
        phase=phase,
        others=[int(v) for v in left[1:]],
        mask=mask,
    )


def view_from_state(state: E.State, mask: np.ndarray | None = None) -> ClimbView:
    """The view of the player to act in an engine state (for search rollouts)."""
    player = state.to_act
    n = state.rules.num_players
    p = state.pos[player]
    if state.phase == E.TRADE:
        phase = GIVE
    else:
        phase = LEAD if state.top_count == 0 else FOLLOW
    return ClimbView(
        hand=state.hands[player].astype(np.int64),
        top_count=state.top_count,
        top_slot=state.top_slot,
        played=state.played.astype(np.int64),
        phase=phase,
        others=[state.ncards[state.order[(p + i) % n]] for i in range(1, n)],
        mask=E.legal_mask(state) if mask is None else mask,
    )


@dataclass(frozen=True)
class ScumParams:
    """Tunable knobs of the climbing-game heuristic.

    Attributes:
        break_min_rest: break a group to follow only if at least this many
            cards of its rank stay together (0 disables breaking, except to run out).
        spend_specials: play a special to take the lead when it is not needed
            to finish, if the hand holds more controls than losers minus one.
    """

    break_min_rest: int = 2
    spend_specials: bool = True


class ScumPolicy:
    """The heuristic for one table's rules; :meth:`choose` maps a view to an action."""

    def __init__(self, rules: Rules, params: ScumParams | None = None) -> None:
        """Precompute slot tables for ``rules``."""
        self.rules = rules
        self.params = params or ScumParams()
        self.k = rules.num_slots
        self.rank = np.asarray(rules.cards.rank)
        self.special = np.asarray(rules.cards.special, dtype=bool)
        self.ends = np.asarray(rules.ends_round, dtype=bool)
        self.deck = np.asarray(rules.deck, dtype=np.int64)
        self.colour_mode = bool(rules.colour_mode)
        self.give_base = rules.give_base
        self.num_ranks = int(self.rank.max()) + 1
        self._slots_of_rank = [np.flatnonzero(self.rank == r) for r in range(self.num_ranks)]
        self._special_rank = np.array(
            [bool(self.special[s].all()) for s in self._slots_of_rank], dtype=bool
        )

    # ------------------------------------------------------------------ entry
    def choose(self, view: ClimbView) -> int:
        """The heuristic's legal action for ``view``."""
        if view.phase == GIVE:
            return self.give_back(view)
        plays = self._legal_plays(view.mask)
        if not plays:
            return 0
        if view.phase == LEAD:
            return self.lead(view, plays)
        return self.follow(view, plays)

    # ------------------------------------------------------------------ analysis
    def _legal_plays(self, mask: np.ndarray) -> list[tuple[int, int, int]]:
        """``(action, count, slot)`` of every legal play, in action order."""
        out = []
        for a in np.flatnonzero(mask[1 : self.give_base]):
            c, s = divmod(int(a), self.k)
            out.append((int(a) + 1, c + 1, s))
        return out

    def outstanding(self, view: ClimbView) -> np.ndarray:
        """Per slot, cards neither in this hand nor played: the others may hold them."""
        out: np.ndarray = np.maximum(self.deck - view.played - view.hand, 0)
        return out

    def _avail(self, counts: np.ndarray) -> np.ndarray:
        """Per slot, the most cards of a play with that best slot (as the engine counts)."""
        if not self.colour_mode:
            return counts
        out = np.zeros_like(counts)
        for slots in self._slots_of_rank:
            c = counts[slots]
            out[slots] = np.where(c > 0, np.cumsum(c), 0)
        return out

    def unbeatable(self, count: int, slot: int, out_avail: np.ndarray, out: np.ndarray) -> bool:
        """Whether a play of ``count`` cards with best ``slot`` cannot be beaten."""
        if self.ends[slot]:
            return True
        higher = slice(slot + 1, self.k)
        spec = self.special[higher]
        if np.any(out[higher][spec] > 0):
            return False
        return not bool(np.any(out_avail[higher][~spec] >= count))

    def analyse(self, hand: np.ndarray, view: ClimbView) -> tuple[list[int], list[int], int]:
        """Loser ranks, boss ranks and control specials of ``hand`` (played whole)."""
        out = self.outstanding(view)
        out_avail = self._avail(out)
        losers: list[int] = []
        bosses: list[int] = []
        controls = 0
        for r in range(self.num_ranks):
            slots = self._slots_of_rank[r]
            held = hand[slots]
            m = int(held.sum())
            if m == 0:
                continue
            best = int(slots[np.flatnonzero(held)[-1]])
            if self._special_rank[r]:
                for s in slots[held > 0]:
                    if self.unbeatable(1, int(s), out_avail, out):
                        controls += int(hand[s])
                continue
            if self.unbeatable(m, best, out_avail, out):
                bosses.append(r)
            else:
                losers.append(r)
        return losers, bosses, controls

    def runs_out(self, hand: np.ndarray, view: ClimbView) -> bool:
        """With the lead, can ``hand`` surely go out (losers <= controls + 1)?"""
        losers, _bosses, controls = self.analyse(hand, view)
        return len(losers) <= controls + 1

    def _after(self, hand: np.ndarray, count: int, slot: int) -> np.ndarray:
        """The hand after playing ``count`` cards with best ``slot`` (engine rule)."""
        rest = hand.copy()
        rest[slot] -= 1
        left = count - 1
        if left:
            for s in self._slots_of_rank[int(self.rank[slot])]:
                take = min(left, int(rest[s]))
                rest[s] -= take
                left -= take
                if not left:
                    break
        return rest

    # ------------------------------------------------------------------ lead
    def lead(self, view: ClimbView, plays: list[tuple[int, int, int]]) -> int:
        """Lead: go out, run out, else the lowest loser group whole."""
        hand = view.hand
        total = int(hand.sum())
        for a, c, _s in plays:
            if c == total:
                return a
        losers, bosses, controls = self.analyse(hand, view)
        whole = self._whole_group_plays(hand, plays)
        if len(losers) <= controls + 1:
            # keep the lead with bosses, then control specials, the loser last
            for r in bosses:
                if r in whole:
                    return whole[r]
            for a, c, s in plays:
                if c == 1 and self.special[s] and self._is_control(s, view):
                    return a
        targets = losers or bosses
        if targets:
            return whole[min(targets)]
        # only specials left: the lowest one
        return min((s, a) for a, _c, s in plays)[1]

    def _whole_group_plays(
        self, hand: np.ndarray, plays: list[tuple[int, int, int]]
    ) -> dict[int, int]:
        """Per non-special rank, the action playing the whole group."""
        sizes = {
            r: int(hand[self._slots_of_rank[r]].sum())
            for r in range(self.num_ranks)
            if not self._special_rank[r]
        }
        out: dict[int, int] = {}
        for a, c, s in plays:
            r = int(self.rank[s])
            if r in sizes and c == sizes[r]:
                out.setdefault(r, a)  # lowest best slot first: keeps the higher colours
        return out

    def _is_control(self, slot: int, view: ClimbView) -> bool:
        out = self.outstanding(view)
        return self.unbeatable(1, slot, self._avail(out), out)

    # ------------------------------------------------------------------ follow
    def follow(self, view: ClimbView, plays: list[tuple[int, int, int]]) -> int:
        """Follow: go out, take a winning lead, play the lowest unbroken set, or pass."""
        hand = view.hand
        total = int(hand.sum())
        out = self.outstanding(view)
        out_avail = self._avail(out)
        # 1. go out
        for a, c, _s in plays:
            if c == total:
                return a
        # 2. a play nobody can beat that leaves a hand that runs out
        for a, c, s in plays:
            if self.unbeatable(c, s, out_avail, out):
                rest = self._after(hand, c, s)
                if self.runs_out(rest, view):
                    return a
        normal = [(a, c, s) for a, c, s in plays if not self.special[s]]
        # 3. the lowest set of exactly the needed size
        exact = [
            (a, c, s)
            for a, c, s in normal
            if int(hand[self._slots_of_rank[int(self.rank[s])]].sum()) == c
        ]
        if exact:
            return exact[0][0]
        # 4. break a bigger group only if a set stays together
        need = self.params.break_min_rest
        if need > 0:
            for a, c, s in normal:
                rest = int(hand[self._slots_of_rank[int(self.rank[s])]].sum()) - c
                if rest >= need:
                    return a
        # 5. spend a special for the lead when the hand can afford it
        if self.params.spend_specials:
            specials = [(a, s) for a, c, s in plays if self.special[s]]
            if specials:
                losers, _bosses, controls = self.analyse(hand, view)
                if controls >= 2 and controls > len(losers) - 1:
                    return specials[0][0]
        return 0

    # ------------------------------------------------------------------ give back
    def give_back(self, view: ClimbView) -> int:
        """J5 give-back: the lowest single non-special card, else the lowest card."""
        hand = view.hand
        legal = [int(a) - self.give_base for a in np.flatnonzero(view.mask[self.give_base :])]
        singles = [
            s
            for s in legal
            if not self.special[s] and int(hand[self._slots_of_rank[int(self.rank[s])]].sum()) == 1
        ]
        slot = min(singles) if singles else min(legal)
        return self.give_base + slot


class ScumHeuristic:
    """The heuristic as an observation-level policy for one table (4J Scum)."""

    def __init__(self, rules: Rules, obs_spec: ObsSpec, **params: object) -> None:
        """Policy for ``rules``; ``params`` are :class:`ScumParams` fields."""
        self.policy = ScumPolicy(rules, ScumParams(**params))  # type: ignore[arg-type]
        self.obs_spec = obs_spec

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The heuristic's action for an observation and mask."""
        return self.policy.choose(view_from_obs(self.obs_spec, observation, action_mask))


def make(config: ScumConfig, obs_spec: ObsSpec, **params: object) -> ScumHeuristic:
    """The Scum heuristic for a :class:`~scum_env.config.ScumConfig`."""
    return ScumHeuristic(scum_rules(config), obs_spec, **params)
