"""``cardsuite agents``: the agent kinds a spec may name, then each game's shipped agents with
their share of unseen deals won at each table size and the one to seat (`strength`)."""

from __future__ import annotations

from typing import Any

from cardsuite.agents.learned.cards import ModelCard, shipped_cards
from cardsuite.agents.learned.strength import by_game, size_table
from cardsuite.agents.registry import available_agents
from cardsuite.errors import ConfigError
from cardsuite.games import get_game


def add_command(sub: Any) -> tuple[str, Any]:
    """Register ``cardsuite agents``; returns its name and runner."""
    what = "the agent kinds and the shipped agents (from their model cards)"
    p = sub.add_parser("agents", help=f"list {what}", description=f"List {what}: the kinds a "
                       "spec may name, then each game's pretrained:NAME agents, their share of "
                       "unseen deals won against the heuristic at each table size (95% "
                       "interval) and the one to seat at each size.")  # fmt: skip
    p.add_argument("--game", metavar="GAME", help="only the shipped agents of this game")
    p.add_argument("--players", type=int, metavar="N",
                   help="only this table size (with --game)")  # fmt: skip
    return "agents", run


def _listing(title: str, cards: list[ModelCard], players: int | None) -> str:
    if not cards:
        return f"No shipped agents of {title}."
    width = max(len(c.name) for c in cards) + len("pretrained:")
    lines = [f"Shipped agents of {title} (model cards: agents/learned/models/NAME/README.md):"]
    for c in cards:
        lines.append(f"  {'pretrained:' + c.name:<{width}}  {c.seats} players: {c.summary}")
    table = size_table(cards, None if players is None else [players])
    return "\n".join([*lines, "", table])


def run(args: Any, extra: list[str]) -> int:
    """Print the agent kinds, then each game's shipped agents and their `size_table`
    (``--game``: that game's only; ``--players N``: that size only)."""
    if extra:
        raise ConfigError(f"agents takes no game options, got {' '.join(extra)[:200]}")
    game = None if args.game is None else get_game(args.game)
    players = getattr(args, "players", None)
    if players is not None:
        if game is None:
            raise ConfigError("--players needs --game: cardsuite agents --game GAME --players N")
        game.config_class().from_dict({game.players_key: players}, source="--players")
    print("Agent kinds (cardsuite tournament --agents SPEC):")
    for line in available_agents():
        print(f"  {line}")
    groups = by_game(shipped_cards())
    for name in [game.name] if game else list(groups):
        print(f"\n{_listing(get_game(name).title, groups.get(name, []), players)}")
    return 0
