"""A tournament's result files (``cardsuite tournament --out DIR``) and its figure.

The folder is checked before any game is played (`check_results_dir`) and
created only when the results are written (`write_results`); if writing
fails, the files and folders this run made are removed again, and a folder
the user made is never removed.
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cardsuite.errors import ConfigError
from cardsuite.safe_yaml import brief

if TYPE_CHECKING:
    from cardsuite.agents.arena.results import TournamentResult

RESULT_FILES = ("results.json", "results.csv", "head_to_head.csv", "results.png")


def check_results_dir(out_dir: str | Path) -> Path:
    """The results folder, checked before any work; nothing is created.

    The folder must not be a file and must not already hold results (a run is
    never overwritten). It, or its nearest existing parent, must be a
    writable folder (probed with a temporary file, removed at once).

    Raises:
        ConfigError: the folder cannot be used; the message names it.
    """
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


def write_results(result: TournamentResult, out_dir: str | Path) -> list[Path]:
    """Write `RESULT_FILES` (each new) into ``out_dir``; on failure remove what this run made."""
    out = check_results_dir(out_dir)
    paths = [out / n for n in RESULT_FILES]
    created = _make_dirs(out)
    written: list[Path] = []
    try:
        _write_files(result, paths, written)
    except BaseException:
        _remove_created(written, created)  # no partial results, no empty folder
        raise
    return paths


def _write_files(result: TournamentResult, paths: Sequence[Path], written: list[Path]) -> None:
    """Write the four result files, each new (mode "x"), noting each in ``written``."""
    summary = result.to_dict()
    with paths[0].open("x", encoding="utf-8") as fh:
        written.append(paths[0])
        fh.write(json.dumps(summary, indent=2) + "\n")
    per_agent = summary["per_agent"]
    columns = list(next(iter(per_agent.values())))
    rows = [[a.name, a.spec, *(per_agent[a.name][c] for c in columns)] for a in result.agents]
    tables = [
        (["agent", "spec", *columns], rows),
        (["agent", *result.names], [[n, *r] for n, r in zip(result.names, result.head_to_head)]),
    ]
    for path, (header, body) in zip(paths[1:3], tables, strict=True):
        with path.open("x", newline="", encoding="utf-8") as fh:
            written.append(path)
            writer = csv.writer(fh)
            writer.writerow(header)
            writer.writerows([["" if v is None else v for v in row] for row in body])
    with paths[3].open("xb") as fh:
        written.append(paths[3])
        result.plot().savefig(fh, format="png", dpi=100)


def plot_result(result: TournamentResult, path: str | Path | None = None) -> Any:
    """Mean score with 95% CI bars beside the head-to-head heatmap (`TournamentResult.plot`)."""
    from matplotlib.figure import Figure  # lazy: matplotlib takes a second to import

    names = result.names
    k = len(names)
    fig = Figure(figsize=(6 + 1.2 * k, 4 + 0.2 * k))
    left, right = fig.subplots(1, 2)
    means = [a.mean_score for a in result.agents]
    errors = [0.0 if a.score_ci is None else a.score_ci for a in result.agents]
    left.bar(range(k), means, yerr=errors, capsize=4, color="tab:blue")
    left.set_xticks(range(k), names, rotation=30, ha="right")
    left.set_ylabel("mean score (95% t interval)")
    left.set_title(f"{result.game}: {len(result.results)} games")
    matrix = np.array([[math.nan if v is None else v for v in row] for row in result.head_to_head])
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
