"""Random-play fuzzing of every game family (see `tests.fuzz.fuzz`).

The default run plays a few thousand steps per family; ``-m exhaustive`` plays
the full 10^6 steps per family (issue 12), as does ``python -m tests.fuzz.run``.
"""

from __future__ import annotations

import pytest

from tests.fuzz.fuzz import FAMILIES, fuzz_family

BOUNDED_STEPS = 3_000
FULL_STEPS = 1_000_000


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_bounded_fuzz(family: str) -> None:
    report = fuzz_family(family, BOUNDED_STEPS, seed=1)
    assert report.steps >= BOUNDED_STEPS and report.illegal_tried > 0
    assert report.obs_checked >= report.steps


@pytest.mark.exhaustive
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_full_fuzz(family: str) -> None:
    report = fuzz_family(family, FULL_STEPS, seed=2)
    assert report.steps >= FULL_STEPS
    assert len(report.per_variant) == len(FAMILIES[family]())  # every variant was played
