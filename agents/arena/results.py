"""The result of a tournament: per-agent statistics, head-to-head, ratings; table, files, plot.

Statistics and ratings are defined in ``docs/arena.md``.
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.arena.ratings import Ratings, rate_orders, rate_units
from cardsuite.agents.arena.stats import (
    GameResult,
    head_to_head,
    mean_ci,
    share_interval,
    unit_values,
)
from cardsuite.errors import ConfigError
from cardsuite.safe_yaml import brief

#: Bootstrap resamples behind a tournament's rating intervals.
RATING_RESAMPLES = 1000

#: The rating scale, as `TournamentResult.to_dict` states it.
RATING_SCALE = "Elo (400 points = 10:1 odds of beating another agent on a unit)"

#: The columns of the per-agent table after the agent's name: (title, unit, width).
COLUMNS = (
    ("mean score", "(reward/game)", 13),
    ("± 95% CI", "", 9),
    ("mean rank", "(1 = first)", 11),
    ("± 95% CI", "", 9),
    ("wins", "(% of seats)", 12),
    ("95% CI", "", 11),
    ("rating", "(Elo)", 7),
    ("95% CI", "", 11),
)

#: What ``cardsuite tournament --out DIR`` writes.
RESULT_FILES = ("results.json", "results.csv", "head_to_head.csv", "results.png")


@dataclass
class AgentStats:
    """Statistics of one agent (``docs/arena.md``)."""

    name: str
    spec: str
    mean_score: float
    score_ci: float | None
    mean_rank: float
    rank_ci: float | None
    win_rate: float
    win_low: float
    win_high: float
    games: int
    seat_games: int
    illegal_actions: int
    rating: float
    rating_low: float
    rating_high: float


@dataclass
class TournamentResult:
    """Everything a tournament measured (each field in ``docs/arena.md``).

    ``deals``: the units (games, or deals with ``duplicate``); ``rotations``:
    the distinct seatings; ``agents``: per-agent statistics in spec order.
    """

    game: str
    seats: int
    options: dict[str, Any]
    seed: int
    duplicate: bool
    deals: int
    rotations: int
    agents: list[AgentStats]
    head_to_head: list[list[float | None]]
    results: list[GameResult] = field(repr=False)
    rating_anchor: str = ""
    rating_resamples: int = 0
    rating_unmeasured: str | None = None

    @classmethod
    def from_games(
        cls,
        *,
        game: str,
        names: list[str],
        specs: list[str],
        seats: int,
        options: dict[str, Any],
        seed: int,
        duplicate: bool,
        deals: int,
        rotations: int,
        results: Sequence[GameResult],
    ) -> TournamentResult:
        """Compute the statistics of ``results`` (in any order: they are sorted by game index)."""
        results = sorted(results, key=lambda g: g.index)
        k = len(names)
        scores = unit_values(results, k, "rewards")
        ranks = unit_values(results, k, "ranks")
        wins = unit_values(results, k, "wins")
        table = np.array([scores[a] for a in range(k)], dtype=np.float64).T  # (units, agents)
        ratings = rate_units(names, table, resamples=RATING_RESAMPLES, seed=seed)
        stats = []
        for a in range(k):
            seat_games = sum(s == a for g in results for s in g.seating)
            illegal = sum(g.illegal_seat >= 0 and g.seating[g.illegal_seat] == a for g in results)
            row = (names[a], specs[a], *mean_ci(scores[a]), *mean_ci(ranks[a]),
                   *share_interval(wins[a]), len(results), seat_games, illegal,
                   ratings.rating[a], ratings.low[a], ratings.high[a])  # fmt: skip
            stats.append(AgentStats(*row))
        return cls(
            game=game,
            seats=seats,
            options=dict(options),
            seed=seed,
            duplicate=duplicate,
            deals=deals,
            rotations=rotations,
            agents=stats,
            head_to_head=head_to_head(scores),
            results=list(results),
            rating_anchor=ratings.anchor,
            rating_resamples=ratings.resamples,
            rating_unmeasured=ratings.unmeasured("deal" if duplicate else "game"),
        )

    @property
    def names(self) -> list[str]:
        """Agent names in spec order."""
        return [a.name for a in self.agents]

    def plackett_luce(self, resamples: int = 200) -> Ratings:
        """Plackett-Luce ratings over every game's finishing order (`rate_orders`; ``docs/leaderboard.md``)."""
        orders = [
            [g.seating[s] for s in sorted(range(len(g.ranks)), key=lambda s: (g.ranks[s], s))]
            for g in self.results
        ]
        deals = [g.deal for g in self.results]
        return rate_orders(self.names, orders, deals, resamples=resamples, seed=self.seed)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (key by key in ``docs/arena.md``)."""
        names = self.names
        return {
            "game": self.game,
            "players": self.seats,
            "options": dict(self.options),
            "agents": names,
            "specs": {a.name: a.spec for a in self.agents},
            "per_agent": {
                a.name: {k: v for k, v in asdict(a).items() if k not in ("name", "spec")}
                for a in self.agents
            },
            "rating_scale": RATING_SCALE,
            "rating_anchor": self.rating_anchor,
            "rating_resamples": self.rating_resamples,
            "rating_unmeasured": self.rating_unmeasured,
            "head_to_head": {
                names[i]: {names[j]: self.head_to_head[i][j] for j in range(len(names)) if j != i}
                for i in range(len(names))
            },
            "games": len(self.results),
            "deals": self.deals,
            "rotations": self.rotations,
            "seed": self.seed,
            "duplicate": self.duplicate,
        }

    def records(self) -> list[dict[str, Any]]:
        """One plain dict per agent: ``agent``, ``spec`` and every column of ``results.csv``."""
        per_agent = self.to_dict()["per_agent"]
        return [{"agent": a.name, "spec": a.spec, **per_agent[a.name]} for a in self.agents]

    def to_pandas(self) -> Any:
        """The per-agent statistics as a pandas DataFrame indexed by agent name (`records()` without pandas)."""
        rows = self.records()
        try:
            import pandas as pd
        except ImportError:
            return rows
        return pd.DataFrame.from_records(rows, index="agent")

    def format_table(self) -> str:
        """Per-agent statistics with their 95% intervals, then the head-to-head matrix; a
        legend under each."""
        mode = (
            f"duplicate, {self.deals} deals x {self.rotations} rotations"
            if self.duplicate
            else "seats rotated"
        )
        width = max(12, *(len(n) for n in self.names))
        lines = [
            f"{self.game}: {len(self.results)} games, {self.seats} players, seed {self.seed} ({mode})",
            "",
            _row("agent", [c[0] for c in COLUMNS], width),
            _row("", [c[1] for c in COLUMNS], width),
        ]
        for a in self.agents:
            rating_ci = (
                "anchor"
                if a.name == self.rating_anchor
                else f"{a.rating_low:.0f} to {a.rating_high:.0f}"
                if self.rating_resamples
                else "n/a"
            )
            values = (f"{a.mean_score:.3f}", _ci(a.score_ci), f"{a.mean_rank:.3f}", _ci(a.rank_ci),
                     f"{100 * a.win_rate:.1f}%", f"{100 * a.win_low:.1f}-{100 * a.win_high:.1f}",
                     f"{a.rating:.0f}", rating_ci)  # fmt: skip
            lines.append(_row(a.name, values, width))
        unit = "deals" if self.duplicate else "games"
        lines += [
            "score: a seat's rewards summed over one game; rank: 1 = first; wins: share of the "
            "agent's own seats that finished first (a share per seat, so the column need not "
            "add to 100%)",
            "",
            f"rating: {RATING_SCALE}, {self.rating_anchor} = 0 (the anchor); one Bradley-Terry "
            f"fit to every {unit[:-1]} at once (the order of the games does not matter), "
            + (
                f"95% bootstrap interval over {unit} ({self.rating_resamples} resamples)"
                if self.rating_resamples
                else "no interval (fewer than 2 distinct units)"
            ),
        ]
        if self.rating_unmeasured:
            lines.append(f"{self.rating_unmeasured}.")
        lines += ["", f"head-to-head: share of {unit} the row agent's score beat the column's"]
        cols = [max(10, len(n)) for n in self.names]  # full names, never cut
        lines.append(" " * width + "".join(f" {n:>{w}}" for n, w in zip(self.names, cols)))
        for i, name in enumerate(self.names):
            cells = "".join(
                f" {'-':>{w}}" if v is None else f" {v:>{w}.3f}"
                for v, w in zip(self.head_to_head[i], cols)
            )
            lines.append(f"{name:<{width}}{cells}")
        lines.append("ties count half, so a cell and its mirror across the diagonal add to 1")
        illegal = sum(a.illegal_actions for a in self.agents)
        if illegal:
            lines += ["", f"games ended by an illegal action: {illegal}"]
        return "\n".join(lines)

    table = format_table  # the printable table

    def write(self, out_dir: str | Path) -> list[Path]:
        """Write `RESULT_FILES` into ``out_dir``; on failure remove what this run made. The paths."""
        out = check_results_dir(out_dir)
        paths = [out / n for n in RESULT_FILES]
        with contextlib.ExitStack() as undo:  # no partial results, no empty folder
            for folder in reversed([p for p in (out, *out.parents) if not p.exists()]):
                try:
                    folder.mkdir()
                except OSError as err:
                    shown = brief(str(out))
                    raise ConfigError(f"cannot write results to {shown}: {err.strerror}") from None
                undo.callback(_remove_if_empty, folder)
            self._write_files(paths, undo)
            undo.pop_all()
        return paths

    def _write_files(self, paths: Sequence[Path], undo: contextlib.ExitStack) -> None:
        """Write the four result files, each new (mode "x"), each removed by ``undo``."""
        summary = self.to_dict()
        with paths[0].open("x", encoding="utf-8") as fh:
            undo.callback(paths[0].unlink, missing_ok=True)
            fh.write(json.dumps(summary, indent=2) + "\n")
        rows = self.records()
        tables = [
            (list(rows[0]), [list(row.values()) for row in rows]),
            (["agent", *self.names], [[n, *r] for n, r in zip(self.names, self.head_to_head)]),
        ]
        for path, (header, body) in zip(paths[1:3], tables, strict=True):
            with path.open("x", newline="", encoding="utf-8") as fh:
                undo.callback(path.unlink, missing_ok=True)
                writer = csv.writer(fh)
                writer.writerow(header)
                writer.writerows([["" if v is None else v for v in row] for row in body])
        with paths[3].open("xb") as fh:
            undo.callback(paths[3].unlink, missing_ok=True)
            self.plot().savefig(fh, format="png", dpi=100)

    def plot(self, path: str | Path | None = None) -> Any:
        """Mean score with 95% CI bars beside the head-to-head heatmap (a Figure; pyplot untouched)."""
        from matplotlib.figure import Figure  # lazy: matplotlib takes a second to import

        names = self.names
        k = len(names)
        fig = Figure(figsize=(6 + 1.2 * k, 4 + 0.2 * k))
        left, right = fig.subplots(1, 2)
        means = [a.mean_score for a in self.agents]
        errors = [0.0 if a.score_ci is None else a.score_ci for a in self.agents]
        left.bar(range(k), means, yerr=errors, capsize=4, color="tab:blue")
        left.set_xticks(range(k), names, rotation=30, ha="right")
        left.set_ylabel("mean score (95% t interval)")
        left.set_title(f"{self.game}: {len(self.results)} games")
        matrix = np.array(
            [[math.nan if v is None else v for v in row] for row in self.head_to_head]
        )
        image = right.imshow(matrix, vmin=0.0, vmax=1.0, cmap="RdBu")
        right.set_xticks(range(k), names, rotation=30, ha="right")
        right.set_yticks(range(k), names)
        right.set_title("head-to-head: row beats column")
        for i, j in zip(*np.nonzero(~np.eye(k, dtype=bool)), strict=True):  # off the diagonal
            right.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=8)
        fig.colorbar(image, ax=right, fraction=0.046)
        fig.tight_layout()
        if path is not None:
            fig.savefig(path, dpi=100, format="png")
        return fig


def _row(first: str, cells: Sequence[str], width: int) -> str:
    """One line of the per-agent table: ``first`` (the agent), then ``cells`` in `COLUMNS`."""
    return (f"{first:<{width}}" + "".join(f" {v:>{c[2]}}" for v, c in zip(cells, COLUMNS))).rstrip()


def _ci(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def check_results_dir(out_dir: str | Path) -> Path:
    """The results folder, checked before any game is played (never overwritten; nothing made)."""
    out = Path(out_dir)
    shown = brief(str(out))
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {shown} is a file; give a folder for the results")
    taken = [n for n in RESULT_FILES if (out / n).exists()]
    if taken:
        raise ConfigError(
            f"--out {shown} already holds {', '.join(taken)}; choose a new folder "
            "(results are never overwritten)"
        )
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir():
        raise ConfigError(f"--out {shown}: {brief(str(existing))} is a file, not a folder")
    try:
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".probe-"):
            pass
    except OSError as err:
        raise ConfigError(f"cannot write results to {shown}: {err.strerror or err}") from None
    return out


def _remove_if_empty(folder: Path) -> None:
    """Remove a folder this run made, unless something else is there now."""
    with contextlib.suppress(OSError):
        folder.rmdir()
