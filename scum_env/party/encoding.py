"""Observation and global-state encoding of Scum Party (P1–P8).

One flat float32 array of named pieces, the same size for every player of a
config: per-player pieces are padded to the largest table ``P`` (``seats``
marks the real ones) and *relative* to the observer's own table (entry 0 is
the observer, then turn order, King to Scum, P3). A player sees its own table
as a Scum player would and no other table's cards; of the ladder its table,
seat, total, standing, the leader's gap and its table's totals. Scores are
scaled by ``num_hands * (T + 2)`` (the most one player can gain) and clipped
to [-1, 1].
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from cardsuite.obsspec import ObsSpec, Piece
from scum_env.encoding import trade_bound
from scum_env.party.config import PartyConfig
from scum_env.party.engine import Party, action_rules
from scum_env.rules import Rules, role_index
from scum_env.state import PLAY

NUM_ROLES = 5  # King, Assistant King, Commoner, Assistant Scum, Scum (P3)
ROLES_DOC = (
    "role of each player at the table, one-hot over King, Assistant King, Commoner, "
    "Assistant Scum, Scum (relative, padded)"
)


def _rules(config: PartyConfig) -> tuple[Rules, float, float]:
    """The action rules and the highest card count and traded count of ``config``."""
    rules = action_rules(config)
    return rules, float(rules.deck.max()), trade_bound(rules)


def score_scale(config: PartyConfig) -> float:
    """Most points one player can gain in a tournament (P8)."""
    return float(config.num_hands * (config.num_tables + 2))


def observation_spec(config: PartyConfig) -> ObsSpec:
    """The observation layout for a party config."""
    rules, most, trade = _rules(config)
    p, k, t = config.max_table, rules.num_slots, config.num_tables
    return ObsSpec(
        [
            Piece("hand", k, "own cards: count per rank 2..A, Joker", most),
            Piece(
                "top_cards", k, "cards of the current top play at the table (0 when leading)", most
            ),
            Piece("top_player", p, "who made the top play (one-hot, relative)"),
            Piece("passed", p, "who has passed this trick (relative)"),
            Piece("acted", p, "who has played or passed this trick (relative)"),
            Piece("cards_left", p, "cards in each player's hand (relative)", rules.deck_size),
            Piece("finish_rank", p, "k/size for the k-th player out this hand, 0 if still in"),
            Piece("seats", p, "1 for entries that are players at this table (relative)"),
            Piece("roles", p * NUM_ROLES, ROLES_DOC),
            Piece("played", k, "cards played so far this hand at the table", most),
            Piece(
                "trade_given", k, "cards this player gave in this hand's forced trades (P5)", trade
            ),
            Piece("trade_received", k, "cards this player received in those trades (P5)", trade),
            Piece("table", t, "own table, one-hot (0 = top table)"),
            Piece("position", p, "own seat at the table, one-hot (0 = King)"),
            Piece("table_size", 1, "players at own table / 15"),
            Piece("num_tables", 1, "number of tables / 10"),
            Piece("hands_done", 1, "hands scored so far / num_hands"),
            Piece("score", 1, "own tournament total / scale (P8)", 1.0, -1.0),
            Piece("standing", 1, "players with a higher total / (n - 1)"),
            Piece("leader_gap", 1, "(best total - own total) / scale", 2.0),
            Piece(
                "table_scores",
                p,
                "tournament totals of the table's players / scale (relative)",
                1.0,
                -1.0,
            ),
            Piece("phase", 3, "one-hot: own table leads, follows, or has finished its hand"),
        ]
    )


class Encoder:
    """Writes observations into a reused buffer; cost grows with one table, not all."""

    def __init__(self, config: PartyConfig) -> None:
        """Precompute offsets and role blocks for ``config``."""
        self.config = config
        self.spec = observation_spec(config)
        sl = self.spec.slices
        assert sl["standing"].start == sl["score"].start + 1 == sl["leader_gap"].start - 1
        self._o = SimpleNamespace(**{name: s.start for name, s in sl.items()})
        self._roles_size = sl["roles"].stop - sl["roles"].start
        self._num_tables = config.num_tables / 10.0
        self._p = config.max_table
        self._inv_scale = 1.0 / score_scale(config)
        self._n = config.num_players
        self._roles: dict[tuple[int, int], np.ndarray] = {}
        self._ladder_key: tuple[int, bytes] | None = None
        self._ladder = np.zeros((self._n, 3), dtype=np.float32)

    def _role_block(self, size: int, position: int) -> np.ndarray:
        key = (size, position)
        block = self._roles.get(key)
        if block is None:
            block = np.zeros(self._p * NUM_ROLES, dtype=np.float32)
            for i in range(size):
                block[i * NUM_ROLES + role_index((position + i) % size, size)] = 1.0
            self._roles[key] = block
        return block

    def ladder(self, party: Party) -> np.ndarray:
        """Per player: scaled total, standing, leader gap (computed once per hand)."""
        key = (party.hand, party.scores.tobytes())
        if key != self._ladder_key:
            scores = party.scores
            higher = (scores[None, :] > scores[:, None]).sum(axis=1)
            lad = self._ladder
            lad[:, 0] = np.clip(scores * self._inv_scale, -1.0, 1.0)
            lad[:, 1] = higher / max(self._n - 1, 1)
            lad[:, 2] = np.clip((scores.max() - scores) * self._inv_scale, 0.0, 2.0)
            self._ladder_key = key
        return self._ladder

    def encode(self, party: Party, player: int, out: np.ndarray) -> None:
        """Write ``player``'s observation of ``party`` into ``out``."""
        o = self._o
        k = 14
        t = party.table_of[player]
        st = party.tables[t]
        q = party.local_of[player]
        size = st.rules.num_players
        order = st.order
        pos = st.pos
        me = pos[q]
        rel = order[me:] + order[:me]
        out[:] = 0.0
        out[o.hand : o.hand + k] = st.hands[q]
        if st.top_player >= 0:
            out[o.top_cards : o.top_cards + k] = st.top_cards
            out[o.top_player + (pos[st.top_player] - me) % size] = 1.0
        out[o.passed : o.passed + size] = st.passed[rel]
        out[o.acted : o.acted + size] = st.acted[rel]
        ncards = st.ncards
        out[o.cards_left : o.cards_left + size] = [ncards[x] for x in rel]
        base = o.finish_rank
        for rank, x in enumerate(st.finish):
            out[base + (pos[x] - me) % size] = (rank + 1) / size
        out[o.seats : o.seats + size] = 1.0
        out[o.roles : o.roles + self._roles_size] = self._role_block(size, me)
        out[o.played : o.played + k] = st.played
        out[o.trade_given : o.trade_given + k] = st.given[q]
        out[o.trade_received : o.trade_received + k] = st.received[q]
        out[o.table + t] = 1.0
        out[o.position + me] = 1.0
        out[o.table_size] = size / 15.0
        out[o.num_tables] = self._num_tables
        out[o.hands_done] = party.hand / self.config.num_hands
        lad = self.ladder(party)
        out[o.score : o.score + 3] = lad[player]
        members = party.members[t]
        out[o.table_scores : o.table_scores + size] = lad[[members[x] for x in rel], 0]
        if st.phase == PLAY:
            out[o.phase + (0 if st.top_count == 0 else 1)] = 1.0
        else:
            out[o.phase + 2] = 1.0


