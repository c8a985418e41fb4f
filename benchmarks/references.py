"""Throughput of reference card-game environments, for side-by-side ratios.

Each reference plays uniformly random legal games in one library for a
wall-clock budget (``seconds``) or an exact number of agent steps
(``max_steps``) and returns the measured **agent steps per second**.

Conventions shared by every reference (so the numbers are comparable):

* a ``random.Random(seed)`` drives every action choice, and the library's own
  RNG is seeded with the same ``seed`` where it has one;
* actions are drawn uniformly among the legal ones;
* a finished game is reset and play goes on; resets, chance events (deals,
  draws from the stock) and observation building are *timed* but not
  *counted*: only agent decisions count as steps;
* timing uses `time.perf_counter`, read every ``_CLOCK_EVERY`` steps, so a
  time-budgeted run overshoots by a few steps at most (the rate divides by
  the real elapsed time, so this does not bias it);
* the library is imported when measured, so a missing one raises
  `ImportError`, which `measure` reports as ``"not installed"``.

Pin the process to one core from the outside (``taskset -c 0 python -m
benchmarks.references``) or with ``--cpu``.

Versions these were written against (Python 3.11, numpy 2.4.6): rlcard 1.2.0,
open-spiel 2.0.2, pettingzoo 1.27.0 (``pettingzoo[classic]``). ``rlcard.agents``
(not imported here) uses ``distutils``, which is gone from Python 3.12 on.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import math
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

DEFAULT_SECONDS: float = 2.0
"""Default wall-clock budget of one measurement, in seconds."""

_CLOCK_EVERY: int = 64
"""Read the clock once every this many steps (a power of two)."""
_CLOCK_MASK: int = _CLOCK_EVERY - 1

ReferenceBench = Callable[..., float]
"""``f(seconds=2.0, *, max_steps=None, seed=0) -> float``: agent steps per second."""


def _limits(seconds: float, max_steps: int | None) -> tuple[float, int]:
    """``(time budget, step limit)``: exactly ``max_steps`` steps, or ``seconds`` of wall clock."""
    if max_steps is not None:
        if max_steps <= 0:
            raise ValueError(f"max_steps must be positive, got {max_steps}")
        return math.inf, max_steps
    if seconds <= 0:
        raise ValueError(f"seconds must be positive, got {seconds}")
    return seconds, sys.maxsize


def _rate(steps: int, t0: float) -> float:
    """Steps per second since ``t0``, guarding against a zero elapsed time."""
    elapsed = time.perf_counter() - t0
    return steps / elapsed if elapsed > 0 else 0.0


def bench_rlcard(
    env_id: str, seconds: float = DEFAULT_SECONDS, *, max_steps: int | None = None, seed: int = 0
) -> float:
    """Random legal play in ``rlcard.make(env_id)``; every agent step counts."""
    budget, limit = _limits(seconds, max_steps)
    import rlcard  # type: ignore[import-untyped,import-not-found,unused-ignore]

    choice = random.Random(seed).choice
    perf_counter = time.perf_counter
    env = rlcard.make(env_id, config={"seed": seed})
    state, _player = env.reset()
    steps = 0
    t0 = perf_counter()
    deadline = t0 + budget
    while True:
        # ``legal_actions`` is an OrderedDict keyed by action id.
        state, _player = env.step(choice(tuple(state["legal_actions"])))
        steps += 1
        if env.is_over():
            state, _player = env.reset()
        if steps >= limit or (not steps & _CLOCK_MASK and perf_counter() >= deadline):
            return _rate(steps, t0)


def bench_openspiel(
    game_name: str,
    seconds: float = DEFAULT_SECONDS,
    *,
    observe: bool = False,
    max_steps: int | None = None,
    seed: int = 0,
) -> float:
    """Random legal play in an OpenSpiel game.

    Chance nodes (deals, stock draws) are resolved by a uniform choice among
    ``state.legal_actions()``, which equals ``chance_outcomes()`` for both
    ``dou_dizhu`` and ``gin_rummy`` (all their chance outcomes are
    equiprobable); they are timed but not counted. With ``observe``, each
    decision first writes the current player's observation tensor
    (``perfect_recall=False``, i.e. the ``ObservationTensor`` type) into one
    reused buffer via ``observation.set_from`` (the bare run only tests a
    local flag instead).
    """
    budget, limit = _limits(seconds, max_steps)
    import pyspiel  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from open_spiel.python.observation import make_observation  # type: ignore[import-untyped,import-not-found,unused-ignore]

    choice = random.Random(seed).choice
    perf_counter = time.perf_counter
    game = pyspiel.load_game(game_name)
    set_from: Any = None
    if observe:
        kind = pyspiel.IIGObservationType(
            perfect_recall=False,
            public_info=True,
            private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER,
        )
        observation = make_observation(game, kind)
        if observation is None or observation.tensor is None:
            raise RuntimeError(f"{game_name} has no observation tensor")
        set_from = observation.set_from
    state = game.new_initial_state()
    steps = 0
    t0 = perf_counter()
    deadline = t0 + budget
    while True:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            state.apply_action(choice(state.legal_actions()))
        else:
            if observe:
                set_from(state, state.current_player())
            state.apply_action(choice(state.legal_actions()))
            steps += 1
            if steps >= limit or (not steps & _CLOCK_MASK and perf_counter() >= deadline):
                return _rate(steps, t0)


def bench_pettingzoo_leduc(
    seconds: float = DEFAULT_SECONDS,
    *,
    wrapped: bool = True,
    max_steps: int | None = None,
    seed: int = 0,
) -> float:
    """Random legal play in ``leduc_holdem_v4`` through the AEC loop.

    The standard ``agent_iter()`` / ``last()`` / ``step()`` loop; the action is
    drawn uniformly among the ones the ``action_mask`` allows. The
    ``step(None)`` calls that retire finished agents are timed but not counted
    (they are not decisions). ``wrapped`` selects ``env()`` (with PettingZoo's
    default wrappers) rather than ``raw_env()``.
    """
    budget, limit = _limits(seconds, max_steps)
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from pettingzoo.classic import leduc_holdem_v4  # type: ignore[import-untyped,import-not-found,unused-ignore]

    choice = random.Random(seed).choice
    perf_counter = time.perf_counter
    env = leduc_holdem_v4.env() if wrapped else leduc_holdem_v4.raw_env()
    env.reset(seed=seed)
    steps = 0
    t0 = perf_counter()
    deadline = t0 + budget
    while True:
        for _agent in env.agent_iter():
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            mask = observation["action_mask"]
            env.step(choice([a for a in range(len(mask)) if mask[a]]))
            steps += 1
            if steps >= limit or (not steps & _CLOCK_MASK and perf_counter() >= deadline):
                return _rate(steps, t0)
        env.reset()


REFERENCES: dict[str, ReferenceBench] = {
    "rlcard/doudizhu": partial(bench_rlcard, "doudizhu"),
    "rlcard/gin-rummy": partial(bench_rlcard, "gin-rummy"),
    "openspiel/dou_dizhu": partial(bench_openspiel, "dou_dizhu"),
    "openspiel/dou_dizhu+observer": partial(bench_openspiel, "dou_dizhu", observe=True),
    "openspiel/gin_rummy": partial(bench_openspiel, "gin_rummy"),
    "openspiel/gin_rummy+observer": partial(bench_openspiel, "gin_rummy", observe=True),
    "pettingzoo/leduc_holdem_v4.env": partial(bench_pettingzoo_leduc, wrapped=True),
    "pettingzoo/leduc_holdem_v4.raw_env": partial(bench_pettingzoo_leduc, wrapped=False),
}
"""Reference name (``library/env[+variant]``) -> ``f(seconds, *, max_steps, seed)``."""

_DISTRIBUTIONS: dict[str, str] = {
    "rlcard": "rlcard",
    "openspiel": "open-spiel",
    "pettingzoo": "pettingzoo",
}
"""Prefix of a reference name -> the PyPI distribution that provides it."""


@dataclass(frozen=True)
class ReferenceResult:
    """Outcome of one reference measurement.

    ``steps_per_sec`` is ``None`` unless ``status`` is ``"ok"``; otherwise
    ``status`` is ``"not installed"`` or ``"error: ..."``.
    """

    name: str
    version: str | None
    steps_per_sec: float | None
    status: str


def library_version(name: str) -> str | None:
    """Installed version of the library behind reference ``name``, if any."""
    dist = _DISTRIBUTIONS.get(name.split("/", 1)[0])
    if dist is None:
        return None
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def measure(
    name: str, seconds: float = DEFAULT_SECONDS, *, max_steps: int | None = None, seed: int = 0
) -> ReferenceResult:
    """Run reference ``name`` and wrap its rate, never raising for a bad library.

    A missing library (``ImportError``) gives status ``"not installed"``; any
    other exception from the library gives ``"error: <type>: <message>"`` so
    that one broken reference does not abort a comparison run. An unknown
    ``name`` (``KeyError``) or a non-positive budget (``ValueError``) raises.
    """
    _limits(seconds, max_steps)
    bench = REFERENCES[name]
    version = library_version(name)
    try:
        rate = bench(seconds, max_steps=max_steps, seed=seed)
    except ImportError:
        return ReferenceResult(name, version, None, "not installed")
    except Exception as exc:  # reported in the table, not raised
        return ReferenceResult(name, version, None, f"error: {type(exc).__name__}: {exc}")
    return ReferenceResult(name, version, rate, "ok")


def measure_all(
    names: Sequence[str] | None = None,
    seconds: float = DEFAULT_SECONDS,
    *,
    max_steps: int | None = None,
    seed: int = 0,
) -> list[ReferenceResult]:
    """Measure each reference in ``names`` (all of them by default), in order."""
    return [
        measure(name, seconds, max_steps=max_steps, seed=seed)
        for name in (names if names is not None else REFERENCES)
    ]


def format_table(results: Sequence[ReferenceResult]) -> str:
    """Render results as a plain-text table (name, version, steps/s, status)."""
    rows = [("reference", "version", "steps/s", "status")]
    for r in results:
        rate = f"{r.steps_per_sec:,.0f}" if r.steps_per_sec is not None else "-"
        rows.append((r.name, r.version or "-", rate, r.status))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [
        f"{a.ljust(widths[0])}  {b.ljust(widths[1])}  {c.rjust(widths[2])}  {d}".rstrip()
        for a, b, c, d in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point: measure references and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"references (default: all): {', '.join(REFERENCES)}",
    )
    parser.add_argument(
        "--seconds", type=float, default=DEFAULT_SECONDS, help="budget per reference (%(default)s)"
    )
    parser.add_argument("--max-steps", type=int, help="run exactly this many agent steps instead")
    parser.add_argument("--seed", type=int, default=0, help="RNG seed")
    parser.add_argument("--cpu", type=int, help="pin this process to one CPU (like `taskset -c N`)")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in REFERENCES]
    if unknown:
        parser.error(f"unknown reference(s): {', '.join(unknown)}")
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    print(f"python {sys.version.split()[0]}, cpus {sorted(os.sched_getaffinity(0))}")
    print(
        format_table(
            measure_all(args.names or None, args.seconds, max_steps=args.max_steps, seed=args.seed)
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
