"""The Scandal heuristic and greedy baseline on observations (rules S1–S9; docs/agents.md).

`ScandalReader` builds a `ScandalView`; `ScandalHeuristic` plays `ScandalPolicy` on it. Both
remember the positions met this hand (`RepeatMemory`, S4): back at a draw, only a top discard
laid down at once is taken; back at a discard met k times, the card ranked k-th goes.
"""

from __future__ import annotations

import hashlib

import numpy as np

from cardsuite.agents.baselines.scandal_rule import ScandalPolicy, ScandalView, view_from_state
from cardsuite.obsspec import ObsSpec
from scandal_env import engine as XE
from scandal_env.config import ScandalConfig

__all__ = ["RepeatMemory", "ScandalHeuristic", "ScandalPolicy", "ScandalReader", "ScandalView",
           "make", "view_from_state"]  # fmt: skip


class RepeatMemory:
    """How often the agent has already been in a position this hand (S4): its `PIECES`, and at
    a draw the top discard (so a stalled hand repeats within a round or two); a lower turn
    than the last starts a new hand; ``seen`` counts each position's visits."""

    PIECES = ("hand", "melded_by", "phase", "duty", "forbidden")

    def __init__(self, obs_spec: ObsSpec) -> None:
        """An empty memory for observations of ``obs_spec``."""
        self._spec = obs_spec
        self.seen: dict[bytes, int] = {}
        self._last = -1.0

    def clear(self) -> None:
        """Forget every position (a new hand or episode)."""
        self.seen.clear()
        self._last = -1.0

    def visits(self, obs: np.ndarray) -> int:
        """Times ``obs``'s position was met before this hand (0 the first time); counts this one."""
        view = self._spec.view
        parts = [np.asarray(view(obs, name), dtype=np.float32) for name in self.PIECES]
        if np.argmax(view(obs, "phase")) == XE.Phase.DRAW:
            parts.append(np.asarray(view(obs, "discard_top"), dtype=np.float32))
        key = hashlib.blake2b(b"".join(p.tobytes() for p in parts), digest_size=16).digest()
        return self.count(key, float(view(obs, "turn")[0]))

    def count(self, key: bytes, turn: float) -> int:
        """`visits` of the position ``key`` met at ``turn`` (a lower turn starts a new hand)."""
        if turn < self._last:
            self.seen.clear()
        self._last = turn
        n = self.seen.get(key, 0)
        self.seen[key] = n + 1
        return n


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


#: The Scandal heuristic for a `ScandalConfig` (the record's ``heuristic`` part).
make = ScandalHeuristic