def state_spec(config: PartyConfig) -> ObsSpec:
    """Layout of the global state (absolute player order) for centralized critics."""
    rules, most, trade = _rules(config)
    n, k, t = config.num_players, rules.num_slots, config.num_tables
    return ObsSpec(
        [
            Piece("hands", n * k, "every player's cards, player_0 first", most),
            Piece("table", n * t, "each player's table, one-hot per player"),
            Piece("position", n, "seat at the table / (size - 1): 0 King .. 1 Scum"),
            Piece("cards_left", n, "cards in each player's hand", rules.deck_size),
            Piece("finish_rank", n, "k/size for the k-th out at its table this hand, 0 if in"),
            Piece("to_act", n, "who is to act (one-hot)"),
            Piece("passed", n, "who has passed this trick at its table"),
            Piece("acted", n, "who has played or passed this trick at its table"),
            Piece("top_player", n, "who made the top play at its table"),
            Piece("top_cards", t * k, "each table's top play", most),
            Piece("played", t * k, "cards played this hand, per table", most),
            Piece("trade_given", n * k, "cards each player gave in this hand's trades", trade),
            Piece("scores", n, "tournament totals / scale (P8)", 1.0, -1.0),
            Piece("hands_done", 1, "hands scored so far / num_hands"),
            Piece("phase", t * 3, "per table one-hot: lead, follow, hand finished"),
        ]
    )


def encode_state(party: Party, spec: ObsSpec) -> np.ndarray:
    """The global state array (absolute player order)."""
    config = party.config
    k = action_rules(config).num_slots
    num_tables = len(party.tables)
    out = spec.zeros()
    view = spec.views(out)
    for t, st in enumerate(party.tables):
        size = st.rules.num_players
        for q, player in enumerate(party.members[t]):
            view["hands"][player * k : (player + 1) * k] = st.hands[q]
            view["table"][player * num_tables + t] = 1.0
            view["position"][player] = st.pos[q] / (size - 1)
            view["cards_left"][player] = st.ncards[q]
            view["passed"][player] = st.passed[q]
            view["acted"][player] = st.acted[q]
            view["trade_given"][player * k : (player + 1) * k] = st.given[q]
        for rank, q in enumerate(st.finish):
            view["finish_rank"][party.members[t][q]] = (rank + 1) / size
        if st.top_player >= 0:
            view["top_player"][party.members[t][st.top_player]] = 1.0
        view["top_cards"][t * k : (t + 1) * k] = st.top_cards
        view["played"][t * k : (t + 1) * k] = st.played
        if st.phase == PLAY:
            view["phase"][t * 3 + (0 if st.top_count == 0 else 1)] = 1.0
        else:
            view["phase"][t * 3 + 2] = 1.0
    if not party.over:
        view["to_act"][party.to_act] = 1.0
    view["scores"][:] = np.clip(party.scores / score_scale(config), -1.0, 1.0)
    view["hands_done"][0] = party.hand / config.num_hands
    return out
