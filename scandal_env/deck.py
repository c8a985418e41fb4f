"""The Scandal deck: loading and validating deck files (RULINGS S1).

A deck file (JSON or YAML) lists the 16 scandals and the 80 cards; the
canonical one is ``scandal_env/data/deck.json`` (read when `load_deck` is
called). Card ids are the cards' positions, equal to their ``id`` fields; the
canonical file puts the brown titles first, by scandal id (the title of
scandal ``s`` is card ``s``), then blue, green, red, black and gold cards.
Every S1 invariant is checked; a broken file raises
[`DeckError`][cardsuite.errors.DeckError] naming the card or scandal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from cardsuite import safe_json
from cardsuite.errors import ConfigError, DeckError
from cardsuite.safe_yaml import load_yaml_text

#: Colours in the order used for their integer codes.
COLOURS: tuple[str, ...] = ("brown", "blue", "green", "red", "black", "gold")
BROWN, BLUE, GREEN, RED, BLACK, GOLD = range(6)

#: S1: number of cards of each colour.
COLOUR_COUNTS: dict[str, int] = {
    "brown": 16,
    "blue": 7,
    "green": 13,
    "red": 12,
    "black": 25,
    "gold": 7,
}
#: S1: value of a card of each colour (gold: per scandal it belongs to).
COLOUR_VALUES: dict[str, int] = {
    "brown": 5,
    "blue": 15,
    "green": 10,
    "red": 5,
    "black": 5,
    "gold": 5,
}
#: S1: the scandals of the rule book's table: (year, name, set size incl. title).
RULEBOOK_SCANDALS: tuple[tuple[int, str, int], ...] = (
    (1969, "The Chappiquiddick Incident", 4),
    (1973, "The Agnew Capers", 6),
    (1973, "Watergate", 10),
    (1974, "The Fanne Foxe Affair", 5),
    (1976, "D.C. Fringe Benefits", 4),
    (1980, "The Abscam Sting", 7),
    (1986, "The Iran-Contra Operations", 9),
    (1987, "The Monkey Business Affair", 4),
    (1989, "The Keating Five", 7),
    (1990, "The Barry Bust", 5),
    (1991, "Here Come Da Judge", 6),
    (1992, "The Packwood 29", 5),
    (1994, "Jones v. Clinton", 8),
    (1998, "Monica Madness", 6),
    (2002, "Beam Me Up", 6),
    (2003, "The Immaculate Insertion", 4),
)
#: Other accepted spellings of a rule-book scandal name, by scandal id: the
#: book spells "Chappiquiddick"; the canonical deck uses the place's real name.
SCANDAL_SPELLINGS: dict[int, tuple[str, ...]] = {0: ("The Chappaquiddick Incident",)}
GOLD_MEMBERSHIPS = 23
#: A deck file is a few kB; anything larger than this is refused unread.
MAX_DECK_BYTES = 1 << 20
#: Longest card or scandal name.
MAX_NAME_CHARS = 100
NUM_SCANDALS = len(RULEBOOK_SCANDALS)
NUM_CARDS = sum(COLOUR_COUNTS.values())

_CARD_FIELDS = {"id": int, "name": str, "colour": str, "scandals": list, "value": int}
_SCANDAL_FIELDS = {"id": int, "year": int, "name": str, "size": int}
_TOP_FIELDS = {"format", "version", "ordering", "scandals", "cards"}


@dataclass(frozen=True, eq=False)
class Deck:
    """An immutable, validated Scandal deck with numpy lookup tables.

    Attributes:
        source: where the deck was loaded from.
        names: card names by card id.
        colours: card colour names by card id.
        scandal_names: scandal names by scandal id.
        scandal_years: scandal years by scandal id.
        colour: int8[n_cards] colour codes (index into `COLOURS`).
        value: int16[n_cards] point values.
        member: bool[n_cards, 16] membership matrix (title cards included).
        title_of: int16[16] the title card of each scandal.
        set_size: int16[16] set size of each scandal, title included.
        is_title, is_bg, is_gold: bool[n_cards] card kinds (bg = blue or green).
        single_scandal: int16[n_cards] the scandal of a one-scandal card, -1 for gold.
        pair_card, pair_scandal: int16[n_pairs] every (card, scandal) membership
            of a non-title card, ordered by card id then scandal id (the lay-off
            action layout).
    """

    source: str
    names: tuple[str, ...]
    colours: tuple[str, ...]
    scandal_names: tuple[str, ...]
    scandal_years: tuple[int, ...]
    colour: np.ndarray
    value: np.ndarray
    member: np.ndarray
    title_of: np.ndarray
    set_size: np.ndarray
    is_title: np.ndarray
    is_bg: np.ndarray
    is_gold: np.ndarray
    single_scandal: np.ndarray
    pair_card: np.ndarray
    pair_scandal: np.ndarray
    scandals_of: tuple[tuple[int, ...], ...]
    is_bg_list: tuple[bool, ...]
    is_title_list: tuple[bool, ...]
    cards_of: tuple[tuple[int, ...], ...]
    name_to_id: Mapping[str, int]

    @property
    def n_cards(self) -> int:
        """Number of cards (80)."""
        return len(self.names)

    @property
    def n_scandals(self) -> int:
        """Number of scandals (16)."""
        return len(self.scandal_names)

    @property
    def n_pairs(self) -> int:
        """Number of (non-title card, scandal) memberships (80)."""
        return int(self.pair_card.shape[0])

    def card_id(self, ref: int | str) -> int:
        """The id of a card given by id or by name; KeyError if unknown."""
        if isinstance(ref, str):
            return self.name_to_id[ref]
        if (
            isinstance(ref, int | np.integer)
            and not isinstance(ref, bool)
            and 0 <= int(ref) < self.n_cards
        ):
            return int(ref)
        raise KeyError(ref)

    def describe(self, card: int) -> str:
        """A card's name with its colour, e.g. ``'Richard Nixon (blue)'``."""
        return f"{self.names[card]} ({self.colours[card]})"


