"""Size-generic observations: any table of a game in one layout (one policy per game).

A Scum Party observation has per-player pieces as long as the config's
largest table and a ``table`` piece as long as its number of tables; a
Scandal observation has per-player pieces as long as the player count. So
a network trained on one table's observations (``party8``'s 184 entries)
cannot read a 20-player party's (211) as they are. This module maps any
table's observation, *as the env documents it*, into
one fixed layout per game, so a single network can play every size:

* per-seat pieces (relative seating: entry 0 is the observer, entry ``i`` the
  ``i``-th player after it) are padded with zeros to the game's largest table
  (15 seats for Scum Party, P2; 6 players for Scandal, S2), entity by entity
  (a piece of ``w`` entries per seat, such as Party's ``roles`` or Scandal's
  ``laid_by``, keeps each seat's block of ``w`` together);
* Party's ``table`` one-hot is padded to 10 tables (50 players in tables of
  5, ``table_sizes``);
* every other piece (cards, phase, scalars) is copied unchanged;
* a ``seat_present`` piece is appended: 1 for the relative entries that are
  players at the observer's table.

Bounds are the largest of any table (Party's card counts of 4 decks), so a
network's input scaling is the same at every size. Actions need no
remapping: Party's action id ``1 + (count - 1) * 14 + slot`` and Scandal's
card-based ids do not depend on the table, so a table's mask is the generic
mask's first ``num_actions`` entries (``pad_mask`` pads it with False).

The env's own observation is never changed: an agent wrapper calls
[pad_observation][cardsuite.agents.learned.layout.pad_observation] on what it
is given (`cardsuite.agents.learned.size_generic.SizeGenericAgent`, which
``cardsuite dmc`` with ``sizes`` trains); `unpad_observation` is its inverse.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.obsspec import ObsSpec, Piece

PARTY_MIN_SEATS = 5  # P2: tables of 5 to 15 players
PARTY_MAX_SEATS = 15
PARTY_MAX_TABLES = 10  # 50 players (P2) in tables of 5
PARTY_MAX_ACTIONS = 225  # 1 + 16 * 14: four decks (P1) at a 13-15 player table
SCANDAL_MAX_SEATS = 6  # S2

# Pieces that hold one block per relative seat: name -> (entries per seat, seats offset).
# ``seats offset`` -1: one block per *other* player (Scandal's ``opp_known``).
PARTY_PER_SEAT: dict[str, tuple[int, int]] = {
    "top_player": (1, 0), "passed": (1, 0), "acted": (1, 0), "cards_left": (1, 0),
    "finish_rank": (1, 0), "seats": (1, 0), "roles": (5, 0), "position": (1, 0),
    "table_scores": (1, 0),
}  # fmt: skip
SCANDAL_PER_SEAT: dict[str, tuple[int, int]] = {
    "opp_known": (80, -1), "laid_by": (80, 0), "melded_by": (16, 0), "hand_sizes": (1, 0),
    "scores": (1, 0), "hand_points": (1, 0), "to_act": (1, 0), "dealer": (1, 0),
}  # fmt: skip


@dataclass(frozen=True)
class GenericLayout:
    """The size-generic layout of one game.

    Attributes:
        game: the registry name (``scum_party`` or ``scandal``).
        max_seats: seats of the largest table.
        max_tables: tables of the largest party (1 for Scandal).
        num_actions: actions of the largest table.
        per_seat: per-seat pieces (name -> entries per seat, seat offset).
        per_table: pieces with one entry per table.
        min_seats: seats of the smallest table.
    """

    game: str
    max_seats: int
    max_tables: int
    num_actions: int
    per_seat: dict[str, tuple[int, int]]
    per_table: tuple[str, ...] = ()
    min_seats: int = 2

    def seats_of(self, spec: ObsSpec) -> int:
        """The per-seat entity count of a table's spec (Party: its config's largest table)."""
        name, (width, offset) = next(iter(self.per_seat.items()))
        return spec.pieces[_index(spec, name)].size // width - offset

    def tables_of(self, spec: ObsSpec) -> int:
        """The number of tables of a table's spec (1 without a per-table piece)."""
        return spec.pieces[_index(spec, self.per_table[0])].size if self.per_table else 1

    def spec(self, source: ObsSpec) -> ObsSpec:
        """The generic spec built from any table's spec of the game (the same for every size).

        Raises:
            ConfigError: ``source`` is larger than this layout or lacks a piece.
        """
        seats, tables = self.seats_of(source), self.tables_of(source)
        if seats > self.max_seats or tables > self.max_tables:
            raise ConfigError(
                f"observation: {seats} seats and {tables} tables exceed the generic "
                f"{self.game} layout ({self.max_seats} seats, {self.max_tables} tables)"
            )
        pieces = []
        for piece in source.pieces:
            size = piece.size
            if piece.name in self.per_seat:
                width, offset = self.per_seat[piece.name]
                size = width * (self.max_seats + offset)
            elif piece.name in self.per_table:
                size = self.max_tables
            pieces.append(Piece(piece.name, size, piece.doc, piece.high, piece.low))
        pieces.append(
            Piece("seat_present", self.max_seats, "1 for relative entries that are players")
        )
        return ObsSpec(pieces)


