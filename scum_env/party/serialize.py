"""JSON round trip of a Scum Party tournament (`scum_env.party.state.Party`).

The tables are saved with [`scum_env.serialize.to_dict`][scum_env.serialize.to_dict];
of the config only the table sizes and hand count, which must match the config
the state is restored under. A bad state raises
[`StateError`][cardsuite.errors.StateError] naming the field.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from cardsuite.errors import StateError
from scum_env import serialize as S
from scum_env.party.config import PartyConfig
from scum_env.party.state import Party, seat, table_rules
from scum_env.presets import MAX_TOTAL, is_whole, short
from scum_env.state import OVER


def to_dict(party: Party) -> dict[str, Any]:
    """A JSON-ready dict of the tournament (table sizes and hand count kept, for checking)."""
    return {
        "sizes": list(party.config.sizes),
        "num_hands": party.config.num_hands,
        "tables": [S.to_dict(st) for st in party.tables],
        "members": [list(m) for m in party.members],
        "current": party.current,
        "hand": party.hand,
        "scores": party.scores.tolist(),
        "last_points": party.last_points.tolist(),
        "last_finish": [list(f) for f in party.last_finish],
        "over": party.over,
    }


FIELDS = ("sizes", "num_hands", "tables", "members", "current", "hand", "scores",
          "last_points", "last_finish", "over")  # fmt: skip


def from_dict(config: PartyConfig, data: Any) -> Party:
    """Rebuild a tournament from `to_dict`; StateError naming the field if it is not one.

    Each table is read by `scum_env.serialize.from_dict`; the tournament's own
    fields are checked here and against the tables (P2, P7, P8).
    """
    n, sizes = config.num_players, config.sizes
    if not isinstance(data, dict):
        raise StateError(
            f"a saved Scum Party state must be a JSON object, got {type(data).__name__}"
        )
    for name in FIELDS:
        if name not in data:
            raise StateError(f"corrupt Scum Party state: KeyError: field {name!r} is missing")
    unknown = [str(name)[:40] for name in data if name not in FIELDS][:5]
    if unknown:
        raise StateError(f"corrupt Scum Party state: unknown fields {unknown}")
    if data["sizes"] != list(sizes) or data["num_hands"] != config.num_hands:
        raise StateError(
            f"Scum Party state was saved for tables {short(data['sizes'])} and "
            f"{short(data['num_hands'])} hands; this config has tables {list(sizes)} "
            f"and {config.num_hands} hands"
        )
    members = _members(data["members"], sizes, n)
    if not isinstance(data["tables"], list) or len(data["tables"]) != len(sizes):
        raise _fail("tables", f"must hold one saved table per table, {len(sizes)}")
    tables = []
    for t, (size, saved) in enumerate(zip(sizes, data["tables"], strict=True)):
        try:
            table = S.from_dict(table_rules(size), saved)
        except StateError as err:
            raise StateError(f"Scum Party state, table {t}: {err}") from None
        if table.order != list(range(size)):
            raise _fail("tables", f"table {t} must seat its players in dealt order (P3)")
        tables.append(table)
    count = len(sizes)
    party = Party(
        config=config,
        tables=tables,
        current=_party_whole("current", data["current"], 0, count - 1),
        hand=_party_whole("hand", data["hand"], 0, config.num_hands),
        scores=np.array(_ints("scores", data["scores"], n, -MAX_TOTAL, MAX_TOTAL), dtype=np.int64),
        last_points=np.array(
            _ints("last_points", data["last_points"], n, -2, count + 2), dtype=np.int64
        ),
        last_finish=_last_finish(data["last_finish"], sizes, n),
        over=_party_flag("over", data["over"]),
    )
    seat(party, members)
    _check_party(party)
    return party


def _fail(field: str, why: str) -> StateError:
    return StateError(f"corrupt Scum Party state: field {field!r} {why}")


def _party_whole(field: str, value: Any, low: int, high: int) -> int:
    if not is_whole(value) or not low <= value <= high:
        raise _fail(field, f"must be an integer from {low} to {high}, got {short(value)}")
    return int(value)


def _party_flag(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _fail(field, f"must be true or false, got {short(value)}")
    return value


def _ints(field: str, value: Any, size: int, low: int, high: int) -> list[int]:
    if not isinstance(value, list) or len(value) != size:
        raise _fail(field, f"must be a list of {size} integers")
    return [_party_whole(field, v, low, high) for v in value]


def _members(value: Any, sizes: tuple[int, ...], n: int) -> list[list[int]]:
    if not isinstance(value, list) or [
        len(m) if isinstance(m, list) else -1 for m in value
    ] != list(sizes):
        raise StateError(f"Scum Party state has the wrong tables for sizes {list(sizes)}")
    members = [[_party_whole("members", p, 0, n - 1) for p in m] for m in value]
    if sorted(p for m in members for p in m) != list(range(n)):
        raise StateError(f"Scum Party state must seat each of the {n} players once")
    return members


def _last_finish(value: Any, sizes: tuple[int, ...], n: int) -> list[list[int]]:
    if value == []:
        return []
    if not isinstance(value, list) or [
        len(f) if isinstance(f, list) else -1 for f in value
    ] != list(sizes):
        raise _fail("last_finish", f"must be [] or one finish order per table, sizes {list(sizes)}")
    finish = [[_party_whole("last_finish", p, 0, n - 1) for p in f] for f in value]
    if sorted(p for f in finish for p in f) != list(range(n)):
        raise _fail("last_finish", f"must list each of the {n} players once")
    return finish


def _check_party(party: Party) -> None:
    """The tournament's fields agree with each other and with its tables."""
    if party.over != (party.hand == party.config.num_hands):
        raise _fail("over", "must say whether every hand has been played")
    if (party.hand == 0) != (party.last_finish == []) or (
        party.hand == 0 and party.last_points.any()
    ):
        raise _fail("last_finish", "and 'last_points' are set once a hand has been scored (P8)")
    if party.over:
        for t, st in enumerate(party.tables):
            if st.phase != OVER or [party.members[t][q] for q in st.finish] != party.last_finish[t]:
                raise _fail(
                    "last_finish", f"must be table {t}'s finish order once the tournament is over"
                )
    elif party.tables[party.current].phase == OVER:
        raise StateError("corrupt Scum Party state: the table to act has finished its hand")


def to_json(party: Party) -> str:
    """The tournament as a JSON string (exact round trip with `from_json`)."""
    return json.dumps(to_dict(party), separators=(",", ":"))


def from_json(config: PartyConfig, text: str) -> Party:
    """Rebuild a tournament from `to_json`; StateError if corrupt."""
    return from_dict(config, S.parse_json(text, "Scum Party"))


def load_state(config: PartyConfig, saved: Any) -> Party:
    """A tournament from ``reset(options={"state": ...})``: JSON text or a parsed dict."""
    what = "a saved tournament (scum_env.party.engine.to_json)"
    return S.read_saved(saved, config, (from_json, from_dict), what)
