"""Observation and global-state encoding of a Scum table.

One flat float32 array of named pieces (``n`` players, ``K`` card slots).
Per-player pieces are *relative*: entry 0 is the observer, entry ``i`` the
``i``-th player after it in turn order. It holds everything a careful player
knows: no other hand, and of the trades only its own cards given and received.
"""

from __future__ import annotations

import numpy as np

from cardsuite.obsspec import ObsSpec, Piece
from scum_env.rules import Rules
from scum_env.state import OVER, PLAY, TRADE, State

NUM_ROLES = 5  # President, Vice President, Middle Class, Next to Scum, Scum (J3)
ROLES_DOC = (
    "role of each player, one-hot over President, Vice President, Middle Class, "
    "Next to Scum, Scum (relative)"
)


def trade_bound(rules: Rules) -> float:
    """Upper bound of the ``trade_given``/``trade_received`` entries (J5, P5).

    The most cards one player gives or receives in one series' trades (3 for
    the Scum with ``trade_rules="spanish"``), never below 2 (the bound saved
    policies' observation spaces have).
    """
    n = rules.num_players
    given, received = [0] * n, [0] * n
    for step in rules.trades:
        given[step.giver % n] += step.count
        received[step.receiver % n] += step.count
    return float(max(2, *given, *received))


def _highs(rules: Rules) -> tuple[float, float, float]:
    """Upper bounds of a card count, a scaled score and a traded count (``scores``, J8, J5)."""
    score_high = (rules.target + rules.num_players - 1) / rules.target  # a total's highest
    return float(rules.deck.max()), score_high, trade_bound(rules)


def observation_spec(rules: Rules) -> ObsSpec:
    """The observation layout for a table's rules."""
    n, k = rules.num_players, rules.num_slots
    most, score_high, trade = _highs(rules)
    return ObsSpec(
        [
            Piece("hand", k, "own cards: count per card slot", most),
            Piece("top_cards", k, "cards of the current top play (all 0 when leading)", most),
            Piece("top_player", n, "who made the current top play (one-hot, relative)"),
            Piece("passed", n, "who has passed this round (relative)"),
            Piece("acted", n, "who has played or passed this round (relative)"),
            Piece("cards_left", n, "cards in each player's hand (relative)", rules.deck_size),
            Piece("finish_rank", n, "k/n for the k-th player out this series, 0 if still in"),
            Piece("played", k, "cards played so far this series, all players", most),
            Piece("roles", n * NUM_ROLES, ROLES_DOC),
            Piece("trade_given", k, "cards this player gave in this series' trade", trade),
            Piece("trade_received", k, "cards this player received in this series' trade", trade),
            Piece("scores", n, "game totals / target score (relative)", score_high),
            Piece("phase", 3, "one-hot: give-back decision (J5), lead, follow"),
            Piece("give_backs_left", 1, "give-back decisions left in this step / 2"),
        ]
    )


