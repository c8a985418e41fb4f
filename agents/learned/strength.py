"""Which shipped agent to seat at a table: the model cards' shares by table size.

One number per agent and table size, `share`: the card's first evaluation row
against the heuristic at that size on unseen deals (seed `UNSEEN_SEED`); a size
without one is not measured ("-"), never filled in. `recommend` names the agent
with the largest share above half (the first listed on a tie; never a retired
one). `cardsuite agents` prints these tables, and ``docs/results.md`` holds
them and `headline_table` (generated: `cardsuite.agents.learned.cards.tables`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cardsuite.games import get_game

if TYPE_CHECKING:
    from cardsuite.agents.learned.cards import ModelCard, Result

#: The seed of the unseen deals: no training run trains or evaluates on them.
UNSEEN_SEED = 2_000_003

LEGEND = (
    "The share of unseen duplicate deals (seed 2,000,003) each agent won against the "
    "heuristic, ± its 95% interval, from its model card; -: not measured. Recommended: "
    "the largest share above 50% (the first listed on a tie)."
)


def share(card: ModelCard, players: int) -> Result | None:
    """``card``'s share of unseen deals won against the heuristic at ``players``, or None."""
    return next((r for r in card.evaluation if r.against == "heuristic"
                 and r.players == players and r.seed == UNSEEN_SEED), None)  # fmt: skip


def measured_sizes(cards: Sequence[ModelCard]) -> list[int]:
    """Every table size at which one of ``cards`` has a `share`, smallest first."""
    return sorted({r.players for c in cards for r in c.evaluation
                   if r.against == "heuristic" and r.seed == UNSEEN_SEED})  # fmt: skip


def recommend(cards: Sequence[ModelCard], players: int) -> ModelCard | None:
    """The card of the largest `share` above 50% at ``players`` (the first on a tie), or None."""
    found = [(row.won, card) for card in cards if not card.retired
             and (row := share(card, players)) is not None and row.won > 50]  # fmt: skip
    return max(found, key=lambda pair: pair[0], default=(0.0, None))[1]


def _cell(row: Result | None) -> str:
    return "-" if row is None else f"{row.won}% ± {row.ci}"


def _grid(rows: list[list[str]]) -> str:
    """``rows`` (the first the header) as a Markdown table padded to line up in a terminal."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def _notes(cards: Sequence[ModelCard], sizes: Sequence[int]) -> list[str]:
    """A line for each agent another one beats where its headline was measured (a name
    such as ``scandal4`` promises that table), and for each retired agent."""
    notes = []
    for card in cards:
        size = card.headline.players
        best = recommend(cards, size)
        if size in sizes and best is not None and best is not card:
            notes.append(
                f"* pretrained:{card.name}: at {size} players, where its headline was "
                f"measured, pretrained:{best.name} wins more ({_cell(share(best, size))} "
                f"against {_cell(share(card, size))}): seat pretrained:{best.name} there."
            )
        if card.retired:
            notes.append(f"* pretrained:{card.name} is retired: {card.retired}")
    return notes


def size_table(
    cards: Sequence[ModelCard], sizes: Sequence[int] | None = None, legend: bool = True
) -> str:
    """The agents of ``cards`` by table size (every measured size by default), the agent
    recommended at each size, the `LEGEND` (unless ``legend`` is false) and the notes."""
    sizes = measured_sizes(cards) if sizes is None else sizes
    rows = [["agent", "sits at", *(f"{n} players" for n in sizes)]]
    for card in cards:
        rows.append(
            [f"pretrained:{card.name}", card.seats, *(_cell(share(card, n)) for n in sizes)]
        )
    best = [recommend(cards, n) for n in sizes]
    rows.append(["recommended", "", *(
        "-" if not any(share(c, n) for c in cards) else
        "none above 50%" if b is None else f"pretrained:{b.name}"
        for n, b in zip(sizes, best)
    )])  # fmt: skip
    notes = [textwrap.fill(n, 100, subsequent_indent="  ") for n in _notes(cards, sizes)]
    text = [textwrap.fill(LEGEND, 100)] if legend else []
    return "\n\n".join([_grid(rows), *text, *(["\n".join(notes)] if notes else [])])


def by_game(cards: Sequence[ModelCard]) -> dict[str, list[ModelCard]]:
    """``cards`` by game, each game's in their order (the games in order of first card)."""
    groups: dict[str, list[ModelCard]] = {}
    for card in cards:
        groups.setdefault(card.game, []).append(card)
    return groups


def size_tables(cards: Sequence[ModelCard]) -> str:
    """The `LEGEND`, then each game's `size_table` under its title (``docs/results.md``)."""
    parts = [f"**{get_game(game).title}**\n\n{size_table(group, legend=False)}"
             for game, group in by_game(cards).items()]  # fmt: skip
    return "\n\n".join([textwrap.fill(LEGEND, 100), *parts])


def headline_table(cards: Sequence[ModelCard]) -> str:
    """One row per shipped agent: its headline and first ISMCTS row (``docs/results.md``)."""
    lines = ["| agent | plays | headline against the heuristic | against ISMCTS | model card |",
             "|---|---|---|---|---|"]  # fmt: skip
    for c in cards:
        h = c.headline
        ismcts = next((r for r in c.evaluation if r.against.startswith("ismcts")), None)
        lines.append(
            f"| `pretrained:{c.name}` | {c.summary} (sits at {c.seats}) | **{h.won}% ± {h.ci}** "
            f"of {h.deals} deals at {h.players} players{_note(h)} | "
            f"{'' if ismcts is None else ismcts.text() + _note(ismcts)} | "
            f"`agents/learned/models/{c.name}/README.md` |"
        )
    return "\n".join(lines)


def _note(row: Result) -> str:
    return f" — {row.note}" if row.note else ""
