"""The result of a tournament: per-agent statistics, head-to-head, ratings; table, files, plot."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.stats import GameResult, head_to_head, mean_ci, rate_games, unit_values
from cardsuite.errors import ConfigError


@dataclass
class AgentStats:
    """Statistics of one agent (see :mod:`agents.stats` for the definitions)."""

    name: str
    spec: str
    mean_score: float
    score_ci: float | None
    mean_rank: float
    rank_ci: float | None
    win_rate: float
    games: int
    seat_games: int
    illegal_actions: int
    mu: float
    sigma: float
    ordinal: float


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
        """Compute the statistics of ``results`` (in game order)."""
        k = len(names)
        scores = unit_values(results, k, "rewards")
        ranks = unit_values(results, k, "ranks")
        ratings = rate_games(results, k)
        stats = []
        for a in range(k):
            seat_ranks = [r for g in results for s, r in zip(g.seating, g.ranks) if s == a]
            mean_score, score_ci = mean_ci(scores[a])
            mean_rank, rank_ci = mean_ci(ranks[a])
            illegal = sum(
                1 for g in results if g.illegal_seat >= 0 and g.seating[g.illegal_seat] == a
            )
            mu, sigma, ordinal = ratings[a]
            stats.append(
                AgentStats(
                    name=names[a],
                    spec=specs[a],
                    mean_score=mean_score,
                    score_ci=score_ci,
                    mean_rank=mean_rank,
                    rank_ci=rank_ci,
                    win_rate=float(np.mean(np.asarray(seat_ranks) == 1)),
                    games=len(results),
                    seat_games=len(seat_ranks),
                    illegal_actions=illegal,
                    mu=mu,
                    sigma=sigma,
                    ordinal=ordinal,
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
          reward), ``"score_ci"`` (95% half-width, None below 2 units),
          ``"mean_rank"`` (1 = best), ``"rank_ci"``, ``"win_rate"`` (fraction of
          the agent's seat results at rank 1), ``"games"`` (games it played),
          ``"seat_games"`` (seat results), ``"illegal_actions"`` (games it
          ended with an illegal action), ``"mu"``, ``"sigma"``, ``"ordinal"``
          (openskill Plackett-Luce; ordinal = mu - 3 sigma);
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
                    "games": a.games,
                    "seat_games": a.seat_games,
                    "illegal_actions": a.illegal_actions,
                    "mu": a.mu,
                    "sigma": a.sigma,
                    "ordinal": a.ordinal,
                }
                for a in self.agents
            },
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

    def format_table(self) -> str:
        """The results as a text table, then the head-to-head matrix."""
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
            f"{'± 95% CI':>9} {'win %':>6} {'mu':>7} {'sigma':>6} {'ordinal':>8}"
        )
        for a in self.agents:
            lines.append(
                f"{a.name:<{width}} {a.mean_score:>11.3f} {_ci(a.score_ci):>9} "
                f"{a.mean_rank:>10.3f} {_ci(a.rank_ci):>9} {100 * a.win_rate:>5.1f}% "
                f"{a.mu:>7.2f} {a.sigma:>6.2f} {a.ordinal:>8.2f}"
            )
        unit = "deals" if self.duplicate else "games"
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
                holds results (see :func:`check_results_dir`).
        """
        out = check_results_dir(out_dir)
        paths = [out / n for n in RESULT_FILES]
        paths[0].write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")
        per_agent = self.to_dict()["per_agent"]
        columns = list(next(iter(per_agent.values())))
        with paths[1].open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["agent", "spec", *columns])
            for a in self.agents:
                writer.writerow([a.name, a.spec, *(_cell(per_agent[a.name][c]) for c in columns)])
        with paths[2].open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["agent", *self.names])
            for name, row in zip(self.names, self.head_to_head, strict=True):
                writer.writerow([name, *(_cell(v) for v in row)])
        self.plot(paths[3])
        return paths

    def plot(self, path: str | Path) -> None:
        """Mean score with 95% CI bars, and the head-to-head heatmap, as a PNG."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        names = self.names
        k = len(names)
        fig, (left, right) = plt.subplots(1, 2, figsize=(6 + 1.2 * k, 4 + 0.2 * k))
        means = [a.mean_score for a in self.agents]
        errors = [0.0 if a.score_ci is None else a.score_ci for a in self.agents]
        left.bar(range(k), means, yerr=errors, capsize=4, color="tab:blue")
        left.set_xticks(range(k), names, rotation=30, ha="right")
        left.set_ylabel("mean score (95% CI)")
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
        fig.savefig(path, dpi=100)
        plt.close(fig)


def _ci(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _cell(value: Any) -> Any:
    return "" if value is None else value


RESULT_FILES = ("results.json", "results.csv", "head_to_head.csv", "results.png")


def check_results_dir(out_dir: str | Path) -> Path:
    """The results folder, created if needed; ConfigError before any work if it cannot be used.

    The folder must not be a file, must be writable (probed with a temporary
    file), and must not already hold results: a run is never overwritten.
    """
    import tempfile

    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {str(out)!r} is a file; give a folder for the results")
    taken = [n for n in RESULT_FILES if (out / n).exists()]
    if taken:
        raise ConfigError(
            f"--out {str(out)!r} already holds {', '.join(taken)}; choose a new folder "
            "(results are never overwritten)"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".probe-"):
            pass
    except OSError as err:
        raise ConfigError(f"cannot write results to {str(out)!r}: {err.strerror or err}") from None
    return out
