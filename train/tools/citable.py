"""The citable results table of ``docs/results.md``: each strength target, its preset, every seed.

One `Row` per target of issue 21's table (a game, a table size, an opponent
and the share of duplicate deals to win), with the preset that meets it (or
comes closest), the command that trains it, the command that measures it,
and one `SeedRun` per training seed as measured: decisions trained, minutes
of wall time (warm start included), the share of the deals won and its 95%
interval. `RECORD` holds the measurements; `table` renders them with the
three-seed mean and its Student t interval over the seeds, and
``python -m cardsuite.docs --write`` writes the table between the
``citable-results`` markers of ``docs/results.md`` (the drift test fails
when it is stale). A new measurement goes into `RECORD`, never into the
page by hand.

The sections of ``docs/results.md`` that each row links to give the runs'
details, what was tried, and the diagnoses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import t as student_t

#: The wall-time limit of a preset's training (issue 21), in minutes.
MINUTES_LIMIT = 30.0


@dataclass(frozen=True)
class SeedRun:
    """One training seed's run and its measured result.

    Attributes:
        seed: the ``--seed`` of the training command.
        decisions: learner decisions trained.
        minutes: wall minutes of training, the warm start included.
        won: percent of the duplicate deals won (ties count one half).
        half_width: the 95% interval's half width, in points.
        deals: duplicate deals measured.
    """

    seed: int
    decisions: int
    minutes: float
    won: float
    half_width: float
    deals: int


@dataclass(frozen=True)
class Row:
    """One target: what is measured, how, and each seed's result.

    Attributes:
        game: the game and table size (``"Scum Party 20p"``).
        opponent: who the agent plays (``"heuristic"``, ``"ISMCTS"``).
        target: percent of the deals to win.
        preset: the preset file under ``configs/train/`` (``ppo_*`` trains with
            ``cardsuite ppo``, ``dmc_*`` with ``cardsuite dmc``: `train`).
        measure: how a run's agent is measured (Markdown: a command in backticks).
        deal_seed: the seed of the measured deals (no training run uses it).
        runs: the seeds' runs.
        section: the anchor in ``docs/results.md`` with the details.
        note: what a reader must know to use the row.
    """

    game: str
    opponent: str
    target: float
    preset: str
    measure: str
    deal_seed: int
    runs: tuple[SeedRun, ...]
    section: str
    note: str = ""

    @property
    def train(self) -> str:
        """The training command (``S``: the seed; ``RUN``: its run folder)."""
        trainer = self.preset.split("_", 1)[0]
        return f"cardsuite {trainer} --config configs/train/{self.preset} --seed S --run-dir RUN"

    def mean(self) -> float:
        """The mean over seeds of the percent won."""
        return sum(r.won for r in self.runs) / len(self.runs)

    def seed_half_width(self) -> float:
        """The 95% Student t half width of the mean over the seeds (0 with one seed)."""
        n = len(self.runs)
        if n < 2:
            return 0.0
        m = self.mean()
        sd = math.sqrt(sum((r.won - m) ** 2 for r in self.runs) / (n - 1))
        return float(student_t.ppf(0.975, n - 1)) * sd / math.sqrt(n)

    def deal_half_width(self) -> float:
        """The 95% half width of the mean from the deals alone (the seeds' intervals combined)."""
        return math.sqrt(sum(r.half_width**2 for r in self.runs)) / len(self.runs)

    def verdict(self) -> str:
        """``every seed``, ``on the mean`` or ``no``."""
        if all(r.won >= self.target for r in self.runs):
            return "**yes**, every seed"
        if self.mean() >= self.target:
            return f"**yes** on the mean ({sum(r.won >= self.target for r in self.runs)} of " \
                   f"{len(self.runs)} seeds)"  # fmt: skip
        return "**no**"

    def over_time(self) -> list[SeedRun]:
        """The seeds whose training took longer than `MINUTES_LIMIT`."""
        return [r for r in self.runs if r.minutes > MINUTES_LIMIT]


def _m(decisions: int) -> str:
    return f"{decisions / 1e6:.2f}M"


def _pct(x: float) -> str:
    text = f"{x:.2f}"
    return (text[:-1] if text.endswith("0") else text) + "%"


def table(rows: tuple[Row, ...] | None = None) -> str:
    """The Markdown table of ``rows`` (default `RECORD`), then each row's commands and notes."""
    rows = RECORD if rows is None else rows
    head = (
        "| # | game | opponent | preset | seeds | decisions | minutes | won, per seed (± 95%) "
        "| mean (± 95% over seeds) | target | met |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for i, row in enumerate(rows, 1):
        seeds = ", ".join(str(r.seed) for r in row.runs)
        decisions = " / ".join(_m(r.decisions) for r in row.runs)
        minutes = " / ".join(f"{r.minutes:.1f}" for r in row.runs)
        won = " / ".join(f"{_pct(r.won)} ± {r.half_width:.1f}" for r in row.runs)
        deals = {r.deals for r in row.runs}
        won += f" ({'/'.join(str(d) for d in sorted(deals))} deals)"
        mean = f"**{_pct(row.mean())}** ± {row.seed_half_width():.1f}"
        lines.append(
            f"| {i} | [{row.game}](#{row.section}) | {row.opponent} | `{row.preset}` | {seeds} "
            f"| {decisions} | {minutes} | {won} | {mean} | ≥ {_pct(row.target)} "
            f"| {row.verdict()} |"
        )
    lines.append("")
    for i, row in enumerate(rows, 1):
        over = row.over_time()
        late = (
            f" Over the {MINUTES_LIMIT:.0f}-minute limit: seed "
            + ", ".join(f"{r.seed} ({r.minutes:.1f} min)" for r in over)
            + "."
            if over
            else ""
        )
        lines.append(
            f"{i}. Train: `{row.train}`. Measure: {row.measure} (deals of seed "
            f"{row.deal_seed:,}). Mean from the deals alone: ± "
            f"{row.deal_half_width():.1f}.{late}" + (f" {row.note}" if row.note else "")
        )
    return "\n".join(lines)


_SG = "python -m cardsuite.train.tools.sizes ppo:RUN/agent"


def _measured(
    runs: tuple[tuple[int, int, float], ...], results: tuple[tuple[float, float], ...], deals: int
) -> tuple[SeedRun, ...]:
    """One set of runs ``(seed, decisions, minutes)`` measured once more: ``(won, half_width)``
    per run, on ``deals`` deals (rows that share runs name them once)."""
    return tuple(SeedRun(*run, *result, deals) for run, result in zip(runs, results, strict=True))


#: ``dmc_scum4.yaml``'s three runs (rows 1 and 2).
_SCUM4 = ((0, 30_100_000, 28.2), (1, 29_300_000, 28.2), (2, 31_000_000, 28.2))
#: ``ppo_scandal_generic.yaml``'s three runs as the preset is since 2026-12-05 (rows 7 and 8).
_SCANDAL_GENERIC = ((0, 4_097_270, 28.9), (1, 4_040_830, 29.0), (2, 3_831_961, 28.9))

#: Every measured row; the sections of ``docs/results.md`` tell each run's story.
RECORD: tuple[Row, ...] = (
    Row(
        "Scum 4p", "heuristic", 60.0, "dmc_scum4.yaml",
        "the trainer's final evaluation, the last rows of `RUN/eval.csv`", 1_000_003,
        _measured(_SCUM4, ((66.0, 3.6), (74.8, 3.3), (70.6, 3.6)), 400),
        "strength-table-issue-11",
        "Each deal is played in every seat rotation, hence the narrower intervals.",
    ),
    Row(
        "Scum 4p", "ISMCTS (default budget)", 60.0, "dmc_scum4.yaml",
        "`cardsuite tournament scum --agents ppo:RUN/agent ismcts --players 4 --games 400 "
        "--duplicate --seed 2000003`", 2_000_003,
        _measured(_SCUM4, ((60.0, 4.8), (63.75, 4.7), (59.9, 4.8)), 400),
        "strength-table-issue-11",
        "The same runs as row 1. The shipped `pretrained:scum4` is the preset's former "
        "7-minute seed 1 (58.6% of these deals).",
    ),
    Row(
        "Scum Party 8p", "heuristic", 60.0, "ppo_party8.yaml",
        f"`{_SG} --game scum_party --players 8 --deals 400 --seed 2000003`", 2_000_003,
        (SeedRun(0, 10_576_203, 24.2, 62.1, 4.7, 400),
         SeedRun(1, 9_908_335, 24.8, 62.4, 4.7, 400),
         SeedRun(2, 10_384_623, 24.8, 66.25, 4.5, 400)),
        "party8-monte-carlo",
        "Seed 2 ships as `pretrained:party8`. On 400 deals of seed 1,000,003 the same agents "
        "win 56.6%, 56.9% and 61.75% (mean 58.4%).",
    ),
    Row(
        "Scum Party 20p", "heuristic", 55.0, "ppo_party20.yaml",
        f"`{_SG} --game scum_party --players 20 --deals 400 --seed 2000003`", 2_000_003,
        (SeedRun(0, 6_253_375, 25.8, 65.5, 4.6, 400),
         SeedRun(1, 5_908_255, 26.1, 63.625, 4.6, 400),
         SeedRun(2, 5_801_538, 26.3, 59.75, 4.8, 400)),
        "party-20-50",
        "Seed 0 ships as `pretrained:party20`. Seed 1 is its run of 2026-12-05; its first run "
        "shared the cores with other jobs and stopped at 4.14M decisions after 30.2 minutes "
        "(58.5%).",
    ),
    Row(
        "Scum Party 50p", "heuristic", 55.0, "ppo_party50.yaml",
        f"`{_SG} --game scum_party --players 50 --deals 400 --seed 2000003`", 2_000_003,
        (SeedRun(0, 5_911_041, 26.6, 61.25, 4.8, 400),
         SeedRun(1, 5_532_133, 27.2, 55.375, 4.8, 400),
         SeedRun(2, 5_377_018, 27.2, 61.9, 4.7, 400)),
        "party-20-50",
        "Seed 0 ships as `pretrained:party50`. Seed 1 is its run of 2026-12-05; its first run "
        "shared the cores with other jobs and stopped at 3.96M decisions after 31.3 minutes "
        "(48.6%).",
    ),
    Row(
        "Scandal 2p", "heuristic", 75.0, "ppo_scandal2_generic.yaml",
        "`cardsuite tournament scandal --agents ppo:RUN/agent heuristic --players 2 --games 400 "
        "--duplicate --seed 2000003`", 2_000_003,
        (SeedRun(0, 4_778_162, 29.6, 80.0, 3.9, 400),
         SeedRun(1, 4_770_064, 29.5, 76.9, 4.1, 400),
         SeedRun(2, 5_354_755, 29.5, 78.9, 4.0, 400)),
        "scandal-2p-the-size-generic-recipe-at-2-players",
        "The preset's 29 minutes of PPO follow a warm start of about half a minute (31-33 s; "
        "seeds 0 and 1 side by side, seed 2 alone). The shipped `pretrained:scandal2` is seed 0 "
        "of the preset's former 30 minutes of PPO (5.33M decisions, 30.5 minutes in all; 79.6% "
        "of these deals; that budget's three seeds: 81.07% on the mean). Deep Monte-Carlo "
        "(`dmc_scandal2.yaml`, its `RUN/best_agent`) meets it on the mean (76.9%): 76.5%, "
        "79.5% and 74.6% of the same deals after 29.5-30.5 minutes "
        "([at full length](#at-full-length-2026-12-04)).",
    ),
    Row(
        "Scandal 4p", "heuristic", 60.0, "ppo_scandal_generic.yaml",
        f"`{_SG} --game scandal --players 4 --deals 400 --seed 2000003`", 2_000_003,
        _measured(_SCANDAL_GENERIC, ((64.25, 4.7), (60.5, 4.8), (65.25, 4.7)), 400),
        "scandal-generic-30",
        "One network for 2-6 players, trained at all five sizes at once. The shipped "
        "`pretrained:scandal4` is seed 0 of the preset's former 30 minutes of PPO, run under "
        "load (2.70M decisions; 57.75% of these deals).",
    ),
    Row(
        "Scandal 2p", "ISMCTS (default budget)", 60.0, "ppo_scandal_generic.yaml",
        "`cardsuite tournament scandal --agents ppo:RUN/agent ismcts-batched --players 2 "
        "--games 200 --duplicate --seed 2000003`", 2_000_003,
        _measured(_SCANDAL_GENERIC, ((86.0, 4.8), (83.75, 5.1), (83.5, 5.1)), 200),
        "scandal-generic-30",
        "The same runs as the row above, at 2 players. `ismcts-batched` is the batched "
        "ISMCTS at its default 100 descents, the one the leaderboard seats in Scandal. The "
        "intervals are the normal approximation over the deals.",
    ),
)  # fmt: skip
