"""Model cards: the ``README.md`` beside each shipped agent's weights, read as data.

A card is Markdown for a reader, opened by a YAML front matter block that
code reads (every field below is checked; a `CheckpointError` names a bad one)::

    ---
    name: scum4                       # the folder's name, pretrained:NAME
    game: scum
    summary: Scum, 4 players, ...     # one line
    layout: table                     # table | generic | projected (agent.json's)
    trained_at: [4]                   # the table sizes it trained at
    sizes: [4, 4]                     # the smallest and largest table it sits at
    command: cardsuite dmc ...        # the one command line that trains it
    ship: [python -m ...]             # then, the commands that shipped it
    weights_sha256: eb53...           # of weights.safetensors
    since: 2026-12-01                 # the day the name began to play these weights
    evaluation:                       # the headline first; one row per size and opponent
      - {against: heuristic, players: 4, won: 71.0, ci: 4.4, deals: 400, seed: 1000003}
    exploit: {players: 4, minutes: 3, decisions: 399000, won: 43.5, ci: 4.9,
              deals: 400, margin: -0.083, margin_ci: 0.043}
    retired: seat pretrained:NEW instead   # optional: a retired name (it stays loadable)
    ---

``won``: the share of duplicate deals won (ties half), in percent; ``ci``: its 95% half-width.
A shipped name plays the weights of its ``weights_sha256`` for good (``since`` that day): a
new network ships under a new name, and a retired name keeps its folder and card with a
``retired`` note.
The card's facts, ``docs/agents.md``'s list, ``docs/results.md``'s headlines and tables by
size (`cardsuite.agents.learned.strength`) and the README's list of names are generated
from the cards (`tables`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from cardsuite.agents.learned.files import check_file_size
from cardsuite.agents.learned.meta import LAYOUTS
from cardsuite.agents.learned.safe_io import CARD_FILE
from cardsuite.agents.learned.strength import headline_table, size_tables
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.safe_yaml import brief, load_yaml_text

MAX_CARD_BYTES = 64 << 10
_NUMBER = (int, float)

ROOT = Path(__file__).resolve().parent / "models"  # the shipped agents (`pretrained:NAME`)

#: name -> (the game it plays, one line; its model card says the rest)
CATALOGUE: dict[str, tuple[str, str]] = {
    "scum4": ("scum", "Scum, 4 players; Deep Monte-Carlo, 12.76M decisions"),
    "scum6": ("scum", "Scum, 6 players; Deep Monte-Carlo, 3.15M decisions"),
    "party8": ("scum_party", "Scum Party at 8 players, any-table; PPO, card counting"),
    "scandal2": ("scandal", "Scandal at 2 players, size-generic; PPO, with a critic"),
    "scandal2_table": ("scandal", "Scandal at 2 players, any-table; PPO, 8M decisions, with a critic"),
    "party20": ("scum_party", "Scum Party at 20 players, size-generic; PPO, card counting"),
    "party50": ("scum_party", "Scum Party at 50 players, size-generic; PPO, card counting"),
    "party_generic": ("scum_party", "Scum Party, one size-generic network for 5-50 players; PPO"),
    "scandal4": ("scandal", "Scandal, size-generic PPO for 2-6 players; scandal2 wins more at 4"),
}  # fmt: skip

#: names that play another name's shipped folder (the same weights under a second name)
SHARED: dict[str, str] = {}


@dataclass(frozen=True)
class Result:
    """One row of a card's evaluation: the agent against one opponent at one table size."""

    against: str
    players: int
    won: float
    ci: float
    deals: int
    seed: int
    note: str = ""

    def text(self) -> str:
        """``71.0% ± 4.4 of 400 deals against heuristic at 4 players``."""
        return (f"{self.won}% ± {self.ci} of {self.deals} deals against {self.against} "
                f"at {self.players} players")  # fmt: skip


@dataclass(frozen=True)
class Exploit:
    """``cardsuite exploit``: a best response trained against the agent, and what it won."""

    players: int
    minutes: float
    decisions: int
    won: float
    ci: float
    deals: int
    margin: float
    margin_ci: float


