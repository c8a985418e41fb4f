"""Run the fuzzer by hand: ``python -m tests.fuzz.run --steps 1000000 [--family scum]``.

Prints one line per family (steps, episodes, illegal actions refused,
observations checked, time) and exits 1 with the failure's message if an
invariant breaks.
"""

from __future__ import annotations

import argparse
import sys

from tests.fuzz.fuzz import FAMILIES, FuzzFailure, FuzzReport, fuzz_family


def main(argv: list[str] | None = None) -> int:
    """Fuzz the chosen families; 0 if every invariant held."""
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz.run", description=__doc__)
    parser.add_argument("--steps", type=int, default=1_000_000, help="steps per family")
    parser.add_argument("--family", choices=sorted(FAMILIES), action="append", help="repeatable")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--illegal-rate", type=float, default=0.05)
    args = parser.parse_args(argv)

    def progress(report: FuzzReport) -> None:
        print(f"  ... {report.line()}", file=sys.stderr, flush=True)

    for family in args.family or sorted(FAMILIES):
        try:
            report = fuzz_family(
                family, args.steps, seed=args.seed, illegal_rate=args.illegal_rate,
                progress=progress,
            )  # fmt: skip
        except FuzzFailure as err:
            print(f"FAIL {err}", flush=True)
            return 1
        print(report.line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