def load_deck(path: str | Path | None = None) -> Deck:
    """Load and validate a deck file (RULINGS S1).

    Args:
        path: a ``.json``, ``.yaml`` or ``.yml`` file; ``None`` loads the
            canonical deck shipped with the package.

    Raises:
        DeckError: the file is missing or malformed, or breaks an S1 invariant.
    """
    if path is None:
        source = "scandal_env/data/deck.json"
        raw = resources.files("scandal_env").joinpath("data/deck.json").read_bytes()
        suffix = ".json"
    else:
        p = Path(path)
        source = str(p)
        raw = safe_json.read_bounded(p, "deck file", MAX_DECK_BYTES, DeckError)
        suffix = p.suffix.lower()
    where = f"deck file {source}"
    if suffix in (".yaml", ".yml"):
        try:
            data = load_yaml_text(raw, where)
        except ConfigError as err:
            raise DeckError(str(err)) from None
    else:
        data = safe_json.loads(raw, where, error=DeckError, max_chars=MAX_DECK_BYTES)
    return deck_from_data(data, source=source)


def deck_from_data(data: Any, *, source: str = "<data>") -> Deck:
    """Validate parsed deck data and build a `Deck`; DeckError if broken."""

    def fail(msg: str) -> DeckError:
        return DeckError(f"deck {source}: {msg}")

    if not isinstance(data, Mapping):
        raise fail("the top level must be a mapping with 'scandals' and 'cards'")
    for key in data:
        if key not in _TOP_FIELDS:
            raise fail(f"unknown top-level field {key!r}")
    for key in ("scandals", "cards"):
        if not isinstance(data.get(key), list):
            raise fail(f"missing or non-list top-level field {key!r}")
    scandals = _check_scandals(data["scandals"], fail)
    cards = _check_cards(data["cards"], len(scandals), fail)
    return _build(source, scandals, cards, fail)


def _check_record(rec: Any, fields: Mapping[str, type], what: str, fail: Any) -> dict[str, Any]:
    if not isinstance(rec, Mapping):
        raise fail(f"{what} must be a mapping, got {type(rec).__name__}")
    for key in rec:
        if key not in fields:
            raise fail(f"{what} has unknown field {key!r} (schema)")
    for key, tp in fields.items():
        if key not in rec:
            raise fail(f"{what} is missing field {key!r} (schema)")
        val = rec[key]
        if not isinstance(val, tp) or (tp is int and isinstance(val, bool)):
            raise fail(
                f"{what} field {key!r} must be {tp.__name__}, got {type(val).__name__} {val!r}"
            )
    name = rec["name"]
    if not name.strip() or len(name) > MAX_NAME_CHARS or not name.isprintable():
        raise fail(
            f"{what}: the name must be printable text of 1 to {MAX_NAME_CHARS} characters "
            "(no control characters or terminal escapes)"
        )
    return dict(rec)


def _check_scandals(raw: Sequence[Any], fail: Any) -> list[dict[str, Any]]:
    if len(raw) != NUM_SCANDALS:
        raise fail(f"S1: expected {NUM_SCANDALS} scandals, got {len(raw)}")
    out = []
    for i, rec in enumerate(raw):
        s = _check_record(rec, _SCANDAL_FIELDS, f"scandal #{i}", fail)
        year, name, size = RULEBOOK_SCANDALS[i]
        spellings = (name, *SCANDAL_SPELLINGS.get(i, ()))
        if s["id"] != i:
            raise fail(f"scandal {s['name']!r}: id {s['id']} must equal its position {i}")
        if (s["year"], s["size"]) != (year, size) or s["name"] not in spellings:
            also = "".join(f" (or {other!r})" for other in spellings[1:])
            raise fail(
                f"scandal {i} {s['name']!r}: S1 requires the rule book's entry "
                f"{year} {name!r}{also} with set size {size}, got {s['year']} {s['name']!r} "
                f"size {s['size']}"
            )
        out.append(s)
    return out