@dataclass(frozen=True)
class ModelCard:
    """A shipped agent's card (module doc); ``body`` is the Markdown after the front matter."""

    name: str
    game: str
    summary: str
    layout: str
    trained_at: tuple[int, ...]
    sizes: tuple[int, int]
    command: str
    weights_sha256: str
    since: date
    evaluation: tuple[Result, ...]
    ship: tuple[str, ...] = ()
    exploit: Exploit | None = None
    retired: str = ""
    body: str = ""

    @property
    def headline(self) -> Result:
        """The card's first evaluation row (the one a listing shows)."""
        return self.evaluation[0]

    @property
    def seats(self) -> str:
        """The table sizes it sits at: ``4`` or ``5–50``."""
        low, high = self.sizes
        return str(low) if low == high else f"{low}–{high}"


#: Each class's fields: name -> accepted types (floats take ints too).
_SCHEMA: dict[type, dict[str, Any]] = {
    Result: {"against": str, "players": int, "won": _NUMBER, "ci": _NUMBER, "deals": int,
             "seed": int, "note": str},
    Exploit: {"players": int, "minutes": _NUMBER, "decisions": int, "won": _NUMBER,
              "ci": _NUMBER, "deals": int, "margin": _NUMBER, "margin_ci": _NUMBER},
    ModelCard: {"name": str, "game": str, "summary": str, "layout": str, "trained_at": list,
                "sizes": list, "command": str, "weights_sha256": str, "since": date, "evaluation": list,
                "ship": list, "exploit": dict, "retired": str},
}  # fmt: skip
_OPTIONAL = frozenset({"note", "ship", "exploit", "retired"})


def _fields(cls: type, doc: Any, where: str) -> dict[str, Any]:
    """``doc``'s fields for ``cls``, each present (unless optional) and of its type."""
    schema = _SCHEMA[cls]
    if not isinstance(doc, dict):
        raise CheckpointError(f"{where}: expected a mapping, got {brief(doc)}")
    for key in doc:
        if key not in schema:
            raise CheckpointError(f"{where}: field {brief(key)} is not a known field; "
                                  f"fields: {', '.join(schema)}")  # fmt: skip
    for key, kind in schema.items():
        if key not in doc and key not in _OPTIONAL:
            raise CheckpointError(f"{where}: field {key!r} is missing")
        value = doc.get(key)
        if key in doc and (isinstance(value, bool) or not isinstance(value, kind)):
            raise CheckpointError(f"{where}: field {key!r} has the wrong type: {brief(value)}")
    return doc


def _ints(value: list[Any], where: str, count: int | None = None) -> tuple[int, ...]:
    ok = all(type(v) is int and 1 < v < 100 for v in value) and value
    if not ok or (count is not None and len(value) != count):
        raise CheckpointError(
            f"{where} must list {count or 'some'} table sizes, got {brief(value)}"
        )
    return tuple(value)


def parse_card(text: str, where: str) -> ModelCard:
    """The card in ``text`` (a ``README.md``); CheckpointError naming what is wrong.

    Raises:
        CheckpointError: no front matter, YAML that does not parse, or a field
            missing, unknown or of the wrong type (named with ``where``).
    """
    head, sep, body = text.removeprefix("---\n").partition("\n---\n")
    if not text.startswith("---\n") or not sep:
        raise CheckpointError(f"{where}: a model card starts with a '---' front matter block")
    try:
        doc = _fields(ModelCard, load_yaml_text(head, where), where)
    except ConfigError as err:  # the YAML reader's
        raise CheckpointError(str(err)) from None
    rows = [Result(**_fields(Result, row, f"{where}: evaluation[{i}]"))
            for i, row in enumerate(doc["evaluation"])]  # fmt: skip
    if not rows:
        raise CheckpointError(f"{where}: field 'evaluation' needs at least one row")
    exploit = doc.get("exploit")
    if exploit is not None:
        exploit = Exploit(**_fields(Exploit, exploit, f"{where}: exploit"))
    low, high = _ints(doc["sizes"], f"{where}: field 'sizes'", 2)
    if doc["layout"] not in LAYOUTS or low > high:
        raise CheckpointError(f"{where}: field 'layout' must be one of {LAYOUTS} and 'sizes' "
                              "[smallest, largest]")  # fmt: skip
    ship = doc.get("ship", [])
    if not all(isinstance(s, str) for s in ship):
        raise CheckpointError(f"{where}: field 'ship' must list command lines")
    return ModelCard(
        name=doc["name"], game=doc["game"], summary=doc["summary"], layout=doc["layout"],
        trained_at=_ints(doc["trained_at"], f"{where}: field 'trained_at'"), sizes=(low, high),
        command=doc["command"], weights_sha256=doc["weights_sha256"], since=doc["since"],
        evaluation=tuple(rows), ship=tuple(ship), exploit=exploit,
        retired=doc.get("retired", ""), body=body,
    )  # fmt: skip