def _index(spec: ObsSpec, name: str) -> int:
    for i, piece in enumerate(spec.pieces):
        if piece.name == name:
            return i
    raise ConfigError(f"observation: no piece {name!r} in this spec")


PARTY = GenericLayout("scum_party", PARTY_MAX_SEATS, PARTY_MAX_TABLES, PARTY_MAX_ACTIONS,
                      PARTY_PER_SEAT, ("table",), PARTY_MIN_SEATS)  # fmt: skip
SCANDAL = GenericLayout("scandal", SCANDAL_MAX_SEATS, 1, 338, SCANDAL_PER_SEAT)
LAYOUTS = {layout.game: layout for layout in (PARTY, SCANDAL)}


def layout_of(game: str) -> GenericLayout:
    """The generic layout of ``game``; ConfigError naming the games that have one."""
    try:
        return LAYOUTS[game]
    except KeyError:
        raise ConfigError(
            f"field 'game': size-generic layouts exist for {', '.join(LAYOUTS)}; got {game!r}"
        ) from None


def check_table_fits(name: str, game: str, table: TableInfo) -> None:
    """``table`` is of ``game`` and fits its size-generic layout (seats, tables, actions).

    Raises:
        CheckpointError: naming agent ``name``, the table's game or what does not fit.
    """
    if table.game != game:
        raise CheckpointError(
            f"{name} was trained on {game!r}, not {table.game!r}; "
            f"use a {game} table or an agent trained on {table.game}"
        )
    layout = layout_of(game)
    try:
        layout.spec(table.obs_spec)
    except ConfigError as err:
        raise CheckpointError(f"{name}: this table does not fit: {err}") from None
    if table.num_actions > layout.num_actions:
        raise CheckpointError(
            f"{name}: this table has {table.num_actions} actions, more than the "
            f"generic {game} layout's {layout.num_actions}"
        )


@functools.lru_cache(maxsize=8)
def generic_spec(game: str) -> ObsSpec:
    """The generic spec of ``game``: its largest table's pieces and bounds, padded (module doc)."""
    from cardsuite.games import get_game

    layout = layout_of(game)
    env = get_game(game).make(num_players=layout.max_seats)
    try:
        return layout.spec(env.unwrapped.obs_spec)
    finally:
        env.close()


def _places(source: ObsSpec, game: str) -> tuple[ObsSpec, np.ndarray]:
    """The generic spec, and the place in it of each entry of ``source``.

    A per-seat piece keeps its seats' blocks first and pads after them, so
    every piece's entries keep their order from the piece's generic start.
    """
    dst = layout_of(game).spec(source)
    starts = [dst.slices[piece.name].start for piece in source.pieces]
    return dst, np.concatenate(
        [start + np.arange(piece.size) for start, piece in zip(starts, source.pieces, strict=True)]
    )


def pad_observation(obs: Any, source: ObsSpec, game: str) -> np.ndarray:
    """``obs`` (``[D]`` or ``[B, D]`` of a table with spec ``source``) in the generic layout.

    The result is laid out as ``generic_spec(game)`` whatever the table's size.

    Raises:
        ConfigError: ``obs`` does not have ``source``'s size, or the table is too large.
    """
    x = np.asarray(obs, dtype=np.float32)
    if x.shape[-1] != source.size:
        raise ConfigError(
            f"observation: expected {source.size} entries for this table, got {x.shape[-1]}"
        )
    dst, places = _places(source, game)
    out = np.zeros((*x.shape[:-1], dst.size), dtype=np.float32)
    out[..., places] = x
    present = out[..., dst.slices["seat_present"]]
    if "seats" in source.slices:  # Party: the observer's own table, not the config's largest
        present[...] = out[..., dst.slices["seats"]]
    else:
        present[..., : layout_of(game).seats_of(source)] = 1.0
    return out


def pad_mask(mask: Any, game: str) -> np.ndarray:
    """A table's action mask (``[A]`` or ``[B, A]``) in the generic action space (False after A).

    Raises:
        ConfigError: the mask has more actions than the generic layout.
    """
    layout = layout_of(game)
    m = np.asarray(mask).astype(bool)
    if m.shape[-1] > layout.num_actions:
        raise ConfigError(
            f"action_mask: {m.shape[-1]} actions exceed the generic {game} layout "
            f"({layout.num_actions})"
        )
    out = np.zeros((*m.shape[:-1], layout.num_actions), dtype=bool)
    out[..., : m.shape[-1]] = m
    return out


def unpad_observation(generic: Any, source: ObsSpec, game: str) -> np.ndarray:
    """The inverse of `pad_observation`: a table's observation back out of the generic layout.

    ``generic`` is ``[G]`` or ``[B, G]`` laid out as ``generic_spec(game)``;
    the result has ``source``'s layout. Entries past the table (padding,
    ``seat_present``) are dropped, so ``unpad(pad(obs)) == obs`` for any
    table observation.

    Raises:
        ConfigError: ``generic`` does not have the generic layout's size, or the
            table is too large for it.
    """
    dst, places = _places(source, game)
    x = np.asarray(generic, dtype=np.float32)
    if x.shape[-1] != dst.size:
        raise ConfigError(
            f"observation: expected {dst.size} entries of the generic {game} layout, "
            f"got {x.shape[-1]}"
        )
    return x[..., places]
