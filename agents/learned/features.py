"""Card-counting inputs: derived features a Scum or Scum Party network reads beside its observation.

Per rank slot, from the scaled observation (own hand, public ``played`` counts): the cards
still out; the most cards of one higher ordinary rank still out; whether a higher special
(a Joker) is still out; whether its own group can no longer be beaten: ``4 * R`` inputs
after the observation, counts over the largest deck count. They are part of the network
(``network.features`` in ``agent.json``); with several table sizes each row's deck is its
table's (P1), found from its ``seats`` piece. Why: ``docs/archive.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardsuite.errors import CheckpointError

FEATURES = ("counts",)  # what ``cardsuite ppo --features`` accepts

MAX_SLOTS = 64


@dataclass(frozen=True)
class CountInputs:
    """The card-counting inputs of one table's observation (module doc).

    Attributes:
        hand, played: ``(start, stop)`` of the own-hand and played counts per slot;
            ``hand_scale``, ``played_scale``: their entries' factors.
        deck: cards of each slot; special: slots that beat any ordinary rank (Jokers);
            ends: slots whose play ends the round.
        sized: ``(table size, deck)`` pairs, ascending (empty: ``deck`` is every row's);
            seats: ``(start, stop)`` of the ``seats`` piece; seats_scale: its factor.
    """

    hand: tuple[int, int]
    played: tuple[int, int]
    hand_scale: tuple[float, ...]
    played_scale: tuple[float, ...]
    deck: tuple[int, ...]
    special: tuple[bool, ...]
    ends: tuple[bool, ...]
    kind: str = "counts"
    sized: tuple[tuple[int, tuple[int, ...]], ...] = ()
    seats: tuple[int, int] = (0, 0)
    seats_scale: float = 1.0

    @property
    def size(self) -> int:
        """Inputs added after the observation."""
        return 4 * len(self.deck)

    def __call__(self, scaled_obs: np.ndarray) -> np.ndarray:
        """``[..., size]`` float32 features of scaled observations ``[..., D]``."""
        x = np.asarray(scaled_obs, dtype=np.float32)
        flat = x.reshape(-1, x.shape[-1])
        deck = self._decks(flat)
        special = np.asarray(self.special, bool)[None, :]
        ends = np.asarray(self.ends, bool)[None, :]
        h0, h1 = self.hand
        p0, p1 = self.played
        hand = np.rint(flat[:, h0:h1] / np.asarray(self.hand_scale, np.float32)).astype(np.int64)
        played = np.rint(flat[:, p0:p1] / np.asarray(self.played_scale, np.float32))
        out = np.maximum(deck - played.astype(np.int64) - hand, 0)
        # over the slots strictly above each slot: a running max (or any) from the top down
        normal = np.where(special, 0, out)
        sup = np.zeros_like(out)
        sup[:, :-1] = np.maximum.accumulate(normal[:, :0:-1], axis=1)[:, ::-1]
        spec_out = (out > 0) & special
        spec_above = np.zeros_like(spec_out)
        spec_above[:, :-1] = np.logical_or.accumulate(spec_out[:, :0:-1], axis=1)[:, ::-1]
        boss = (hand > 0) & (ends | (~spec_above & (sup < hand)))
        top = float(max(max(self.deck), 1))
        feats = np.concatenate([out / top, sup / top, spec_above, boss], axis=1)
        return feats.astype(np.float32).reshape(*x.shape[:-1], self.size)

    def _decks(self, flat: np.ndarray) -> np.ndarray:
        """Each row's deck, ``[N, R]`` (``[1, R]`` when one deck fits every row)."""
        if not self.sized:
            return np.asarray(self.deck, np.int64)[None, :]
        sizes = np.asarray([n for n, _ in self.sized], np.int64)
        decks = np.asarray([d for _, d in self.sized], np.int64)
        s0, s1 = self.seats
        n = np.rint(flat[:, s0:s1].sum(axis=1) / self.seats_scale).astype(np.int64)
        # a size between two listed ones takes the smaller's deck; below the first, the first's
        idx = np.clip(np.searchsorted(sizes, n, side="right") - 1, 0, len(sizes) - 1)
        return decks[idx]

    def extend(self, scaled_obs: np.ndarray) -> np.ndarray:
        """The network's input: the scaled observation with the features after it."""
        x = np.asarray(scaled_obs, dtype=np.float32)
        return np.concatenate([x, self(x)], axis=-1)

    def extend_torch(self, scaled_obs: Any) -> Any:
        """`extend` of a torch tensor, on its device (the features carry no gradient)."""
        import torch

        extra = self(scaled_obs.detach().cpu().numpy())
        return torch.cat([scaled_obs, torch.from_numpy(extra).to(scaled_obs.device)], dim=-1)

    def to_json(self) -> dict[str, Any]:
        """The ``network.features`` entry of ``agent.json`` (``sized`` only where set)."""
        doc: dict[str, Any] = {"kind": self.kind, "hand": list(self.hand), "played": list(self.played),
               "hand_scale": list(self.hand_scale), "played_scale": list(self.played_scale),
               "deck": list(self.deck), "special": list(self.special),
               "ends": list(self.ends)}  # fmt: skip
        if self.sized:
            doc |= {"sized": [[n, list(d)] for n, d in self.sized], "seats": list(self.seats),
                    "seats_scale": self.seats_scale}  # fmt: skip
        return doc

    @classmethod
    def from_json(cls, doc: Any, obs_size: int, where: str) -> CountInputs:
        """Validate a ``network.features`` entry (CheckpointError naming the field)."""

        def fail(field: str, why: str) -> CheckpointError:
            return CheckpointError(f"{where}: field 'network.features.{field}' {why}")

        if not isinstance(doc, Mapping):
            raise CheckpointError(f"{where}: field 'network.features' must be a JSON object")
        extra = sorted(set(doc) - set(cls.__dataclass_fields__))
        if extra:
            raise fail(extra[0], "is not a known field")
        if doc.get("kind") not in FEATURES:
            raise fail("kind", f"must be one of {FEATURES}, got {doc.get('kind')!r}")
        deck = doc.get("deck")
        if not (isinstance(deck, list) and 1 <= len(deck) <= MAX_SLOTS and all(map(_count, deck))):
            raise fail("deck", f"must list 1 to {MAX_SLOTS} card counts (0 to 1000)")
        slots = len(deck)
        fields: dict[str, Any] = {"deck": tuple(deck)}
        for name in ("hand", "played"):
            span: Any = doc.get(name)
            if (not _listed(span, 2, _int)
                    or not 0 <= span[0] < span[1] <= obs_size or span[1] - span[0] != slots):  # fmt: skip
                raise fail(name, f"must be [start, stop] of {slots} observation entries "
                                 f"within obs_size {obs_size}")  # fmt: skip
            fields[name] = (span[0], span[1])
        checks = {"hand_scale": _factor, "played_scale": _factor, "special": _flag, "ends": _flag}
        for name, ok in checks.items():
            if not _listed(doc.get(name), slots, ok):
                what = "factors in [1e-6, 1]" if ok is _factor else "booleans"
                raise fail(name, f"must list {slots} {what}")
            fields[name] = tuple(float(v) if ok is _factor else v for v in doc[name])
        return cls(**fields, **_sized_from_json(doc, slots, obs_size, fail))


def _count(v: Any) -> bool:  # a number of cards
    return type(v) is int and 0 <= v <= 1000


def _factor(v: Any) -> bool:  # a scale factor
    return type(v) in (int, float) and 1e-6 <= v <= 1


def _int(v: Any) -> bool:
    return type(v) is int


def _flag(v: Any) -> bool:
    return type(v) is bool


def _listed(value: Any, n: int, ok: Any) -> bool:
    """``value`` is a list of ``n`` entries, each ``ok``."""
    return isinstance(value, list) and len(value) == n and all(map(ok, value))


def _sized_from_json(
    doc: Mapping[str, Any], slots: int, obs_size: int, fail: Any
) -> dict[str, Any]:
    """The ``sized`` / ``seats`` / ``seats_scale`` fields of a features entry (all or none)."""
    keys = ("sized", "seats", "seats_scale")
    present = [k for k in keys if k in doc]
    if not present:
        return {}
    if len(present) != len(keys):
        missing = next(k for k in keys if k not in doc)
        raise fail(missing, f"is required with {present[0]!r}")
    sized = doc["sized"]
    if not isinstance(sized, list) or not 1 <= len(sized) <= MAX_SLOTS:
        raise fail("sized", f"must list 1 to {MAX_SLOTS} [table size, deck] pairs")
    pairs: list[tuple[int, tuple[int, ...]]] = []
    for pair in sized:
        if (not isinstance(pair, list) or len(pair) != 2 or type(pair[0]) is not int
                or not 1 <= pair[0] <= 1000 or not _listed(pair[1], slots, _count)):  # fmt: skip
            raise fail("sized", f"must list [table size 1-1000, {slots} card counts] pairs")
        pairs.append((pair[0], tuple(pair[1])))
    if [n for n, _ in pairs] != sorted({n for n, _ in pairs}):
        raise fail("sized", "must list each table size once, ascending")
    span = doc["seats"]
    if not _listed(span, 2, _int) or not 0 <= span[0] < span[1] <= obs_size:
        raise fail(
            "seats", f"must be [start, stop] of observation entries within obs_size {obs_size}"
        )
    scale = doc["seats_scale"]
    if not _factor(scale):
        raise fail("seats_scale", "must be a factor in [1e-6, 1]")
    return {"sized": tuple(pairs), "seats": (span[0], span[1]), "seats_scale": float(scale)}
