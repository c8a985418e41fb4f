"""Draw a table model as an RGB image (``render_mode="rgb_array"``), with matplotlib.

Every game describes its table as a *table model*, a JSON-able dict that the
web page draws in the browser and `draw_table` draws here (seats with cards
as chips on the left, piles on the right, lines and legend underneath)::

    {"game": "scum", "title": "...",
     "seats": [{"name": "player_0", "role": "President", "count": 3,
                "cards": ["2", "5", "P"] or None (hidden), "score": "score 0",
                "notes": ["passed"], "to_act": True, "you": False}, ...],
     "piles": [{"title": "Top play", "cards": [{"text": "5", "by": "player_2"}]}],
     "lines": ["free text", ...], "legend": "...",
     "ladder": [...] (Scum Party only), "compact": True (optional: smaller chips)}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

WIDTH, HEIGHT, DPI = 1024, 640, 100
FELT = "#1e5b3a"
CHIP = "#fbfaf4"
TO_ACT = "#ffd54a"
INK = "#f4f4f0"
MAX_CHIPS = 20


def cards_word(n: int) -> str:
    """``"1 card"``, ``"3 cards"``."""
    return f"{n} card" if n == 1 else f"{n} cards"


def expand(names: Sequence[str], counts: Sequence[int] | np.ndarray) -> list[str]:
    """Card names repeated by their counts (``["3", "3", "P"]`` from a count vector)."""
    return [names[s] for s, n in enumerate(np.asarray(counts, dtype=int)) for _ in range(n)]


def _chips(ax: Any, x: float, y: float, texts: Sequence[str], width: float, *, small: bool) -> None:
    """A row of card chips starting at (x, y) in axes fractions."""
    from matplotlib.patches import FancyBboxPatch  # lazy: matplotlib loads only to draw

    shown = list(texts[:MAX_CHIPS])
    step = min(0.034 if not small else 0.07, width / max(len(shown), 1))
    for i, text in enumerate(shown):
        left = x + i * step
        ax.add_patch(
            FancyBboxPatch(
                (left, y - 0.018),
                step * 0.9,
                0.036,
                boxstyle="round,pad=0.002",
                transform=ax.transAxes,
                facecolor=CHIP,
                edgecolor="#333333",
                linewidth=0.6,
            )
        )
        label = text if not small else text[:11]
        ax.text(
            left + step * 0.45,
            y,
            label,
            transform=ax.transAxes,
            ha="center",
            va="center",
            fontsize=7 if not small else 5,
            color="#111111",
        )
    if len(texts) > MAX_CHIPS:
        ax.text(
            x + len(shown) * step,
            y,
            f" +{len(texts) - MAX_CHIPS}",
            transform=ax.transAxes,
            va="center",
            fontsize=7,
            color=INK,
        )


def _text(ax: Any, x: float, y: float, text: str, size: float, **style: Any) -> None:
    """``text`` at (x, y) in axes fractions, vertically centred, in ink unless ``style`` says."""
    ax.text(
        x, y, text, transform=ax.transAxes, fontsize=size, va="center", **{"color": INK, **style}
    )


def draw_table(model: Mapping[str, Any]) -> np.ndarray:
    """The table model drawn as ``uint8[HEIGHT, WIDTH, 3]``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # lazy: loads only to draw
    from matplotlib.figure import Figure

    fig = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI, facecolor=FELT)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.set_facecolor(FELT)
    small = bool(model.get("compact", False))
    _text(ax, 0.015, 0.965, str(model.get("title", "")), 11, weight="bold")
    seats = list(model.get("seats", []))
    row = min(0.075, 0.8 / max(len(seats), 1))
    for i, seat in enumerate(seats):
        y = 0.9 - i * row
        colour = TO_ACT if seat.get("to_act") else INK
        who = f"{seat.get('name', '')}" + (f" · {seat['role']}" if seat.get("role") else "")
        count = int(seat.get("count", 0))
        info = cards_word(count)
        if seat.get("score"):
            info += f" · {seat['score']}"
        if seat.get("notes"):
            info += " · " + ", ".join(seat["notes"])
        weight = "bold" if seat.get("to_act") else "normal"
        _text(ax, 0.015, y + row * 0.18, who, 8, color=colour, weight=weight)
        _text(ax, 0.015, y - row * 0.22, info, 7, color=colour)
        cards = seat.get("cards")
        if cards is None:
            cards = ["?"] * min(count, MAX_CHIPS)
        _chips(ax, 0.2, y, cards, 0.38, small=small)
    x0 = 0.62
    y = 0.9
    for pile in model.get("piles", []):
        _text(ax, x0, y, str(pile.get("title", "")), 8, weight="bold")
        y -= 0.045
        cards = [c.get("text", "") for c in pile.get("cards", [])]
        for start in range(0, max(len(cards), 1), 5 if small else 10):
            if cards:
                _chips(ax, x0, y, cards[start : start + (5 if small else 10)], 0.36, small=small)
            y -= 0.045
            if y < 0.25:
                break
        if y < 0.25:
            break
    ladder = model.get("ladder")
    if ladder:
        _text(ax, x0, y, "Ladder (top 12)", 8, weight="bold")
        for entry in ladder[:12]:
            y -= 0.03
            line = f"#{entry['rank']:<3} {entry['name']:<10} {entry['total']:>5}  table {entry['table']}"
            _text(ax, x0, y, line, 7, family="monospace")
    lines = [*model.get("lines", []), str(model.get("legend", ""))]
    for i, line in enumerate(lines[-6:]):
        _text(ax, 0.015, 0.16 - i * 0.03, str(line)[:160], 7)
    canvas.draw()
    rgba = np.asarray(canvas.buffer_rgba())
    return np.ascontiguousarray(rgba[:, :, :3], dtype=np.uint8)
