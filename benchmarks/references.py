"""Throughput of reference card-game environments, for side-by-side ratios.

Each ``bench_*`` function plays uniformly random legal games in one reference
library for a wall-clock budget (``seconds``) or an exact number of agent
steps (``max_steps``) and returns the measured **agent steps per second**.

Conventions shared by every function (so the numbers are comparable):

* a ``random.Random(seed)`` drives every action choice, and the library's own
  RNG is seeded with the same ``seed`` where it has one;
* actions are drawn uniformly among the legal ones;
* a finished game is reset and play goes on; resets, chance events (deals,
  draws from the stock) and observation building are *timed* but not
  *counted*: only agent decisions count as steps;
* timing uses `time.perf_counter`; the clock is read every
  ``_CLOCK_EVERY`` steps, so a time-budgeted run overshoots by a few steps at
  most (the rate divides by the real elapsed time, so this does not bias it);
* the library is imported inside the function, so a missing one raises
  `ImportError`, which `measure` reports as ``"not installed"``.

Pin the process to one core from the outside (``taskset -c 0 python -m
benchmarks.references``) or with ``--cpu``.

Versions these were written against (Python 3.11, numpy 2.4.6): rlcard 1.2.0,
open-spiel 2.0.2, pettingzoo 1.27.0 (``pettingzoo[classic]``). RLCard 1.2.0
needs no numpy shim for the code paths used here (``rlcard.make`` and the
doudizhu / gin-rummy / leduc-holdem envs use no removed numpy alias); note
that ``rlcard.agents`` (not imported here) uses ``distutils``, which is gone
from Python 3.12 on.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import math
import os
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

DEFAULT_SECONDS: float = 2.0
"""Default wall-clock budget of one measurement, in seconds."""

_CLOCK_EVERY: int = 64
"""Read the clock once every this many steps (a power of two)."""
_CLOCK_MASK: int = _CLOCK_EVERY - 1


class ReferenceBench(Protocol):
    """Signature shared by every reference benchmark function."""

    def __call__(
        self,
        seconds: float = DEFAULT_SECONDS,
        *,
        max_steps: int | None = None,
        seed: int = 0,
    ) -> float:
        """Play random legal games and return agent steps per second."""
        ...


def _limits(seconds: float, max_steps: int | None) -> tuple[float, int]:
    """Return ``(time budget, step limit)`` for one measurement.

    With ``max_steps`` the run is exactly that many agent steps and has no time
    limit; otherwise it runs for ``seconds`` of wall-clock time.
    """
    if max_steps is not None:
        if max_steps <= 0:
            raise ValueError(f"max_steps must be positive, got {max_steps}")
        return math.inf, max_steps
    if seconds <= 0:
        raise ValueError(f"seconds must be positive, got {seconds}")
    return seconds, sys.maxsize


def _rate(steps: int, elapsed: float) -> float:
    """Return steps per second, guarding against a zero elapsed time."""
    return steps / elapsed if elapsed > 0 else 0.0


# --------------------------------------------------------------------------
# RLCard (native API)
# --------------------------------------------------------------------------


def _bench_rlcard(env_id: str, seconds: float, max_steps: int | None, seed: int) -> float:
    """Random legal play in ``rlcard.make(env_id)``; every agent step counts."""
    budget, limit = _limits(seconds, max_steps)
    import rlcard  # type: ignore[import-untyped,import-not-found,unused-ignore]

    rng = random.Random(seed)
    choice = rng.choice
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
            break
    return _rate(steps, perf_counter() - t0)


def bench_rlcard_doudizhu(
    seconds: float = DEFAULT_SECONDS, *, max_steps: int | None = None, seed: int = 0
) -> float:
    """RLCard ``doudizhu``: agent steps per second under random legal play."""
    return _bench_rlcard("doudizhu", seconds, max_steps, seed)


def bench_rlcard_gin_rummy(
    seconds: float = DEFAULT_SECONDS, *, max_steps: int | None = None, seed: int = 0
) -> float:
    """RLCard ``gin-rummy``: agent steps per second under random legal play."""
    return _bench_rlcard("gin-rummy", seconds, max_steps, seed)


# --------------------------------------------------------------------------
# OpenSpiel (pyspiel)
# --------------------------------------------------------------------------


def _bench_openspiel(
    game_name: str,
    seconds: float,
    max_steps: int | None,
    seed: int,
    *,
    observe: bool,
) -> float:
    """Random legal play in an OpenSpiel game.

    Chance nodes (deals, stock draws) are resolved by a uniform choice among
    ``state.legal_actions()``, which equals ``chance_outcomes()`` for both
    ``dou_dizhu`` and ``gin_rummy`` (all their chance outcomes are
    equiprobable); they are timed but not counted. With ``observe``, each
    decision first writes the current player's observation tensor
    (``perfect_recall=False``, i.e. the ``ObservationTensor`` type) into one
    reused buffer (``observation.tensor``) via ``observation.set_from``.
    """
    budget, limit = _limits(seconds, max_steps)
    import pyspiel  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from open_spiel.python.observation import make_observation  # type: ignore[import-untyped,import-not-found,unused-ignore]

    rng = random.Random(seed)
    choice = rng.choice
    perf_counter = time.perf_counter
    game = pyspiel.load_game(game_name)
    observation: Any = None
    if observe:
        observation = make_observation(
            game,
            pyspiel.IIGObservationType(
                perfect_recall=False,
                public_info=True,
                private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER,
            ),
        )
        if observation is None or observation.tensor is None:
            raise RuntimeError(f"{game_name} has no observation tensor")
    state = game.new_initial_state()
    steps = 0
    t0 = perf_counter()
    deadline = t0 + budget
    if observe:
        set_from = observation.set_from
        while True:
            if state.is_terminal():
                state = game.new_initial_state()
            elif state.is_chance_node():
                state.apply_action(choice(state.legal_actions()))
            else:
                set_from(state, state.current_player())
                state.apply_action(choice(state.legal_actions()))
                steps += 1
                if steps >= limit or (not steps & _CLOCK_MASK and perf_counter() >= deadline):
                    break
    else:
        while True:
            if state.is_terminal():
                state = game.new_initial_state()
            elif state.is_chance_node():
                state.apply_action(choice(state.legal_actions()))
            else:
                state.apply_action(choice(state.legal_actions()))
                steps += 1
                if steps >= limit or (not steps & _CLOCK_MASK and perf_counter() >= deadline):
                    break
    return _rate(steps, perf_counter() - t0)


def bench_openspiel_dou_dizhu(
    seconds: float = DEFAULT_SECONDS, *, max_steps: int | None = None, seed: int = 0
) -> float:
    """OpenSpiel ``dou_dizhu``, bare: apply random legal actions."""
    return _bench_openspiel("dou_dizhu", seconds, max_steps, seed, observe=False)


def bench_openspiel_dou_dizhu_observer(
    seconds: float = DEFAULT_SECONDS, *, max_steps: int | None = None, seed: int = 0
) -> float:
    """OpenSpiel ``dou_dizhu``, writing the observation tensor every step."""
    return _bench_openspiel("dou_dizhu", seconds, max_steps, seed, observe=True)


def bench_openspiel_gin_rummy(
    seconds: float = DEFAULT_SECONDS, *, max_steps: int | None = None, seed: int = 0
) -> float:
    """OpenSpiel ``gin_rummy``, bare: apply random legal actions."""
    return _bench_openspiel("gin_rummy", seconds, max_steps, seed, observe=False)


def bench_openspiel_gin_rummy_observer(
    seconds: float = DEFAULT_SECONDS, *, max_steps: int | None = None, seed: int = 0
) -> float:
    """OpenSpiel ``gin_rummy``, writing the observation tensor every step."""
    return _bench_openspiel("gin_rummy", seconds, max_steps, seed, observe=True)


# --------------------------------------------------------------------------
# PettingZoo (AEC API)
# --------------------------------------------------------------------------


def _bench_pettingzoo_leduc(
    seconds: float, max_steps: int | None, seed: int, *, wrapped: bool
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

    rng = random.Random(seed)
    choice = rng.choice
    perf_counter = time.perf_counter
    env = leduc_holdem_v4.env() if wrapped else leduc_holdem_v4.raw_env()
    env.reset(seed=seed)
    steps = 0
    t0 = perf_counter()
    deadline = t0 + budget
    done = False
    while not done:
        for _agent in env.agent_iter():
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            mask = observation["action_mask"]
            env.step(choice([a for a in range(len(mask)) if mask[a]]))
            steps += 1
            if steps >= limit or (not steps & _CLOCK_MASK and perf_counter() >= deadline):
                done = True
                break
        else:
            env.reset()
    return _rate(steps, perf_counter() - t0)


def bench_pettingzoo_leduc_env(
    seconds: float = DEFAULT_SECONDS, *, max_steps: int | None = None, seed: int = 0
) -> float:
    """PettingZoo ``leduc_holdem_v4.env()`` (wrapped): agent steps per second."""
    return _bench_pettingzoo_leduc(seconds, max_steps, seed, wrapped=True)


def bench_pettingzoo_leduc_raw_env(
    seconds: float = DEFAULT_SECONDS, *, max_steps: int | None = None, seed: int = 0
) -> float:
    """PettingZoo ``leduc_holdem_v4.raw_env()`` (unwrapped): steps per second."""
    return _bench_pettingzoo_leduc(seconds, max_steps, seed, wrapped=False)


# --------------------------------------------------------------------------
# Registry and runner
# --------------------------------------------------------------------------

REFERENCES: dict[str, ReferenceBench] = {
    "rlcard/doudizhu": bench_rlcard_doudizhu,
    "rlcard/gin-rummy": bench_rlcard_gin_rummy,
    "openspiel/dou_dizhu": bench_openspiel_dou_dizhu,
    "openspiel/dou_dizhu+observer": bench_openspiel_dou_dizhu_observer,
    "openspiel/gin_rummy": bench_openspiel_gin_rummy,
    "openspiel/gin_rummy+observer": bench_openspiel_gin_rummy_observer,
    "pettingzoo/leduc_holdem_v4.env": bench_pettingzoo_leduc_env,
    "pettingzoo/leduc_holdem_v4.raw_env": bench_pettingzoo_leduc_raw_env,
}
"""Reference name -> benchmark function (``library/env[+variant]``)."""

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
    name: str,
    seconds: float = DEFAULT_SECONDS,
    *,
    max_steps: int | None = None,
    seed: int = 0,
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
    lines = []
    for i, row in enumerate(rows):
        lines.append(
            "  ".join(
                [
                    row[0].ljust(widths[0]),
                    row[1].ljust(widths[1]),
                    row[2].rjust(widths[2]),
                    row[3],
                ]
            ).rstrip()
        )
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point: measure references and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"references to run (default: all): {', '.join(REFERENCES)}",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=DEFAULT_SECONDS,
        help="wall-clock budget per reference (default: %(default)s)",
    )
    parser.add_argument(
        "--max-steps",
        type=int,
        default=None,
        help="run exactly this many agent steps instead of a time budget",
    )
    parser.add_argument("--seed", type=int, default=0, help="RNG seed")
    parser.add_argument(
        "--cpu",
        type=int,
        default=None,
        help="pin this process to one CPU (like `taskset -c N`)",
    )
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in REFERENCES]
    if unknown:
        parser.error(f"unknown reference(s): {', '.join(unknown)}")
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    print(f"python {sys.version.split()[0]}, cpus {sorted(os.sched_getaffinity(0))}")
    results = []
    for name in args.names or REFERENCES:
        results.append(measure(name, args.seconds, max_steps=args.max_steps, seed=args.seed))
    print(format_table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
