"""Rule-based Scandal policy (rules S1–S9), and the Scandal greedy baseline.

The policy reads a `ScandalView` — own hand, the melded scandals, the
discard pile in order, the cards known to be in opponents' hands, the turn
phase, the duty card (S3) and the card that may not be discarded (S7) — built
from an observation through the env's named views (`ScandalReader`)
or from an engine state (`view_from_state`, for ISMCTS rollouts).

Strategy (the rule book: "assemble the cards into sets ... laying them out
into melds to accumulate points"; a card left in hand costs its value, S9):

* **Meld early, lay off everything** (S5, S6): every legal lay-off, then every
  legal meld, adding every card of its scandal the mask allows, then finish.
  The mask already keeps a discardable card (S8) and the deep-draw duty (S3).
* **Draw**: a deep discard (S3) when ``points it lets me lay down now -
  take_cost * value of the other taken cards I cannot use`` beats
  ``deep_margin``; else the top discard if it can be laid down at once, or if
  it builds a meld in hand (I hold its title, or it is a title I hold cards
  for) *and* is more useful than the card I would then throw (taking a card
  only to throw one as good back is how two players swapped the same cards
  for ever, S4); else the stock, which is how a hand moves on.
* **Discard** the card least useful to me: a card of a scandal whose meld I
  am building in hand is kept (more so with the title in hand), a card of a
  scandal whose title an opponent is known to hold is dangerous to throw
  (they could meld with it) and so kept longer; among equally useless cards
  the most valuable goes first (it would cost its value at the end of the
  hand). The top discard drawn this turn is never offered (S7).

The greedy baseline (`ScandalReader.greedy`) melds and lays off
whenever possible, draws the top discard only if it can be laid down at once,
and otherwise collects sets: it discards a card of the scandal it holds the
fewest cards of, the most valuable first.

**No endless hands (S4).** The rule book has no turn limit, so both agents
make progress the way players do: they remember the positions they have seen
this hand (`RepeatMemory`: their hand, the melds, the phase and, at a
draw, the top discard; cleared when a hand starts) and do not repeat
themselves. Back at a draw already seen, the top
discard is taken only if it can be laid down at once, and the heuristic takes
any deep draw that lets it meld (the only way a hand of one or two cards can
grow), else the stock; back at a discard already seen for the k-th time, the
card ranked k-th is thrown instead of the first. Greedy deep-draws whenever
a deep draw lets it meld. Both agents stay deterministic: the memory is part of
what they observed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from cardsuite.obsspec import ObsSpec
from scandal_env import engine as XE
from scandal_env.config import ScandalConfig


@dataclass
class ScandalView:
    """What the acting player knows.

    Attributes:
        hand: bool[n] own cards.
        melded: bool[16] scandals melded this hand (by anyone).
        pile: discard pile, bottom first (``pile[-1]`` is the top).
        opp_known: bool[n] cards known to be in some opponent's hand.
        phase: ``Phase.DRAW``, ``Phase.MELD`` or ``Phase.BUILD``.
        duty: card drawn from deep that must be melded first (S3), -1.
        forbidden: top discard drawn this turn (S7), -1.
        mask: the legal action mask.
        stock: cards in the stock (-1: not known).
    """

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


class RepeatMemory:
    """How often the agent has already been in a position this hand (S4).

    A position is what bears on a draw or a discard in the agent's own
    observation: its hand, the melded scandals, the phase, the duty and
    forbidden cards, and at a draw the top discard (not the whole pile, the
    hand sizes or the turn: a stalled hand then shows its repeats within a
    round or two). The memory empties itself when the turn counter goes down
    (a new hand).

    Args:
        obs_spec: the observation layout.
    """

    PIECES = ("hand", "melded_by", "phase", "duty", "forbidden")

    def __init__(self, obs_spec: ObsSpec) -> None:
        """An empty memory for observations of ``obs_spec``."""
        self._spec = obs_spec
        self._seen: dict[bytes, int] = {}
        self._last = -1.0

    def clear(self) -> None:
        """Forget every position (a new hand or episode)."""
        self._seen.clear()
        self._last = -1.0

    def visits(self, obs: np.ndarray) -> int:
        """Times ``obs``'s position was met before this hand (0 the first time); counts this one."""
        view = self._spec.view
        turn = float(view(obs, "turn")[0])
        if turn < self._last:
            self._seen.clear()
        self._last = turn
        parts = [np.asarray(view(obs, name), dtype=np.float32) for name in self.PIECES]
        if np.argmax(view(obs, "phase")) == XE.Phase.DRAW:
            parts.append(np.asarray(view(obs, "discard_top"), dtype=np.float32))
        key = hashlib.blake2b(b"".join(p.tobytes() for p in parts), digest_size=16).digest()
        n = self._seen.get(key, 0)
        self._seen[key] = n + 1
        return n


