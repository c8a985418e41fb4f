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

import contextlib
import csv
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.arena.ratings import rate_units
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

        Ratings: why a maximum-likelihood fit and not openskill. Openskill
        updates the ratings game by game, so the same games played in another
        order give other ratings, and later games weigh more; running it to a
        fixed point over shuffled orders only averages that away, at the cost
        of many passes and a result that still depends on the shuffles' seed.
        The Bradley-Terry fit (`cardsuite.agents.arena.ratings.rate_units`) sees
        only the set of units: every pair of agents compared in every unit
        (the head-to-head's comparison: higher unit score wins, equal ties),
        all at once; it is also the fit and the scale (Elo, ``random`` = 0)
        of ``cardsuite leaderboard`` and ``cardsuite benchmark``, so the
        numbers can be compared. Intervals: 95% bootstrap over units.
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
            seat_ranks = [r for g in results for s, r in zip(g.seating, g.ranks) if s == a]
            mean_score, score_ci = mean_ci(scores[a])
            mean_rank, rank_ci = mean_ci(ranks[a])
            win_rate, win_low, win_high = share_interval(wins[a])
            illegal = sum(
                1 for g in results if g.illegal_seat >= 0 and g.seating[g.illegal_seat] == a
            )
            stats.append(
                AgentStats(
                    name=names[a],
                    spec=specs[a],
                    mean_score=mean_score,
                    score_ci=score_ci,
                    mean_rank=mean_rank,
                    rank_ci=rank_ci,
                    win_rate=win_rate,
                    win_low=win_low,
                    win_high=win_high,
                    games=len(results),
                    seat_games=len(seat_ranks),
                    illegal_actions=illegal,
                    rating=ratings.rating[a],
                    rating_low=ratings.low[a],
                    rating_high=ratings.high[a],
                )
            )
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

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary.

        Keys:

        * ``"game"``: registry name; ``"players"``: seats; ``"options"``: config options;
        * ``"agents"``: agent names in spec order (repeats as ``spec#1``, ``spec#2``);
        * ``"specs"``: ``{name: spec}``;
        * ``"per_agent"``: ``{name: {...}}`` with ``"mean_score"`` (mean episode
          reward), ``"score_ci"`` (95% Student t half-width, None below
          2 units), ``"mean_rank"`` (1 = best), ``"rank_ci"``, ``"win_rate"``
          (mean over units of the fraction of the agent's seats at rank 1),
          ``"win_low"`` and ``"win_high"`` (its 95% interval: Wilson, or t
          where a unit holds a fraction; see
          `cardsuite.agents.arena.stats.share_interval`), ``"games"`` (games it played),
          ``"seat_games"`` (seat results), ``"illegal_actions"`` (games it
          ended with an illegal action), ``"rating"`` (Elo points from one
          Bradley-Terry fit to every unit at once, the anchor = 0; see
          `from_games`), ``"rating_low"`` and ``"rating_high"`` (its 95%
          bootstrap interval over units; equal to the rating when there are none);
        * ``"rating_scale"``: the scale in words; ``"rating_anchor"``: the agent
          rated 0; ``"rating_resamples"``: bootstrap resamples (0: no intervals);
          ``"rating_unmeasured"``: None, or a sentence naming the groups of agents
          whose rating gaps only the fit's prior sets (a group that never won or
          tied a unit against another; `cardsuite.agents.arena.ratings.tiers`);
        * ``"head_to_head"``: ``{a: {b: fraction}}`` for a != b, the fraction of
          units (games, or deals with duplicate) where a's score beat b's, ties 1/2;
        * ``"games"``: games played; ``"deals"``: units (== games without
          duplicate); ``"rotations"``: distinct seatings p; ``"seed"``;
          ``"duplicate"``: bool.
        """
        names = self.names
        return {
            "game": self.game,
            "players": self.seats,
            "options": dict(self.options),
            "agents": names,
            "specs": {a.name: a.spec for a in self.agents},
            "per_agent": {
                a.name: {
                    "mean_score": a.mean_score,
                    "score_ci": a.score_ci,
                    "mean_rank": a.mean_rank,
                    "rank_ci": a.rank_ci,
                    "win_rate": a.win_rate,
                    "win_low": a.win_low,
                    "win_high": a.win_high,
                    "games": a.games,
                    "seat_games": a.seat_games,
                    "illegal_actions": a.illegal_actions,
                    "rating": a.rating,
                    "rating_low": a.rating_low,
                    "rating_high": a.rating_high,
                }
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
        """The printable table: per-agent statistics, then the head-to-head matrix.

        Means carry their 95% Student t half-width (``n/a`` below two units),
        the win share its 95% interval in points (Wilson, or t where a unit
        holds a fraction).
        """
        return self.format_table()

    def records(self) -> list[dict[str, Any]]:
        """One plain dict per agent: ``agent``, ``spec`` and every per-agent statistic.

        The same columns as ``results.csv`` (the keys of ``to_dict()["per_agent"]``),
        with the standard library only.
        """
        per_agent = self.to_dict()["per_agent"]
        return [{"agent": a.name, "spec": a.spec, **per_agent[a.name]} for a in self.agents]

    def to_pandas(self) -> Any:
        """The per-agent statistics as a pandas DataFrame, one row per agent.

        pandas is not a dependency of cardsuite: without it this returns
        `records()`, the same rows as a plain list of dicts (which
        ``pandas.DataFrame(...)`` accepts as it is).

        Returns:
            A ``pandas.DataFrame`` indexed by agent name when pandas is
            installed, else a ``list[dict]``.
        """
        rows = self.records()
        try:
            import pandas as pd
        except ImportError:
            return rows
        return pd.DataFrame.from_records(rows, index="agent")

    def format_table(self) -> str:
        """The results as a text table, then the head-to-head matrix (see `table`)."""
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
                holds results (see `check_results_dir`).
        """
        out = check_results_dir(out_dir)
        paths = [out / n for n in RESULT_FILES]
        created = _make_dirs(out)
        written: list[Path] = []
        try:
            self._write_files(paths, written)
        except BaseException:
            _remove_created(written, created)  # no partial results, no empty folder
            raise
        return paths

    def _write_files(self, paths: Sequence[Path], written: list[Path]) -> None:
        """Write the four result files, each new (mode "x"), noting each in ``written``."""
        with paths[0].open("x", encoding="utf-8") as fh:
            written.append(paths[0])
            fh.write(json.dumps(self.to_dict(), indent=2) + "\n")
        per_agent = self.to_dict()["per_agent"]
        columns = list(next(iter(per_agent.values())))
        with paths[1].open("x", newline="", encoding="utf-8") as fh:
            written.append(paths[1])
            writer = csv.writer(fh)
            writer.writerow(["agent", "spec", *columns])
            for a in self.agents:
                writer.writerow([a.name, a.spec, *(_cell(per_agent[a.name][c]) for c in columns)])
        with paths[2].open("x", newline="", encoding="utf-8") as fh:
            written.append(paths[2])
            writer = csv.writer(fh)
            writer.writerow(["agent", *self.names])
            for name, row in zip(self.names, self.head_to_head, strict=True):
                writer.writerow([name, *(_cell(v) for v in row)])
        with paths[3].open("xb") as fh:
            written.append(paths[3])
            self.plot().savefig(fh, format="png", dpi=100)

    def plot(self, path: str | Path | None = None) -> Any:
        """Mean score with 95% CI bars beside the head-to-head heatmap.

        Built on a bare `matplotlib.figure.Figure` (not pyplot): no backend is
        selected or switched, no global figure is left open, so a notebook's
        inline backend keeps working; a notebook shows the returned Figure.

        Args:
            path: also save the figure there as a PNG (100 dpi).

        Returns:
            The ``matplotlib.figure.Figure``.
        """
        from matplotlib.figure import Figure

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
        for i in range(k):
            for j in range(k):
                if i != j:
                    right.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=8)
        fig.colorbar(image, ax=right, fraction=0.046)
        fig.tight_layout()
        if path is not None:
            fig.savefig(path, dpi=100, format="png")
        return fig


def _ci(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _cell(value: Any) -> Any:
    return "" if value is None else value


RESULT_FILES = ("results.json", "results.csv", "head_to_head.csv", "results.png")


def check_results_dir(out_dir: str | Path) -> Path:
    """The results folder, checked before any work; nothing is created.

    The folder must not be a file and must not already hold results (a run is
    never overwritten). If it exists it must be writable; if not, its nearest
    existing parent must be a writable folder (both probed with a temporary
    file that is removed at once). The folder itself is created only when the
    results are written (`TournamentResult.write`), so a run that fails
    leaves no empty folder behind.

    Raises:
        ConfigError: the folder cannot be used; the message names it.
    """
    import tempfile

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
    existing = out
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        raise ConfigError(f"--out {shown}: {brief(str(existing))} is a file, not a folder")
    try:
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".probe-"):
            pass
    except OSError as err:
        raise ConfigError(f"cannot write results to {shown}: {err.strerror or err}") from None
    return out


def _make_dirs(out: Path) -> list[Path]:
    """Create ``out`` and its missing parents; the folders created, outermost first."""
    missing = []
    probe = out
    while not probe.exists() and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    created = []
    try:
        for folder in reversed(missing):
            folder.mkdir()
            created.append(folder)
    except OSError as err:
        _remove_created([], created)
        raise ConfigError(f"cannot write results to {brief(str(out))}: {err.strerror}") from None
    return created


def _remove_created(files: Sequence[Path], folders: Sequence[Path]) -> None:
    """Remove ``files`` and then the (now empty) ``folders``, innermost first."""
    for path in files:
        path.unlink(missing_ok=True)
    for folder in reversed(folders):
        with contextlib.suppress(OSError):  # not empty: something else is there; keep it
            folder.rmdir()
