"""``ScandalPolicy``'s set-based analysis against its previous form (ISMCTS expansions).

The reference ISMCTS and the batched search expand every new node with
``ScandalPolicy.choose_state``; its analysis (`playable`, `usefulness`, the
deep draws, `builds`, the discard ranking) now works on sets and lists of
the hand instead of indexing arrays card by card. Every result must equal
that of the previous form, kept below verbatim, on the views of real 2- to
4-player play (heuristic and random moves), for every repeat count and for
other knobs.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.agents.baselines.scandal import ScandalPolicy, ScandalView, view_from_state
from scandal_env import engine as XE
from scandal_env.config import ScandalConfig
from scandal_env.state import State
from tests.scandal.real_play import heuristic_positions


class PreviousPolicy:
    """``ScandalPolicy`` before its set-based analysis (verbatim; the truth).

    Args:
        config: the game config (deck and action layout).
        take_cost: weight of the value of taken cards that cannot be used at once.
        deep_margin: points a deep draw must gain to be taken. Against random
            (2 players, 100 duplicate deals) ``take_cost=0.2, deep_margin=0``
            won 95.5% of deals, ``0.5, 5`` 94%.
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

    # ------------------------------------------------------------------ analysis
    def playable(self, hand: np.ndarray, melded: np.ndarray) -> tuple[float, set[int]]:
        """Points of the cards that could be laid down now, and those cards."""
        used: set[int] = set()
        for s in range(self.ns):
            cards = [c for c in self.cards_of[s] if hand[c] and c not in used]
            if not cards:
                continue
            if melded[s]:
                used.update(c for c in cards if not self.is_title[c])
            elif hand[self.title_of[s]]:
                rest = [c for c in cards if not self.is_title[c]]
                if len(rest) >= 2 and any(self.is_bg[c] for c in rest):
                    used.update(cards)
        return float(sum(self.value[c] for c in used)), used

    def usefulness(self, view: ScandalView, card: int) -> float:
        """How much keeping ``card`` helps a future meld (0 = dead card)."""
        hand = view.hand
        best = 0.0
        for s in self.scandals_of[card]:
            if view.melded[s]:
                continue
            title = self.title_of[s]
            others = sum(1 for c in self.cards_of[s] if hand[c] and c != card)
            u = float(others)
            if card == title:
                u += 1.0 + others
            elif hand[title]:
                u += 2.0
            elif view.opp_known[title] or title in view.pile:
                u -= 0.5  # the title is elsewhere: this set is harder to meld
            if view.opp_known[title]:
                u += 1.0  # an opponent holds the title: do not feed their meld
            best = max(best, u)
        return best

    # ------------------------------------------------------------------ entry
    def choose(self, view: ScandalView, repeat: int = 0) -> int:
        """The heuristic's legal action for ``view``.

        ``repeat``: times this draw or discard position was already met this
        hand (`RepeatMemory`); 0 plays the plain heuristic.
        """
        legal = np.flatnonzero(view.mask)
        lay = self.lay
        if view.phase == XE.Phase.DRAW:
            return self.draw(view, legal, repeat)
        if view.phase == XE.Phase.BUILD:
            adds = legal[(legal >= lay.MELD_ADD) & (legal < lay.MELD_FINISH)]
            if adds.size:
                return int(adds[0])
            return int(lay.MELD_FINISH)
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
        """Deep draw when it pays, the top discard when it helps, else the stock.

        The top discard is taken to build a meld only if it is more useful than
        the card that would then be thrown, and never at a draw already met
        this hand (``repeat`` > 0): there only a card laid down at once counts.
        """
        lay = self.lay
        pile = view.pile
        margin = self.deep_margin if not repeat else float("-inf")
        best_action = self.best_deep_draw(view, legal, self.take_cost, margin)
        if best_action >= 0:
            return best_action
        base, _ = self.playable(view.hand, view.melded)
        if view.mask[lay.DRAW_DISCARD] and pile:
            top = pile[-1]
            hand = view.hand.copy()
            hand[top] = True
            pts, _ = self.playable(hand, view.melded)
            if pts > base or (not repeat and self.builds(view, top)):
                return int(lay.DRAW_DISCARD)
        if view.mask[lay.DRAW_STOCK]:
            return int(lay.DRAW_STOCK)
        return int(legal[0])

    def best_deep_draw(
        self, view: ScandalView, legal: np.ndarray, take_cost: float, margin: float
    ) -> int:
        """The legal deep draw (S3) whose ``points laid down now - take_cost * waste``
        is highest and above ``margin`` (the shallowest among equals), or -1.

        A deep draw is the only move that takes cards out of the stock and pile
        for good. One that would leave a single card there (S4: no one could
        then ever draw more than one card, so hands of one or two cards could
        never meld again) is taken only when it goes out (`goes_out`).
        """
        lay = self.lay
        pile = view.pile
        base, _ = self.playable(view.hand, view.melded)
        best_gain, best_action = margin, -1
        for a in legal[(legal > lay.DRAW_DISCARD) & (legal < lay.MELD_START)].tolist():
            depth = a - lay.DRAW_DISCARD
            taken = pile[len(pile) - 1 - depth :]
            hand = view.hand.copy()
            hand[taken] = True
            pts, used = self.playable(hand, view.melded)
            last = max(view.stock, 0) + len(pile) - len(taken) + 1 <= 1
            if last and not self.goes_out(hand, used):
                continue
            waste = sum(self.value[c] for c in taken if c not in used)
            gain = pts - base - take_cost * waste
            if gain > best_gain:
                best_gain, best_action = gain, a
        return best_action

    def goes_out(self, hand: np.ndarray, used: set[int]) -> bool:
        """``hand`` can go out this turn: all its cards but one are laid down (``used``
        from `playable`), or all of one scandal, at least 4, of which one is
        kept back for the last discard (S8)."""
        left = int(hand.sum()) - len(used)
        if left == 1:
            return True
        if left or len(used) < 4:
            return False
        common = set.intersection(*(set(self.scandals_of[c]) for c in used))
        return bool(common)

    def builds(self, view: ScandalView, top: int) -> bool:
        """Taking ``top`` builds a meld in hand: useful, and more so than the card then thrown."""
        hand = view.hand.copy()
        hand[top] = True
        after = ScandalView(
            hand, view.melded, view.pile[:-1], view.opp_known, view.phase, -1, top, view.mask
        )
        gain = self.usefulness(after, top)
        if gain < 2.0:
            return False
        rest = [c for c in np.flatnonzero(view.hand).tolist()]
        if not rest:
            return True
        worst = min(self.usefulness(after, c) for c in rest)
        return gain > worst

    def discard(self, view: ScandalView, legal: np.ndarray, repeat: int = 0) -> int:
        """The least useful card; the most valuable among equals (S7 respected by the mask).

        At a discard already met ``repeat`` times this hand, the card ranked
        ``repeat`` (cyclically) goes instead, so a position is never played
        the same way twice.
        """
        lay = self.lay
        cards = (legal[legal >= lay.DISCARD] - lay.DISCARD).tolist()
        if not cards:
            return int(legal[0])
        ranked = sorted(cards, key=lambda c: (self.usefulness(view, c), -self.value[c], c))
        return int(lay.DISCARD + ranked[repeat % len(ranked)])


