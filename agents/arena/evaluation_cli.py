"""``cardsuite benchmark SPEC --game G --players N``: a standard, versioned evaluation of one agent.

Writes ``benchmark.json`` and a Markdown card into a new ``--out`` folder (``docs/benchmark.md``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cardsuite.agents.arena import deal_sets, evaluation
from cardsuite.agents.arena.cli import GAME_HELP, command_parser, no_extra
from cardsuite.agents.arena.deal_sets import QUICK_BUDGET, QUICK_DEALS, stale_text
from cardsuite.agents.arena.evaluation import RESAMPLES, calibrate, run_benchmark
from cardsuite.errors import ConfigError
from cardsuite.moved import moved_getattr, moved_table
from cardsuite.runlock import RunLock
from cardsuite.safe_json import write_json_atomic

#: What a benchmark folder holds.
RESULT_FILES = ("benchmark.json", "benchmark.md")

# The other names of 0.2's ``cardsuite.agents.benchmark``, by their home now, with a warning (PEP 562).
__getattr__ = moved_getattr(
    __name__,
    moved_table(
        deal_sets,
        "PROTOCOL PROTOCOLS DealSet deal_set_names load_deal_set stale_references deal_set_hash",
        "deal_set_data reference_pool pool_ismcts quick_ismcts baseline_ismcts reference_pool_now",
        "engine_hash source_tree_hash agent_hash",
    )
    | moved_table(evaluation, "VersusReference play_reference benchmark_rating"),
)


def to_markdown(report: dict[str, Any], command: str) -> str:
    """The report as a Markdown card a paper can paste."""
    ds = report["deal_set"]
    lines = [
        f"### Benchmark of `{report['agent']}`: {report['game']}, {report['players']} players",
        "",
    ]
    if not report["citable"]:
        why = "QUICK RUN" if report["quick"] else "NON-STANDARD RUN"
        lines += [
            f"> **{why}: not citable.** {ds['deals']} deals"
            + (f", ISMCTS at `{report['ismcts']}`" if report["quick"] else "")
            + f"; the protocol's run plays {report['deals_for_5_points']}+ deals "
            "(`cardsuite benchmark` without `--quick`).",
            "",
        ]
    lines += [
        f"Protocol `{report['protocol']}`, cardsuite {report['cardsuite']}; deal set "
        f"`{ds['name']}`: {ds['deals']} duplicate deals (every seat rotation), seed {ds['seed']}"
        + (f", SHA-256 `{ds['sha256'][:16]}…`" if ds["sha256"] else "")
        + ".",
        "",
        "| reference | deals won | 95% interval | mean points | 95% interval "
        "| reference's mean points | reference's calibrated rating |",
        "|---|---|---|---|---|---|---|",
    ]
    r = report["rating"]
    calibrated = r.get("reference_ratings", {})
    for row in report["versus"]:
        known = calibrated.get(row["reference"])
        lines.append(
            f"| `{row['reference']}` | {100 * row['deals_won']:.1f}% "
            f"| {100 * row['deals_won_low']:.1f} to {100 * row['deals_won_high']:.1f} "
            f"| {row['mean_points']:.3f} | {row['mean_points_low']:.3f} to {row['mean_points_high']:.3f} "
            f"| {row['reference_mean_points']:.3f} "
            f"| {'uncalibrated' if known is None else f'{known:.0f}'} |"
        )
    lines += _calibration_lines(report)
    rating = (
        f"Rating: **{r['elo']:.0f}** (95% interval {r['low']:.0f} to {r['high']:.0f}), {r['scale']}; "
        if r["elo"] is not None
        else "Rating: none; "
    )
    lines += [
        "",
        rating + f"{r['basis']}.",
        "",
        "Deals won: share of deals on which the agent's mean return over its seats beat the "
        "reference's (ties half). Mean points: the agent's mean return per deal. Intervals: "
        f"{report['interval']}, {report['resamples']} resamples.",
        "",
        f"Rules engine (SHA-256 of its package's source): `{report['engine_sha256'][:16]}…`.",
        "",
        "Reference agents (SHA-256 of spec, code and weights):",
        "",
    ]
    lines += [
        f"- `{row['reference']}`: `{row['reference_sha256'][:16]}…`" for row in report["versus"]
    ]
    lines += ["", f"Command: `{command}`", ""]
    return "\n".join(lines)


def _calibration_lines(report: dict[str, Any]) -> list[str]:
    """The card's lines on the references' calibration: which lack one and why, how it was made."""
    r, ds = report["rating"], report["deal_set"]
    kind = r.get("calibration", "quick" if report["quick"] else "full")
    missing = r.get("uncalibrated", [])
    stale = r.get("stale_weights", {})
    lines = []
    if missing:
        names = ", ".join(f"`{m}`" for m in missing)
        absent = ", ".join(f"`{m}`" for m in missing if m not in stale)
        reasons = (
            [f"Deal set `{ds['name']}` stores no {kind}-run rating for {absent}."] if absent else []
        )
        reasons += [
            stale_text(m, w["calibrated"], w["now"], "`") + ", so its stored rating is not its own."
            for m, w in stale.items()
        ]
        lines += [
            "",
            f"**Uncalibrated references: {names}.** " + " ".join(reasons) + " So this card gives "
            f"no rating; the shares and points above stand on their own ({ds['deals']} deals "
            "against each reference).",
        ]
    if r.get("calibration_deals"):
        lines += [
            "",
            f"Reference ratings: calibrated by a round-robin of the {kind} pool on "
            f"{r['calibration_deals']} deals per pair of this deal set.",
        ]
    return lines


def check_out_dir(out: str | Path, files: Sequence[str] = RESULT_FILES) -> Path:
    """A folder for the results: new, or existing without ``files`` (never overwritten)."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--out {str(path)!r} is a file; give a folder")
    clash = [name for name in files if (path / name).exists()]
    if clash:
        raise ConfigError(f"--out {str(path)!r} already holds {clash[0]}; choose a new folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(f"cannot create --out {str(path)!r}: {err.strerror or err}") from None
    return path


def add_command(sub: Any) -> tuple[str, Any]:
    """The ``cardsuite benchmark`` subcommand (``cardsuite.commands`` entry point)."""
    command_parser(
        sub,
        "benchmark",
        "the standard evaluation of one agent: fixed deals, a reference pool, a citable card",
        __doc__.split("\n\n")[0],
        spec=(
            "the agent under test (any agent spec, e.g. 'exec:python3 bot.py')",
            {"flag": "spec", "nargs": "?", "default": None},
        ),
        calibrate=(
            "rate the reference pool on the deal set instead (maintainers: "
            "writes calibration.json into --out)",
            {"action": "store_true"},
        ),
        game=(GAME_HELP, {"required": True}),
        players=("seats (a shipped deal set)", {"required": True}),
        quick=(
            f"first {QUICK_DEALS} deals, the pool's ISMCTS at budget={QUICK_BUDGET}: "
            "a smoke test, not citable",
            {"action": "store_true"},
        ),
        ismcts="another ISMCTS spec for the pool (not citable)",
        workers="worker processes",
        out="a new folder for benchmark.json and benchmark.md",
        resamples=("bootstrap resamples", {"default": RESAMPLES}),
        no_progress="no progress bars",
        checkpoint="with --calibrate: a JSON-lines file of finished pairs; a rerun plays only "
        "the pairs not in it (default: OUT/calibration_pairs.jsonl, so the same command "
        "run again after an interruption plays only the rest)",
    )
    return "benchmark", run


def run(ns: argparse.Namespace, extra: list[str]) -> int:
    """Benchmark the agent (or calibrate the pool); print the card, write the files asked for."""
    no_extra(
        extra,
        " (the benchmark's rules are fixed by its deal set; use cardsuite tournament for "
        "other rules)",
    )
    if ns.resamples < 1:
        raise ConfigError(f"--resamples must be at least 1, got {ns.resamples}")
    if ns.calibrate:
        return _run_calibrate(ns)
    if ns.checkpoint:
        raise ConfigError("--checkpoint is for --calibrate (a benchmark run takes minutes)")
    if ns.spec is None:
        raise ConfigError(
            "give the agent to benchmark: cardsuite benchmark SPEC --game G --players N"
        )
    out = check_out_dir(ns.out) if ns.out else None
    with RunLock(out, "cardsuite benchmark") if out else contextlib.nullcontext():  # one writer
        if ns.quick:
            print("benchmark: QUICK run: a smoke test, not citable", file=sys.stderr)
        report = run_benchmark(
            ns.spec,
            ns.game,
            ns.players,
            quick=ns.quick,
            ismcts=ns.ismcts,
            workers=ns.workers,
            progress=not ns.no_progress,
            resamples=ns.resamples,
        )
        words = ["cardsuite benchmark", shlex.quote(ns.spec), "--game", report["game"]]
        words += ["--players", str(ns.players)] + ["--quick"] * ns.quick
        command = " ".join(words + (["--ismcts", ns.ismcts] if ns.ismcts else []))
        report["command"] = command
        card = to_markdown(report, command)
        print(card)
        if out is not None:
            write_json_atomic(out / "benchmark.json", report, allow_nan=True)
            (out / "benchmark.md").write_text(card, "utf-8")
            print(f"wrote {out / 'benchmark.json'} and {out / 'benchmark.md'}")
    return 0


def _run_calibrate(ns: argparse.Namespace) -> int:
    """``cardsuite benchmark --calibrate``: the pool's round-robin, written to --out/calibration.json."""
    if ns.spec is not None or ns.ismcts:
        raise ConfigError("--calibrate rates the protocol's own pool: give no SPEC and no --ismcts")
    if not ns.out:
        raise ConfigError("--calibrate needs --out DIR (a new folder for calibration.json)")
    out = check_out_dir(ns.out, ("calibration.json", *RESULT_FILES))
    checkpoint = Path(ns.checkpoint or out / "calibration_pairs.jsonl")
    result = calibrate(
        ns.game,
        ns.players,
        quick=ns.quick,
        workers=ns.workers,
        progress=not ns.no_progress,
        resamples=ns.resamples,
        checkpoint=checkpoint,
    )
    write_json_atomic(out / "calibration.json", result, allow_nan=True)
    print(json.dumps({k: v for k, v in result.items() if k != "leaderboard"}, indent=1))
    print(
        f"wrote {out / 'calibration.json'}: paste the first four entries into the deal set's file"
    )
    return 0