def read_card(folder: str | Path) -> ModelCard:
    """The model card of the shipped agent folder ``folder`` (its ``README.md``).

    Raises:
        CheckpointError: the card is missing, too large, malformed (named), or
            names another folder than its own.
    """
    path = Path(folder) / CARD_FILE
    where = f"model card {str(path)!r}"
    check_file_size(path, MAX_CARD_BYTES, where)
    card = parse_card(path.read_text(encoding="utf-8"), where)
    if card.name != Path(folder).name:
        raise CheckpointError(f"{where}: field 'name' is {card.name!r}, not its folder's name")
    return card


def facts(card: ModelCard) -> str:
    """The generated part of a card: the command, the evaluation table and the digest."""
    lines = ["Reproduce it:", "",
             "```bash", card.command, *card.ship, "```", "",
             "| against | players | won (± 95%) | deals | deal seed | note |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for row in card.evaluation:
        lines.append(f"| {row.against} | {row.players} | {row.won}% ± {row.ci} | "
                     f"{row.deals} | {row.seed:,} | {row.note} |")  # fmt: skip
    x = card.exploit
    if x is not None:
        lines.append(
            f"| best response (`cardsuite exploit`, {x.minutes:g} min, {x.decisions:,} "
            f"decisions) | {x.players} | its share: {x.won}% ± {x.ci} | {x.deals} | | "
            f"margin {x.margin} ± {x.margin_ci} |"
        )
    lines += [
        "",
        f"Weights: `weights.safetensors`, SHA-256 `{card.weights_sha256}`, played by "
        f"`pretrained:{card.name}` since {card.since} (a new network ships under a new name).",
    ]
    if card.retired:
        lines += ["", f"**Retired**: {card.retired}"]
    return "\n".join(lines)


def catalogue_table(cards: list[ModelCard]) -> str:
    """The shipped agents as one Markdown table (``docs/agents.md``)."""
    lines = ["| spec | game | sits at | trained at | what it is | headline |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for c in cards:
        trained = ", ".join(map(str, c.trained_at))
        lines.append(f"| `pretrained:{c.name}` | {c.game} | {c.seats} players | {trained} | "
                     f"{c.summary} | {c.headline.text()} |")  # fmt: skip
    return "\n".join(lines)


def shipped_cards() -> list[ModelCard]:
    """The card of every shipped folder, in the catalogue's order (a `SHARED` name has none)."""
    return [read_card(ROOT / name) for name in CATALOGUE if name not in SHARED]


def numpy_agents() -> str:
    """The README's sentence naming every shipped agent (all play with numpy alone)."""
    names = [f"`{'pretrained:' if i == 0 else ''}{name}`" for i, name in enumerate(CATALOGUE)]
    return (f"Every shipped agent plays with numpy alone: {', '.join(names[:-1])} and "
            f"{names[-1]} (`cardsuite agents --game GAME --players N` recommends one for "
            "a table).")  # fmt: skip


def tables() -> list[tuple[str, str, Callable[[], str]]]:
    """``(page, marker, generate)`` of the agents' generated tables (``cardsuite.docs``)."""
    out: list[tuple[str, str, Callable[[], str]]] = [
        ("docs/agents.md", "shipped-agents", lambda: catalogue_table(shipped_cards())),
        ("docs/results.md", "shipped-headlines", lambda: headline_table(shipped_cards())),
        ("docs/results.md", "agents-by-size", lambda: size_tables(shipped_cards())),
        ("README.md", "numpy-agents", numpy_agents),
    ]
    for name in (n for n in CATALOGUE if n not in SHARED):
        page = f"agents/learned/models/{name}/{CARD_FILE}"
        out.append((page, "model-card", lambda n=name: facts(read_card(ROOT / n))))  # type: ignore[misc]
    return out
