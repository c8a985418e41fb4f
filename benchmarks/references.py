"""Throughput of reference card-game environments, for side-by-side ratios.

Each reference plays uniformly random legal games for ``seconds`` or exactly ``max_steps``
agent steps and returns agent steps per second, under the conventions of
``benchmarks/README.md``. Written against rlcard 1.2.0, open-spiel 2.0.2 and pettingzoo
1.27.0 (Python 3.11).
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

import numpy as np

DEFAULT_SECONDS: float = 2.0
"""Default wall-clock budget of one measurement, in seconds."""

CLOCK_MASK: int = 63
"""Read the clock once every ``CLOCK_MASK + 1`` steps (a power of two)."""

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
        if steps >= limit or (not steps & CLOCK_MASK and perf_counter() >= deadline):
            return _rate(steps, t0)


def bench_openspiel(
    game_name: str,
    seconds: float = DEFAULT_SECONDS,
    *,
    observe: bool = False,
    max_steps: int | None = None,
    seed: int = 0,
) -> float:
    """Random legal play in an OpenSpiel game (chance nodes: a uniform legal choice); with
    ``observe``, each decision first writes the player's ``ObservationTensor`` into one buffer."""
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
            if steps >= limit or (not steps & CLOCK_MASK and perf_counter() >= deadline):
                return _rate(steps, t0)


def bench_aec(
    make: Callable[[], Any],
    seconds: float = DEFAULT_SECONDS,
    *,
    max_steps: int | None = None,
    seed: int = 0,
) -> float:
    """Random legal play through a PettingZoo AEC env, the ``agent_iter()`` / ``last()`` /
    ``step()`` loop (the ``step(None)`` of finished agents timed, not counted)."""
    budget, limit = _limits(seconds, max_steps)
    randrange = random.Random(seed).randrange
    flatnonzero = np.flatnonzero
    perf_counter = time.perf_counter
    env = make()
    env.reset(seed=seed)
    steps = 0
    t0 = perf_counter()
    deadline = t0 + budget
    while True:
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = flatnonzero(obs["action_mask"])
            env.step(int(legal[randrange(len(legal))]))
            steps += 1
            if steps >= limit or (not steps & CLOCK_MASK and perf_counter() >= deadline):
                return _rate(steps, t0)
        env.reset()


def bench_pettingzoo_leduc(
    seconds: float = DEFAULT_SECONDS,
    *,
    wrapped: bool = True,
    max_steps: int | None = None,
    seed: int = 0,
) -> float:
    """Random legal play in ``leduc_holdem_v4`` (``env()`` with PettingZoo's wrappers, or
    ``raw_env()``) through the AEC loop."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from pettingzoo.classic import leduc_holdem_v4  # type: ignore[import-untyped,import-not-found,unused-ignore]

    make = leduc_holdem_v4.env if wrapped else leduc_holdem_v4.raw_env
    return bench_aec(make, seconds, max_steps=max_steps, seed=seed)


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
    """Outcome of one reference measurement (``steps_per_sec`` is None unless ``status`` is "ok")."""

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
    """Run reference ``name`` and wrap its rate: a missing library gives ``"not installed"``,
    another error ``"error: <type>: <message>"``; an unknown ``name`` or a bad budget raises."""
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
