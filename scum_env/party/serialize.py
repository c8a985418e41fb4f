"""JSON round trip of a Scum Party tournament (:class:`scum_env.party.state.Party`).

The tables are saved with :func:`scum_env.serialize.to_dict`; the config is
not saved, only the table sizes and hand count, which must match the config
the state is restored under. A state that does not fit raises
:class:`~cardsuite.errors.StateError` naming the field.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from cardsuite.errors import StateError
from scum_env import serialize as S
from scum_env.party.config import PartyConfig
from scum_env.party.state import Party, seat, table_rules
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


def from_dict(config: PartyConfig, data: dict[str, Any]) -> Party:
    """Rebuild a tournament from :func:`to_dict`; StateError if it does not fit ``config``."""
    n, sizes = config.num_players, config.sizes
    try:
        if data["sizes"] != list(sizes) or data["num_hands"] != config.num_hands:
            raise StateError(
                f"Scum Party state was saved for tables {data['sizes']} and "
                f"{data['num_hands']} hands; this config has tables {list(sizes)} "
                f"and {config.num_hands} hands"
            )
        members = [[int(p) for p in m] for m in data["members"]]
        if [len(m) for m in members] != list(sizes) or len(data["tables"]) != len(sizes):
            raise StateError(f"Scum Party state has the wrong tables for sizes {list(sizes)}")
        if sorted(p for m in members for p in m) != list(range(n)):
            raise StateError(f"Scum Party state must seat each of the {n} players once")
        tables = [
            S.from_dict(table_rules(size), d) for size, d in zip(sizes, data["tables"], strict=True)
        ]
        party = Party(
            config=config,
            tables=tables,
            members=[],
            table_of=[0] * n,
            local_of=[0] * n,
            current=int(data["current"]),
            hand=int(data["hand"]),
            scores=np.asarray(data["scores"], dtype=np.int64),
            last_points=np.asarray(data["last_points"], dtype=np.int64),
            last_finish=[[int(p) for p in f] for f in data["last_finish"]],
            over=bool(data["over"]),
        )
    except StateError:
        raise
    except (KeyError, TypeError, ValueError) as err:
        raise StateError(f"corrupt Scum Party state: {type(err).__name__}: {err}") from None
    seat(party, members)
    if party.scores.shape != (n,) or party.last_points.shape != (n,):
        raise StateError(f"corrupt Scum Party state: scores must hold {n} totals")
    if not 0 <= party.current < len(sizes) or not 0 <= party.hand <= config.num_hands:
        raise StateError("corrupt Scum Party state: current table or hand count out of range")
    if not party.over and party.tables[party.current].phase == OVER:
        raise StateError("corrupt Scum Party state: the table to act has finished its hand")
    return party


def to_json(party: Party) -> str:
    """The tournament as a JSON string (exact round trip with :func:`from_json`)."""
    return json.dumps(to_dict(party), separators=(",", ":"))


def from_json(config: PartyConfig, text: str) -> Party:
    """Rebuild a tournament from :func:`to_json`; StateError if corrupt."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError) as err:
        raise StateError(f"Scum Party state is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise StateError("Scum Party state JSON must be an object")
    return from_dict(config, data)