class ScandalPolicy:
    """The Scandal heuristic for one config; `choose` maps a view to an action.

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
        # Plain Python copies for the per-card loops (exact: card values are integers).
        self._value = [float(v) for v in self.value]
        self._plain = [[c for c in cs if not self.is_title[c]] for cs in self.cards_of]

    # ------------------------------------------------------------------ analysis
    def playable(self, hand: np.ndarray, melded: np.ndarray) -> tuple[float, set[int]]:
        """Points of the cards that could be laid down now, and those cards."""
        return self._playable(_held(hand), _flags(melded))

    def _playable(self, held: set[int], melded: list[bool]) -> tuple[float, set[int]]:
        """`playable` of the cards ``held`` (a set) and the melded flags (a list).

        The scandals are visited in order (a gold card goes to the first that
        can use it); a scandal without a held card is skipped, as before.
        """
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
        if view.mask[lay.DRAW_STOCK]:
            return int(lay.DRAW_STOCK)
        return int(legal[0])

    def best_deep_draw(
        self,
        view: ScandalView,
        legal: np.ndarray,
        take_cost: float,
        margin: float,
        base: float | None = None,
    ) -> int:
        """The legal deep draw (S3) whose ``points laid down now - take_cost * waste``
        is highest and above ``margin`` (the shallowest among equals), or -1.

        ``base``: `playable` points of the hand, if the caller has them.
        A deep draw is the only move that takes cards out of the stock and pile
        for good. One that would leave a single card there (S4: no one could
        then ever draw more than one card, so hands of one or two cards could
        never meld again) is taken only when it goes out (`goes_out`).
        """
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
        """``hand`` can go out this turn: all its cards but one are laid down (``used``
        from `playable`), or all of one scandal, at least 4, of which one is
        kept back for the last discard (S8)."""
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
        """The least useful card; the most valuable among equals (S7 respected by the mask).

        At a discard already met ``repeat`` times this hand, the card ranked
        ``repeat`` (cyclically) goes instead, so a position is never played
        the same way twice.
        """
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


class ScandalReader:
    """Builds `ScandalView` from observations through the named views."""

    def __init__(self, config: ScandalConfig, obs_spec: ObsSpec) -> None:
        """Views for ``config``'s observation layout."""
        self.config = config
        self.spec = obs_spec
        self.policy = ScandalPolicy(config)
        self.p = config.num_players
        self.memory = RepeatMemory(obs_spec)

    def repeat(self, obs: np.ndarray, view: ScandalView) -> int:
        """Times this draw or discard position was met before this hand (0 elsewhere)."""
        return self.memory.visits(obs) if self.policy.decision_point(view) else 0

    def view(self, obs: np.ndarray, mask: np.ndarray) -> ScandalView:
        """The view of one observation."""
        v = self.spec.view
        n = self.policy.n
        hand = v(obs, "hand") > 0.5
        melded = v(obs, "melded_by").reshape(self.p, -1).max(axis=0) > 0.5
        in_pile = np.flatnonzero(v(obs, "discard_in") > 0.5)
        depth = np.rint(v(obs, "discard_depth")[in_pile] * (n - 1)).astype(int)
        pile = [int(c) for c in in_pile[np.argsort(-depth, kind="stable")]]
        opp = v(obs, "opp_known").reshape(self.p - 1, -1).max(axis=0) > 0.5
        duty = np.flatnonzero(v(obs, "duty") > 0.5)
        forbidden = np.flatnonzero(v(obs, "forbidden") > 0.5)
        return ScandalView(
            hand=hand,
            melded=melded,
            pile=pile,
            opp_known=opp,
            phase=int(np.argmax(v(obs, "phase"))),
            duty=int(duty[0]) if duty.size else -1,
            forbidden=int(forbidden[0]) if forbidden.size else -1,
            mask=mask,
            stock=int(np.rint(v(obs, "stock_size")[0] * n)),
        )

    def greedy(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """The greedy baseline's action (see the module docstring)."""
        view = self.view(obs, mask)
        repeat = self.repeat(obs, view)
        pol = self.policy
        lay = pol.lay
        legal = np.flatnonzero(mask)
        if view.phase == XE.Phase.DRAW:
            deep = pol.best_deep_draw(view, legal, take_cost=0.0, margin=0.0)
            if deep >= 0:
                return deep
            if mask[lay.DRAW_DISCARD] and view.pile:
                hand = view.hand.copy()
                hand[view.pile[-1]] = True
                if pol.playable(hand, view.melded)[0] > pol.playable(view.hand, view.melded)[0]:
                    return int(lay.DRAW_DISCARD)
                if not repeat and self.grows_set(view, view.pile[-1]):
                    return int(lay.DRAW_DISCARD)
            return int(lay.DRAW_STOCK) if mask[lay.DRAW_STOCK] else int(legal[0])
        if view.phase == XE.Phase.MELD:
            playing = legal[(legal >= lay.MELD_START) & (legal < lay.DISCARD)]
            if playing.size:
                return int(playing[-1])  # lay-offs first (highest ids), then melds
            cards = (legal[legal >= lay.DISCARD] - lay.DISCARD).tolist()
            if cards:
                ranked = sorted(cards, key=lambda c: (self.set_size(view, c), -pol.value[c], c))
                return int(lay.DISCARD + ranked[repeat % len(ranked)])
        return pol.choose(view)

    def grows_set(self, view: ScandalView, top: int) -> bool:
        """Taking ``top`` makes a set of 2+ cards, larger than that of the card it would throw."""
        rest = np.flatnonzero(view.hand).tolist()
        hand = view.hand.copy()
        hand[top] = True
        after = ScandalView(hand, view.melded, [], view.opp_known, view.phase, -1, top, view.mask)
        gain = self.set_size(after, top)
        return gain >= 2 and gain > min((self.set_size(after, c) for c in rest), default=0)

    def set_size(self, view: ScandalView, card: int) -> int:
        """Cards of the largest open scandal of ``card`` in hand (``card`` included; 0 if none)."""
        pol = self.policy
        sizes = [
            sum(1 for c in pol.cards_of[s] if view.hand[c])
            for s in pol.scandals_of[card]
            if not view.melded[s]
        ]
        return max(sizes, default=0)


class ScandalHeuristic:
    """The Scandal heuristic as an observation-level policy."""

    def __init__(self, config: ScandalConfig, obs_spec: ObsSpec, **params: float) -> None:
        """Policy for ``config``; ``params``: ``take_cost``, ``deep_margin``."""
        self.reader = ScandalReader(config, obs_spec)
        self.policy = ScandalPolicy(config, **params)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The heuristic's action for an observation and mask (repeats remembered, S4)."""
        view = self.reader.view(observation, action_mask)
        return self.policy.choose(view, self.reader.repeat(observation, view))


def make(config: ScandalConfig, obs_spec: ObsSpec, **params: float) -> ScandalHeuristic:
    """The Scandal heuristic for a `ScandalConfig`."""
    return ScandalHeuristic(config, obs_spec, **params)