def _check_cards(raw: Sequence[Any], n_scandals: int, fail: Any) -> list[dict[str, Any]]:
    out = []
    names: dict[str, int] = {}
    for i, rec in enumerate(raw):
        label = f"card #{i} {rec.get('name')!r}" if isinstance(rec, Mapping) else f"card #{i}"
        c = _check_record(rec, _CARD_FIELDS, label, fail)
        label = f"card {c['id']} {c['name']!r}"
        if c["id"] != i:
            raise fail(f"{label}: id must equal its position {i} (ids are unique and in order)")
        if c["name"] in names:
            raise fail(
                f"{label}: duplicate name (card {names[c['name']]} has it); S1 names are unique"
            )
        names[c["name"]] = i
        if c["colour"] not in COLOUR_COUNTS:
            raise fail(
                f"{label}: unknown colour {c['colour']!r}; S1 colours are {', '.join(COLOURS)}"
            )
        ss = c["scandals"]
        if not ss:
            raise fail(f"{label}: belongs to no scandal (S1)")
        for s in ss:
            if not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < n_scandals:
                raise fail(f"{label}: scandal {s!r} does not exist (S1)")
        if len(set(ss)) != len(ss) or list(ss) != sorted(ss):
            raise fail(f"{label}: scandal list {ss} must be strictly increasing (no duplicates)")
        if c["colour"] == "gold":
            if len(ss) < 2:
                raise fail(f"{label}: a gold card must belong to 2 or more scandals (S1)")
        elif len(ss) != 1:
            raise fail(f"{label}: a {c['colour']} card must belong to exactly one scandal (S1)")
        want = COLOUR_VALUES[c["colour"]] * len(ss)
        if c["value"] != want:
            raise fail(f"{label}: value {c['value']} breaks S1 ({c['colour']} is worth {want})")
        out.append(c)
    return out


def _build(
    source: str, scandals: list[dict[str, Any]], cards: list[dict[str, Any]], fail: Any
) -> Deck:
    n, ns = len(cards), len(scandals)
    counts = Counter(c["colour"] for c in cards)
    for col in COLOURS:
        if counts[col] != COLOUR_COUNTS[col]:
            raise fail(f"S1: expected {COLOUR_COUNTS[col]} {col} cards, got {counts[col]}")
    gold_members = sum(len(c["scandals"]) for c in cards if c["colour"] == "gold")
    if gold_members != GOLD_MEMBERSHIPS:
        raise fail(f"S1: gold cards must carry {GOLD_MEMBERSHIPS} memberships, got {gold_members}")
    member = np.zeros((n, ns), dtype=bool)
    for c in cards:
        member[c["id"], c["scandals"]] = True
    colour = np.array([COLOURS.index(c["colour"]) for c in cards], dtype=np.int8)
    is_title = colour == BROWN
    is_bg = (colour == BLUE) | (colour == GREEN)
    title_of = np.full(ns, -1, dtype=np.int16)
    for s, sc in enumerate(scandals):
        label = f"scandal {s} {sc['name']!r}"
        titles = np.flatnonzero(member[:, s] & is_title)
        if len(titles) != 1:
            raise fail(f"{label}: must have exactly one brown title card, has {len(titles)} (S1)")
        title_of[s] = titles[0]
        size = int(member[:, s].sum())
        if size != sc["size"]:
            raise fail(f"{label}: set size {size} cards, S1 table says {sc['size']}")
        if not (member[:, s] & is_bg).any():
            raise fail(f"{label}: has no blue or green card (S1)")
    pairs = [(c, s) for c in range(n) if not is_title[c] for s in np.flatnonzero(member[c])]
    single = np.where(member.sum(axis=1) == 1, member.argmax(axis=1), -1).astype(np.int16)
    arrays = dict(
        colour=colour,
        value=np.array([c["value"] for c in cards], dtype=np.int16),
        member=member,
        title_of=title_of,
        set_size=np.array([s["size"] for s in scandals], dtype=np.int16),
        is_title=is_title,
        is_bg=is_bg,
        is_gold=colour == GOLD,
        single_scandal=single,
        pair_card=np.array([p[0] for p in pairs], dtype=np.int16),
        pair_scandal=np.array([p[1] for p in pairs], dtype=np.int16),
    )
    for arr in arrays.values():
        arr.setflags(write=False)
    return Deck(
        source=source,
        names=tuple(c["name"] for c in cards),
        colours=tuple(c["colour"] for c in cards),
        scandal_names=tuple(s["name"] for s in scandals),
        scandal_years=tuple(s["year"] for s in scandals),
        scandals_of=tuple(tuple(c["scandals"]) for c in cards),
        is_bg_list=tuple(bool(x) for x in is_bg),
        is_title_list=tuple(bool(x) for x in is_title),
        cards_of=tuple(tuple(int(x) for x in np.flatnonzero(member[:, s])) for s in range(ns)),
        name_to_id=MappingProxyType({c["name"]: c["id"] for c in cards}),
        **arrays,
    )
