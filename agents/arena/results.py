"""The result of a tournament: per-agent statistics, head-to-head, ratings; table, files, plot.

Ratings are order-free: one Bradley-Terry maximum-likelihood fit to every
pairwise comparison of every unit at once (`cardsuite.agents.arena.ratings.rate_units`,
the leaderboard's fit and Elo scale), with 95% intervals by bootstrap over units.

In a notebook::

    result = cardsuite.tournament("scum", ["heuristic", "random"], games=50)
    print(result.table())      # the printable table
    frame = result.to_pandas() # a DataFrame (a list of record dicts without pandas)
    fig = result.plot()        # a matplotlib Figure; the backend is left alone
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.arena import result_files
from cardsuite.agents.arena.moved import moved_name
from cardsuite.agents.arena.ratings import Ratings, rate_orders, rate_units
from cardsuite.agents.arena.stats import (
    GameResult,
    head_to_head,
    mean_ci,
    share_interval,
    unit_values,
)

#: Bootstrap resamples behind a tournament's rating intervals.
RATING_RESAMPLES = 1000

#: The rating scale, as `TournamentResult.to_dict` states it.
RATING_SCALE = "Elo (400 points = 10:1 odds of beating another agent on a unit)"


def __getattr__(name: str) -> Any:
    """The names this module held before its files moved out (PEP 562)."""
    return moved_name(__name__, name, result_files)


@dataclass
class AgentStats:
    """Statistics of one agent (see `agents.stats` for the definitions)."""

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
    """Everything a tournament measured.

    Attributes:
        game, seats, options, seed, duplicate: how it was played.
        deals: units of the statistics (games, or deals with ``duplicate``).
        rotations: distinct seatings p (each deal's rotations with ``duplicate``).
        agents: per-agent statistics, in the order the specs were given.
        head_to_head: ``h[a][b]`` fraction of units a beat b (None on the diagonal).
        results: every game's outcome, in game order.
        rating_anchor: the agent rated 0 (``random`` if it played, else the first).
        rating_resamples: bootstrap resamples behind the rating intervals (0: none).
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
        """Compute the statistics of ``results`` (in any order: they are sorted by game index).

        Ratings: one Bradley-Terry fit to every pair of agents compared in every
        unit at once (`cardsuite.agents.arena.ratings.rate_units`), the fit and
        the Elo scale of ``cardsuite leaderboard`` and ``cardsuite benchmark``.
        """
        results = sorted(results, key=lambda g: g.index)
        k = len(names)
        scores = unit_values(results, k, "rewards")
        ranks = unit_values(results, k, "ranks")
        wins = unit_values(results, k, "wins")
        ratings = rate_units(
            names,
            np.array([scores[a] for a in range(k)], dtype=np.float64).T,
            resamples=RATING_RESAMPLES,
            seed=seed,
        )
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
        """Plackett-Luce ratings over every game's finishing order (`rate_orders`).

        An option beside the pairwise ratings of the table: in Scum and Scum
        Party a whole finishing order says more than one comparison per unit
        (``docs/leaderboard.md``: the same order, narrower intervals).
        Bootstrap over units (deals, or games), ``resamples`` choix fits.
        """
        orders = [
            [g.seating[s] for s in sorted(range(len(g.ranks)), key=lambda s: (g.ranks[s], s))]
            for g in self.results
        ]
        deals = [g.deal for g in self.results]
        return rate_orders(self.names, orders, deals, resamples=resamples, seed=self.seed)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary: the settings, ``per_agent`` statistics (the fields of
        `AgentStats`), the rating's scale, anchor, resamples and unmeasured gaps,
        the head-to-head and the counts (key by key in ``docs/arena.md``)."""
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

    def table(self) -> str:
        """The printable table (`format_table`)."""
        return self.format_table()

    def records(self) -> list[dict[str, Any]]:
        """One plain dict per agent: ``agent``, ``spec`` and every column of ``results.csv``."""
        per_agent = self.to_dict()["per_agent"]
        return [{"agent": a.name, "spec": a.spec, **per_agent[a.name]} for a in self.agents]

    def to_pandas(self) -> Any:
        """The per-agent statistics as a pandas DataFrame indexed by agent name.

        pandas is not a dependency of cardsuite: without it, `records()` (a
        list of dicts that ``pandas.DataFrame(...)`` accepts as it is).
        """
        rows = self.records()
        try:
            import pandas as pd
        except ImportError:
            return rows
        return pd.DataFrame.from_records(rows, index="agent")

    def format_table(self) -> str:
        """Per-agent statistics (means with their 95% t half-width, the win share's 95%
        interval, the rating's), then the head-to-head matrix."""
        mode = (
            f"duplicate, {self.deals} deals x {self.rotations} rotations"
            if self.duplicate
            else "seats rotated"
        )
        lines = [
            f"{self.game}: {len(self.results)} games, {self.seats} players, seed {self.seed} ({mode})",
            "",
        ]
        width = max(12, *(len(n) for n in self.names))
        lines.append(
            f"{'agent':<{width}} {'mean score':>11} {'± 95% CI':>9} {'mean rank':>10} "
            f"{'± 95% CI':>9} {'win %':>6} {'95% CI':>11} {'rating':>7} {'95% CI':>11}"
        )
        for a in self.agents:
            win_ci = f"{100 * a.win_low:.1f}-{100 * a.win_high:.1f}"
            rating_ci = (
                f"{a.rating_low:.0f} to {a.rating_high:.0f}" if self.rating_resamples else "n/a"
            )
            lines.append(
                f"{a.name:<{width}} {a.mean_score:>11.3f} {_ci(a.score_ci):>9} "
                f"{a.mean_rank:>10.3f} {_ci(a.rank_ci):>9} {100 * a.win_rate:>5.1f}% "
                f"{win_ci:>11} {a.rating:>7.0f} {rating_ci:>11}"
            )
        unit = "deals" if self.duplicate else "games"
        lines += [
            "",
            f"rating: {RATING_SCALE}, {self.rating_anchor} = 0; one Bradley-Terry fit to "
            f"every {unit[:-1]} at once (the order of the games does not matter), "
            + (
                f"95% bootstrap interval over {unit} ({self.rating_resamples} resamples)"
                if self.rating_resamples
                else "no interval (fewer than 2 distinct units)"
            ),
        ]
        if self.rating_unmeasured:
            lines.append(f"{self.rating_unmeasured}.")
        lines += ["", f"head-to-head: fraction of {unit} the row agent's score beat the column's"]
        cols = [max(10, len(n)) for n in self.names]  # full names, never cut
        lines.append(" " * width + "".join(f" {n:>{w}}" for n, w in zip(self.names, cols)))
        for i, name in enumerate(self.names):
            cells = "".join(
                f" {'-':>{w}}" if v is None else f" {v:>{w}.3f}"
                for v, w in zip(self.head_to_head[i], cols)
            )
            lines.append(f"{name:<{width}}{cells}")
        illegal = sum(a.illegal_actions for a in self.agents)
        if illegal:
            lines += ["", f"games ended by an illegal action: {illegal}"]
        return "\n".join(lines)

    def write(self, out_dir: str | Path) -> list[Path]:
        """Write results.json, results.csv, head_to_head.csv and results.png; return the paths.

        Raises:
            ConfigError: ``out_dir`` is a file, cannot be written, or already
                holds results (`cardsuite.agents.arena.result_files.check_results_dir`).
        """
        return result_files.write_results(self, out_dir)

    def plot(self, path: str | Path | None = None) -> Any:
        """Mean score with 95% CI bars beside the head-to-head heatmap (a matplotlib Figure).

        Built without pyplot, so a notebook's backend is left alone; ``path``:
        also save it there as a PNG (100 dpi).
        """
        return result_files.plot_result(self, path)


def _ci(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