class Encoder:
    """Writes observations into a reused buffer, fast."""

    def __init__(self, rules: Rules) -> None:
        """Precompute offsets for ``rules``."""
        self.rules = rules
        self.spec = observation_spec(rules)
        sl = self.spec.slices
        self._hand = sl["hand"]
        self._top = sl["top_cards"]
        self._top_player = self.spec.offset("top_player")
        self._passed = sl["passed"]
        self._acted = sl["acted"]
        self._cards = sl["cards_left"]
        self._finish = sl["finish_rank"]
        self._roles = self.spec.offset("roles")
        self._played = sl["played"]
        self._phase = self.spec.offset("phase")
        self._give = self.spec.offset("give_backs_left")
        n = rules.num_players
        self._role_idx = np.array([rules.role_index(p) for p in range(n)])
        self._inv_target = 1.0 / rules.target
        self._block = slice(sl["roles"].start, sl["scores"].stop)
        self._cached_key: tuple[int, int] = (-1, -1)
        self._cached_seating: list[tuple[np.ndarray, list[int], np.ndarray]] = []

    def relative(self, state: State, player: int) -> np.ndarray:
        """Players in relative turn order starting with ``player``."""
        return self._seating(state)[player][0]

    def _seating(self, state: State) -> list[tuple[np.ndarray, list[int], np.ndarray]]:
        """Per player: relative order (array, list) and the series block.

        The series block (``roles`` .. ``scores``, contiguous) changes only
        between series or during the trades: cached per (stamp, traded cards).
        """
        key = (state.stamp, len(state.trade_log))
        if self._cached_key != key:
            n = self.rules.num_players
            order = state.order
            spec = self.spec
            start = self._block.start
            table = []
            for player in range(n):
                p = state.pos[player]
                rel_list = [order[(p + i) % n] for i in range(n)]
                rel = np.array(rel_list)
                block = np.zeros(self._block.stop - start, dtype=np.float32)
                roles = spec.slices["roles"]
                for i in range(n):
                    block[roles.start - start + i * NUM_ROLES + self._role_idx[(p + i) % n]] = 1.0
                sl = spec.slices["trade_given"]
                block[sl.start - start : sl.stop - start] = state.given[player]
                sl = spec.slices["trade_received"]
                block[sl.start - start : sl.stop - start] = state.received[player]
                sl = spec.slices["scores"]
                block[sl.start - start : sl.stop - start] = state.scores[rel] * self._inv_target
                table.append((rel, rel_list, block))
            self._cached_key = key
            self._cached_seating = table
        return self._cached_seating

    def encode(self, state: State, player: int, out: np.ndarray) -> None:
        """Write ``player``'s observation of ``state`` into ``out``."""
        n = self.rules.num_players
        rel, rel_list, block = self._seating(state)[player]
        out[:] = 0.0
        out[self._hand] = state.hands[player]
        out[self._top] = state.top_cards
        pos = state.pos
        me = pos[player]
        if state.top_player >= 0:
            out[self._top_player + (pos[state.top_player] - me) % n] = 1.0
        out[self._passed] = state.passed[rel]
        out[self._acted] = state.acted[rel]
        ncards = state.ncards
        out[self._cards] = [ncards[q] for q in rel_list]
        if state.finish:
            base = self._finish.start
            for k, q in enumerate(state.finish):
                out[base + (pos[q] - me) % n] = (k + 1) / n
        out[self._played] = state.played
        out[self._block] = block
        if state.phase == PLAY:
            out[self._phase + (1 if state.top_count == 0 else 2)] = 1.0
        elif state.phase == TRADE:
            out[self._phase] = 1.0
            if state.to_act == player:
                out[self._give] = state.give_left / 2


def state_spec(rules: Rules) -> ObsSpec:
    """Layout of the global state (absolute player order) for centralized critics."""
    n, k = rules.num_players, rules.num_slots
    most, score_high, trade = _highs(rules)
    return ObsSpec(
        [
            Piece("hands", n * k, "every player's cards, player_0 first", most),
            Piece("top_cards", k, "cards of the current top play", most),
            Piece("top_player", n, "who made the top play (one-hot)"),
            Piece("passed", n, "who has passed this round"),
            Piece("acted", n, "who has played or passed this round"),
            Piece("to_act", n, "who is to act (one-hot)"),
            Piece("role_position", n, "role position / (n-1): 0 President .. 1 Scum"),
            Piece("finish_rank", n, "k/n for the k-th out, 0 if still in"),
            Piece("played", k, "cards played this series", most),
            Piece("trade_given", n * k, "cards each player gave in this series' trade", trade),
            Piece("scores", n, "game totals / target", score_high),
            Piece("phase", 3, "one-hot: give-back, lead, follow"),
        ]
    )


def encode_state(state: State, spec: ObsSpec) -> np.ndarray:
    """The global state array (absolute player order)."""
    rules = state.rules
    n = rules.num_players
    out = spec.zeros()
    view = spec.views(out)
    view["hands"][:] = state.hands.ravel()
    view["top_cards"][:] = state.top_cards
    if state.top_player >= 0:
        view["top_player"][state.top_player] = 1.0
    view["passed"][:] = state.passed
    view["acted"][:] = state.acted
    if state.phase != OVER:
        view["to_act"][state.to_act] = 1.0
    view["role_position"][:] = np.asarray(state.pos) / (n - 1)
    for k, q in enumerate(state.finish):
        view["finish_rank"][q] = (k + 1) / n
    view["played"][:] = state.played
    view["trade_given"][:] = state.given.ravel()
    view["scores"][:] = state.scores / rules.target
    if state.phase == TRADE:
        view["phase"][0] = 1.0
    elif state.phase == PLAY:
        view["phase"][1 if state.top_count == 0 else 2] = 1.0
    return out