def positions(num_players: int, seed: int, count: int) -> list[State]:
    """``count`` states of real play: the heuristic, with a random legal move one time in three."""
    return heuristic_positions(num_players, count, seed, explore=1 / 3, seed_stride=1000)


@pytest.mark.parametrize(
    ("num_players", "knobs"),
    [(2, {}), (3, {}), (4, {}), (2, {"take_cost": 0.5, "deep_margin": 5.0})],
)
def test_every_analysis_equals_the_previous_form(num_players: int, knobs: dict[str, float]) -> None:
    config = ScandalConfig(num_players=num_players)
    new, old = ScandalPolicy(config, **knobs), PreviousPolicy(config, **knobs)
    lay = new.lay
    kinds = set()
    for state in positions(num_players, seed=num_players + len(knobs), count=400):
        view = view_from_state(state)
        legal = np.flatnonzero(view.mask)
        for repeat in (0, 1, 2):
            assert new.choose(view, repeat) == old.choose(view, repeat)
        kinds.add(int(view.phase))
        assert new.playable(view.hand, view.melded) == old.playable(view.hand, view.melded)
        for card in range(new.n):
            assert new.usefulness(view, card) == old.usefulness(view, card)
        for take_cost, margin in ((0.0, 0.0), (0.2, -np.inf), (1.0, 3.0)):
            want = old.best_deep_draw(view, legal, take_cost, margin)
            assert new.best_deep_draw(view, legal, take_cost, margin) == want
        if view.pile:
            assert new.builds(view, view.pile[-1]) == old.builds(view, view.pile[-1])
            hand = view.hand.copy()
            hand[view.pile] = True
            pts, used = new.playable(hand, view.melded)
            assert (pts, used) == old.playable(hand, view.melded)
            assert new.goes_out(hand, used) == old.goes_out(hand, used)
        if view.phase == XE.Phase.MELD and (legal >= lay.DISCARD).any():
            for repeat in (0, 3):
                assert new.discard(view, legal, repeat) == old.discard(view, legal, repeat)
    assert kinds == {0, 1, 2}, "draw, meld and build positions were compared"


def test_a_made_up_view_with_shared_cards_and_a_tall_pile() -> None:
    """Gold cards (in several scandals) in hand and pile, with a deep draw offered."""
    config = ScandalConfig(num_players=2)
    new, old = ScandalPolicy(config), PreviousPolicy(config)
    gold = [c for c in range(new.n) if len(new.scandals_of[c]) > 1]
    assert gold
    rng = np.random.default_rng(0)
    for _ in range(300):
        hand = rng.random(new.n) < 0.15
        hand[rng.choice(gold, size=2, replace=False)] = True
        melded = rng.random(new.ns) < 0.2
        pile = [int(c) for c in rng.permutation(np.flatnonzero(~hand))[:12]]
        mask = np.zeros(new.lay.size, dtype=np.int8)
        mask[new.lay.DRAW_STOCK] = 1
        mask[new.lay.DRAW_DISCARD : new.lay.DRAW_DISCARD + len(pile)] = 1
        view = ScandalView(
            hand=hand,
            melded=melded,
            pile=pile,
            opp_known=rng.random(new.n) < 0.1,
            phase=int(XE.Phase.DRAW),
            duty=-1,
            forbidden=-1,
            mask=mask,
            stock=int(rng.integers(0, 3)),
        )
        assert new.playable(hand, melded) == old.playable(hand, melded)
        assert new.choose(view) == old.choose(view)
        legal = np.flatnonzero(mask)
        assert new.best_deep_draw(view, legal, 0.2, 0.0) == old.best_deep_draw(
            view, legal, 0.2, 0.0
        )
