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
    evaluation:                       # the headline first; one row per size and opponent
      - {against: heuristic, players: 4, won: 71.0, ci: 4.4, deals: 400, seed: 1000003}
    exploit: {players: 4, minutes: 3, decisions: 399000, won: 43.5, ci: 4.9,
              deals: 400, margin: -0.083, margin_ci: 0.043}
    ---

``won``: the share of duplicate deals won (ties half), in percent; ``ci``: its 95% half-width.
The card's facts and ``docs/agents.md``'s list are generated from it (`tables`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardsuite.agents.learned.files import check_file_size
from cardsuite.agents.learned.meta import LAYOUTS
from cardsuite.agents.learned.pretrained import CATALOGUE, ROOT, SHARED
from cardsuite.agents.learned.safe_io import CARD_FILE
from cardsuite.agents.registry import available_agents
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.games import get_game
from cardsuite.safe_yaml import brief, load_yaml_text

MAX_CARD_BYTES = 64 << 10
_NUMBER = (int, float)


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
    evaluation: tuple[Result, ...]
    ship: tuple[str, ...] = ()
    exploit: Exploit | None = None
    body: str = ""

    @property
    def headline(self) -> Result:
        """The card's first evaluation row (the one a listing shows)."""
        return self.evaluation[0]


#: Each class's fields: name -> accepted types (floats take ints too).
_SCHEMA: dict[type, dict[str, Any]] = {
    Result: {"against": str, "players": int, "won": _NUMBER, "ci": _NUMBER, "deals": int,
             "seed": int, "note": str},
    Exploit: {"players": int, "minutes": _NUMBER, "decisions": int, "won": _NUMBER,
              "ci": _NUMBER, "deals": int, "margin": _NUMBER, "margin_ci": _NUMBER},
    ModelCard: {"name": str, "game": str, "summary": str, "layout": str, "trained_at": list,
                "sizes": list, "command": str, "weights_sha256": str, "evaluation": list,
                "ship": list, "exploit": dict},
}  # fmt: skip
_OPTIONAL = frozenset({"note", "ship", "exploit"})


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
        command=doc["command"], weights_sha256=doc["weights_sha256"], evaluation=tuple(rows),
        ship=tuple(ship), exploit=exploit, body=body,
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


def _seats(card: ModelCard) -> str:
    low, high = card.sizes
    return str(low) if low == high else f"{low}–{high}"


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
    lines += ["", f"Weights: `weights.safetensors`, SHA-256 `{card.weights_sha256}`."]
    return "\n".join(lines)


def catalogue_table(cards: list[ModelCard]) -> str:
    """The shipped agents as one Markdown table (``docs/agents.md``)."""
    lines = ["| spec | game | sits at | trained at | what it is | headline |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for c in cards:
        trained = ", ".join(map(str, c.trained_at))
        lines.append(f"| `pretrained:{c.name}` | {c.game} | {_seats(c)} players | {trained} | "
                     f"{c.summary} | {c.headline.text()} |")  # fmt: skip
    return "\n".join(lines)


def shipped_cards() -> list[ModelCard]:
    """The card of every shipped folder, in the catalogue's order (a `SHARED` name has none)."""
    return [read_card(ROOT / name) for name in CATALOGUE if name not in SHARED]


def tables() -> list[tuple[str, str, Callable[[], str]]]:
    """``(page, marker, generate)`` of the agents' generated tables (``cardsuite.docs``)."""
    out: list[tuple[str, str, Callable[[], str]]] = [
        ("docs/agents.md", "shipped-agents", lambda: catalogue_table(shipped_cards()))
    ]
    for name in (n for n in CATALOGUE if n not in SHARED):
        page = f"agents/learned/models/{name}/{CARD_FILE}"
        out.append((page, "model-card", lambda n=name: facts(read_card(ROOT / n))))  # type: ignore[misc]
    return out


def add_command(sub: Any) -> tuple[str, Any]:
    """Register ``cardsuite agents``; returns its name and runner."""
    what = "the agent kinds and the shipped agents (from their model cards)"
    p = sub.add_parser("agents", help=f"list {what}", description=f"List {what}: the kinds a "
                       "spec may name, then each pretrained:NAME with its game, table sizes, "
                       "what it is and its headline result (95% interval).")  # fmt: skip
    p.add_argument("--game", default=None, help="list only the shipped agents of this game")
    return "agents", run


def run(args: Any, extra: list[str]) -> int:
    """Print the kinds and the shipped agents (``--game`` filters the shipped agents)."""
    if extra:
        raise ConfigError(f"agents takes no game options, got {' '.join(extra)[:200]}")
    game = None if args.game is None else get_game(args.game).name
    print("Agent kinds (cardsuite tournament --agents SPEC):")
    for line in available_agents():
        print(f"  {line}")
    cards = [c for c in shipped_cards() if game in (None, c.game)]
    print(f"\nShipped agents{f' of {game}' if game else ''} (model cards: "
          "agents/learned/models/NAME/README.md):")  # fmt: skip
    width = max([len(c.name) for c in cards] + [4]) + len("pretrained:")
    for c in cards:
        print(f"  {'pretrained:' + c.name:<{width}}  {c.game}, {_seats(c)} players: {c.summary}")
        print(f"  {'':<{width}}  {c.headline.text()}")
    return 0
