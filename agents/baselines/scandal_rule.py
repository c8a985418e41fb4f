"""The Scandal heuristic's decision rule (`ScandalPolicy`) over a `ScandalView` (rules S1–S9),
of an observation (``ScandalReader``) or an engine state (`view_from_state`). Its batched and
compiled forms are held to it by differential tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scandal_env import engine as XE
from scandal_env.config import ScandalConfig


@dataclass
class ScandalView:
    """What the acting player knows: own cards, the melded scandals, the pile bottom first, the
    cards known in opponents' hands, the phase, the duty (S3) and forbidden (S7) cards (-1:
    none), the legal mask, the cards in the stock (-1: not known)."""

    hand: np.ndarray
    melded: np.ndarray
    pile: list[int]
    opp_known: np.ndarray
    phase: int
    duty: int
    forbidden: int
    mask: np.ndarray
    stock: int = -1


def view_from_state(state: XE.State) -> ScandalView:
    """The view of the player to act in an engine state (same facts as the observation)."""
    me = state.to_act
    opp = [(me + i) % state.num_players for i in range(1, state.num_players)]
    known = (state.hands[opp] & state.known[opp]).any(axis=0)
    return ScandalView(
        hand=state.hands[me].copy(),
        melded=state.meld_owner >= 0,
        pile=list(state.pile),
        opp_known=known,
        phase=state.phase,
        duty=state.duty,
        forbidden=state.forbidden,
        mask=XE.legal_mask(state),
        stock=len(state.stock),
    )


class ScandalPolicy:
    """The Scandal heuristic for one config; `choose` maps a view to an action.

    Args:
        config: the game config (deck and action layout).
        take_cost: weight of the value of taken cards that cannot be used at once.
        deep_margin: points a deep draw must gain to be taken.
    """

    def __init__(
        self, config: ScandalConfig, take_cost: float = 0.2, deep_margin: float = 0.0
    ) -> None:
        """Precompute the deck tables."""
        game = XE.make_rules(config)
        self.deck = game.deck
        self.lay = game.layout
        self.take_cost = float(take_cost)
        self.deep_margin = float(deep_margin)
        d = self.deck
        self.value = d.value.astype(float)
        self.n = d.n_cards
        self.ns = d.n_scandals
        self.title_of = [int(t) for t in d.title_of]
        self.is_title = [bool(v) for v in d.is_title]
        self.is_bg = [bool(v) for v in d.is_bg]
        self.cards_of = [list(c) for c in d.cards_of]
        self.scandals_of = [list(s) for s in d.scandals_of]
        # Plain Python copies for the per-card loops (exact: card values are integers).
        self._value = [float(v) for v in self.value]

    def playable(self, hand: np.ndarray, melded: np.ndarray) -> tuple[float, set[int]]:
        """Points of the cards that could be laid down now, and those cards."""
        return self._playable(_held(hand), _flags(melded))

    def _playable(self, held: set[int], melded: list[bool]) -> tuple[float, set[int]]:
        """`playable` of a set and a list (the scandals in order, a gold card to the first)."""
        used: set[int] = set()
        scandals = sorted({s for c in held for s in self.scandals_of[c]})
        for s in scandals:
            cards = [c for c in self.cards_of[s] if c in held and c not in used]
            if not cards:
                continue
            if melded[s]:
                used.update(c for c in cards if not self.is_title[c])
            elif self.title_of[s] in held:
                rest = [c for c in cards if not self.is_title[c]]
                if len(rest) >= 2 and any(self.is_bg[c] for c in rest):
                    used.update(cards)
        value = self._value
        return float(sum(value[c] for c in used)), used

    def usefulness(self, view: ScandalView, card: int) -> float:
        """How much keeping ``card`` helps a future meld (0 = dead card)."""
        return self._usefulness(card, *self._facts(view))

    def _facts(self, view: ScandalView) -> tuple[set[int], list[bool], list[bool], set[int]]:
        """What `usefulness` reads of ``view``: held cards, melded and known flags, pile cards."""
        return _held(view.hand), _flags(view.melded), _flags(view.opp_known), set(view.pile)

    def _usefulness(
        self, card: int, held: set[int], melded: list[bool], opp: list[bool], pile: set[int]
    ) -> float:
        """`usefulness` of ``card`` given `_facts`."""
        best = 0.0
        for s in self.scandals_of[card]:
            if melded[s]:
                continue
            title = self.title_of[s]
            others = sum(1 for c in self.cards_of[s] if c in held and c != card)
            u = float(others)
            if card == title:
                u += 1.0 + others
            elif title in held:
                u += 2.0
            elif opp[title] or title in pile:
                u -= 0.5  # the title is elsewhere: this set is harder to meld
            if opp[title]:
                u += 1.0  # an opponent holds the title: do not feed their meld
            best = max(best, u)
        return best

    def choose(self, view: ScandalView, repeat: int = 0) -> int:
        """The heuristic's legal action for ``view``; ``repeat``: times this draw or discard
        position was already met this hand (`RepeatMemory`; 0: the plain heuristic)."""
        legal = np.flatnonzero(view.mask)
        lay = self.lay
        if view.phase == XE.Phase.DRAW:
            return self.draw(view, legal, repeat)
        if view.phase == XE.Phase.BUILD:
            adds = legal[(legal >= lay.MELD_ADD) & (legal < lay.MELD_FINISH)]
            return int(adds[0]) if adds.size else int(lay.MELD_FINISH)
        layoffs = legal[(legal >= lay.LAYOFF) & (legal < lay.DISCARD)]
        if layoffs.size:
            return int(layoffs[0])
        starts = legal[(legal >= lay.MELD_START) & (legal < lay.MELD_ADD)]
        if starts.size:
            return int(starts[0])
        return self.discard(view, legal, repeat)

    def decision_point(self, view: ScandalView) -> bool:
        """Whether the next action is a draw or a discard (where positions are remembered)."""
        if view.phase == XE.Phase.DRAW:
            return True
        if view.phase != XE.Phase.MELD:
            return False
        lay = self.lay
        return not view.mask[lay.MELD_START : lay.DISCARD].any()

    def choose_state(self, state: XE.State) -> int:
        """The heuristic's action in an engine state (ISMCTS rollouts)."""
        return self.choose(view_from_state(state))

    def draw(self, view: ScandalView, legal: np.ndarray, repeat: int = 0) -> int:
        """A deep draw when it pays, the top discard when it helps (to build a meld: not at a
        draw met before, S4), else the stock."""
        lay = self.lay
        pile = view.pile
        margin = self.deep_margin if not repeat else float("-inf")
        held, melded = _held(view.hand), _flags(view.melded)
        base, _ = self._playable(held, melded)
        best_action = self.best_deep_draw(view, legal, self.take_cost, margin, base)
        if best_action >= 0:
            return best_action
        if view.mask[lay.DRAW_DISCARD] and pile:
            top = pile[-1]
            pts, _ = self._playable(held | {top}, melded)
            if pts > base or (not repeat and self.builds(view, top)):
                return int(lay.DRAW_DISCARD)
        return int(lay.DRAW_STOCK) if view.mask[lay.DRAW_STOCK] else int(legal[0])

    def best_deep_draw(
        self,
        view: ScandalView,
        legal: np.ndarray,
        take_cost: float,
        margin: float,
        base: float | None = None,
    ) -> int:
        """The legal deep draw (S3) of highest ``points laid down now - take_cost * waste`` above
        ``margin`` (the shallowest among equals), or -1; one that leaves a single card in stock
        and pile only when it goes out (S4). ``base``: `playable` points of the hand, if known."""
        lay = self.lay
        pile = view.pile
        deep = legal[(legal > lay.DRAW_DISCARD) & (legal < lay.MELD_START)].tolist()
        if not deep:
            return -1
        held, melded = _held(view.hand), _flags(view.melded)
        if base is None:
            base, _ = self._playable(held, melded)
        value = self._value
        best_gain, best_action = margin, -1
        for a in deep:
            depth = a - lay.DRAW_DISCARD
            taken = pile[len(pile) - 1 - depth :]
            after = held.union(taken)
            pts, used = self._playable(after, melded)
            last = max(view.stock, 0) + len(pile) - len(taken) + 1 <= 1
            if last and not self._goes_out(len(after), used):
                continue
            waste = sum(value[c] for c in taken if c not in used)
            gain = pts - base - take_cost * waste
            if gain > best_gain:
                best_gain, best_action = gain, a
        return best_action

    def goes_out(self, hand: np.ndarray, used: set[int]) -> bool:
        """``hand`` can go out this turn: all but one card laid down (``used``), or all, at least
        4, of one scandal, one kept back for the last discard (S8)."""
        return self._goes_out(int(hand.sum()), used)

    def _goes_out(self, held: int, used: set[int]) -> bool:
        """`goes_out` of a hand of ``held`` cards."""
        left = held - len(used)
        if left == 1:
            return True
        if left or len(used) < 4:
            return False
        common = set.intersection(*(set(self.scandals_of[c]) for c in used))
        return bool(common)

    def builds(self, view: ScandalView, top: int) -> bool:
        """Taking ``top`` builds a meld in hand: useful, and more so than the card then thrown."""
        rest = np.flatnonzero(view.hand).tolist()
        # the view after taking it: ``top`` in hand, the pile without it
        held, melded, opp = set(rest), _flags(view.melded), _flags(view.opp_known)
        held.add(top)
        pile = set(view.pile[:-1])
        gain = self._usefulness(top, held, melded, opp, pile)
        if gain < 2.0:
            return False
        if not rest:
            return True
        worst = min(self._usefulness(c, held, melded, opp, pile) for c in rest)
        return gain > worst

    def discard(self, view: ScandalView, legal: np.ndarray, repeat: int = 0) -> int:
        """The least useful card, the most valuable among equals; at a discard met ``repeat``
        times, the card ranked ``repeat`` (cyclically, S4)."""
        lay = self.lay
        cards = (legal[legal >= lay.DISCARD] - lay.DISCARD).tolist()
        if not cards:
            return int(legal[0])
        facts = self._facts(view)
        value = self._value
        ranked = sorted(cards, key=lambda c: (self._usefulness(c, *facts), -value[c], c))
        return int(lay.DISCARD + ranked[repeat % len(ranked)])


def _held(hand: np.ndarray) -> set[int]:
    """The card ids of a boolean hand."""
    return set(np.flatnonzero(hand).tolist())


def _flags(flags: np.ndarray) -> list[bool]:
    """Boolean flags as a list (cheaper to index one by one than an array)."""
    return np.asarray(flags, dtype=bool).tolist()  # type: ignore[no-any-return]
