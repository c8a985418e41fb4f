"""The citable results table of ``docs/results.md``, rendered (`table`) from the measurements
in ``configs/results/citable.yaml`` (`load_record`, checked field by field)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from cardsuite.agents.arena.stats import mean_ci
from cardsuite.config import read_yaml_mapping
from cardsuite.errors import ConfigError

#: The data file (a shipped config: ``configs/results/citable.yaml``).
DATA = "results/citable"

#: The wall-time limit of a preset's training, in minutes.
MINUTES_LIMIT = 30.0


@dataclass(frozen=True)
class SeedRun:
    """One training seed's run: ``decisions`` trained, wall ``minutes`` (warm start included), the
    percent of ``deals`` duplicate deals ``won`` (ties one half) and its 95% ``half_width``."""

    seed: int
    decisions: int
    minutes: float
    won: float
    half_width: float
    deals: int


@dataclass(frozen=True)
class Row:
    """One target: the ``game`` and table size, the ``opponent``, the ``target`` percent of
    deals, the ``preset`` under ``configs/train/`` that trains it (`train`), how a run's
    agent is measured (``measure``, Markdown) on deals of ``deal_seed``, the seeds'
    ``runs``, the ``section`` anchor in ``docs/results.md`` and a ``note``."""

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
        return mean_ci([r.won for r in self.runs])[1] or 0.0

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


def _pct(x: float) -> str:
    text = f"{x:.2f}"
    return (text[:-1] if text.endswith("0") else text) + "%"


def table(rows: tuple[Row, ...] | None = None) -> str:
    """The Markdown table of ``rows`` (default `RECORD`), then each row's commands and notes."""
    rows = load_record() if rows is None else rows
    head = (
        "| # | game | opponent | preset | seeds | decisions | minutes | won, per seed (± 95%) "
        "| mean (± 95% over seeds) | target | met |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for i, row in enumerate(rows, 1):
        seeds = ", ".join(str(r.seed) for r in row.runs)
        decisions = " / ".join(f"{r.decisions / 1e6:.2f}M" for r in row.runs)
        minutes = " / ".join(f"{r.minutes:.1f}" for r in row.runs)
        won = " / ".join(f"{_pct(r.won)} ± {r.half_width:.1f}" for r in row.runs)
        won += f" ({'/'.join(str(d) for d in sorted({r.deals for r in row.runs}))} deals)"
        mean = f"**{_pct(row.mean())}** ± {row.seed_half_width():.1f}"
        lines.append(
            f"| {i} | [{row.game}](#{row.section}) | {row.opponent} | `{row.preset}` | {seeds} "
            f"| {decisions} | {minutes} | {won} | {mean} | ≥ {_pct(row.target)} "
            f"| {row.verdict()} |"
        )
    lines.append("")
    for i, row in enumerate(rows, 1):
        over = ", ".join(f"{r.seed} ({r.minutes:.1f} min)" for r in row.over_time())
        late = f" Over the {MINUTES_LIMIT:.0f}-minute limit: seed {over}." if over else ""
        lines.append(
            f"{i}. Train: `{row.train}`. Measure: {row.measure} (deals of seed "
            f"{row.deal_seed:,}). Mean from the deals alone: ± "
            f"{row.deal_half_width():.1f}.{late}" + (f" {row.note}" if row.note else "")
        )
    return "\n".join(lines)


def _checked(raw: Any, cls: type, where: str) -> dict[str, Any]:
    """``raw``'s fields for dataclass ``cls``: every field given (but those with a default),
    of its type (an int is a float); ConfigError naming the field otherwise."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: expected a mapping, got {type(raw).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.name != "runs"}
    for key in raw:
        if key not in fields and key != "runs":
            raise ConfigError(f"{where}: unknown field {key!r}")
    out = {}
    for name, f in fields.items():
        if name not in raw and f.default is not dataclasses.MISSING:
            continue
        value, kind = raw.get(name), {"int": int, "float": float, "str": str}[str(f.type)]
        if isinstance(value, bool) or not isinstance(
            value, (int, float) if kind is float else kind
        ):
            raise ConfigError(f"{where}.{name}: expected {kind.__name__}, got {value!r}")
        out[name] = kind(value)
    return out


@cache
def load_record(path: str = DATA) -> tuple[Row, ...]:
    """The rows of the data file (module doc), checked field by field (ConfigError)."""
    rows = read_yaml_mapping(path).get("rows")
    if not isinstance(rows, list) or not rows:
        raise ConfigError(f"{path}: 'rows' must list the measured rows")
    record = []
    for i, raw in enumerate(rows):
        where = f"{path}: rows[{i}]"
        runs = raw.get("runs") if isinstance(raw, Mapping) else None
        if not isinstance(runs, list) or not runs:
            raise ConfigError(f"{where}.runs: must list each seed's run")
        seeds = []
        for j, run in enumerate(runs):
            if not isinstance(run, list) or len(run) != 6:
                raise ConfigError(f"{where}.runs[{j}]: expected [seed, decisions, minutes, "
                                  "won, half_width, deals]")  # fmt: skip
            names = [f.name for f in dataclasses.fields(SeedRun)]
            seeds.append(SeedRun(**_checked(dict(zip(names, run)), SeedRun, f"{where}.runs[{j}]")))
        record.append(Row(**_checked(raw, Row, where), runs=tuple(seeds)))
    return tuple(record)


def __getattr__(name: str) -> Any:
    """``RECORD``: the measured rows (`load_record`), read when first asked for."""
    if name == "RECORD":
        return load_record()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
