"""Size-generic observations: any table of a game in one fixed layout (one network per game).

Per-seat pieces are padded with zeros to the largest table (Scum Party 15 seats, P2; Scandal
6, S2), Party's ``table`` one-hot to 10 tables, and a ``seat_present`` piece is appended; the
bounds are the largest table's. A table's mask is the generic mask's first entries. An agent
pads what it is given (`pad_observation`, `pad_mask`); the env's observation never changes.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardsuite import safe_json
from cardsuite.agents.base import TableInfo, describe_table
from cardsuite.errors import CheckpointError, ConfigError, TableMismatchError
from cardsuite.games import get_game
from cardsuite.obsspec import ObsSpec, Piece

PARTY_MIN_SEATS = 5  # P2: tables of 5 to 15 players
PARTY_MAX_SEATS = 15
PARTY_MAX_TABLES = 10  # 50 players (P2) in tables of 5
PARTY_MAX_ACTIONS = 225  # 1 + 16 * 14: four decks (P1) at a 13-15 player table
SCANDAL_MAX_SEATS = 6  # S2

# Per-seat pieces: name -> (entries per seat, seat offset; -1: per *other* player).
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
    """The size-generic layout of one game: the largest table's seats, tables and actions, the
    per-seat pieces (name -> entries per seat, seat offset), the per-table pieces, the
    smallest table's seats."""

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
        TableMismatchError: naming agent ``name``, the table's game or what does not fit.
    """
    check_game(name, game, table)
    layout = layout_of(game)
    try:
        layout.spec(table.obs_spec)
    except ConfigError as err:
        raise TableMismatchError(
            f"{name}: this table ({describe_table(table)}) does not fit: {err}"
        ) from None
    if table.num_actions > layout.num_actions:
        raise TableMismatchError(
            f"{name}: this table ({describe_table(table)}) has {table.num_actions} actions, "
            f"more than the generic {game} layout's {layout.num_actions}"
        )


def check_sizes(meta: Any, where: str, what: str, obs_size: int, num_actions: int) -> None:
    """CheckpointError naming ``meta``'s field ``obs_size`` or ``num_actions`` where it is not
    ``what``'s (``obs_size`` entries, ``num_actions`` actions)."""
    if meta.obs_size != obs_size:
        raise CheckpointError(
            f"{where}: field 'obs_size': {what} has {obs_size} entries, got {meta.obs_size}"
        )
    if meta.num_actions != num_actions:
        raise CheckpointError(
            f"{where}: field 'num_actions': {what} has {num_actions} actions, "
            f"got {meta.num_actions}"
        )


def check_game(name: str, game: str, table: TableInfo) -> None:
    """TableMismatchError unless ``table`` is of ``game``, the one agent ``name`` trained on."""
    if table.game != game:
        raise TableMismatchError(
            f"{name} was trained on {game!r}, not {table.game!r}; "
            f"use a {game} table or an agent trained on {table.game}"
        )


@functools.lru_cache(maxsize=16)
def table_spec(game: str, options_json: str) -> tuple[ObsSpec, int]:
    """The observation spec and action count of ``game``'s table with the JSON ``options``."""
    env = get_game(game).make(**safe_json.loads(options_json, "options"))
    try:
        return env.unwrapped.obs_spec, int(env.unwrapped.num_actions)
    finally:
        env.close()


@functools.lru_cache(maxsize=8)
def generic_spec(game: str) -> ObsSpec:
    """The generic spec of ``game``: its largest table's pieces and bounds, padded (module doc)."""
    layout = layout_of(game)
    return layout.spec(table_spec(game, json.dumps({"num_players": layout.max_seats}))[0])


def _places(source: ObsSpec, game: str) -> tuple[ObsSpec, np.ndarray]:
    """The generic spec, and the place in it of each entry of ``source`` (a piece's entries keep
    their order from its generic start; padding follows them)."""
    dst = layout_of(game).spec(source)
    starts = [dst.slices[piece.name].start for piece in source.pieces]
    return dst, np.concatenate(
        [start + np.arange(piece.size) for start, piece in zip(starts, source.pieces, strict=True)]
    )


def pad_observation(obs: Any, source: ObsSpec, game: str) -> np.ndarray:
    """``obs`` (``[D]`` or ``[B, D]`` of a table with spec ``source``) as ``generic_spec(game)``.

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
    """The inverse of `pad_observation`: ``generic`` (``[G]`` or ``[B, G]``) in ``source``'s layout.

    Raises:
        ConfigError: ``generic`` is not of the generic layout's size, or the table too large.
    """
    dst, places = _places(source, game)
    x = np.asarray(generic, dtype=np.float32)
    if x.shape[-1] != dst.size:
        raise ConfigError(
            f"observation: expected {dst.size} entries of the generic {game} layout, "
            f"got {x.shape[-1]}"
        )
    return x[..., places]
