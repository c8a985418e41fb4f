"""Smoke run of the batched benchmark for every engine (no timing is asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import batched_bench


@pytest.mark.parametrize(("game", "players"), [("scum", "4"), ("party", "8"), ("scandal", "2")])
def test_batched_bench_measures_every_engine(game: str, players: str, tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    argv = ["--game", game, "--players", players, "--sizes", "1", "4", "--seconds", "0.01",
            "--shards", "2", "--no-torch", "--no-references", "--out", str(out)]  # fmt: skip
    assert batched_bench.main(argv) == 0
    rows = json.loads(out.read_text())["batched"]
    assert {r["backend"] for r in rows} == {"numpy", "numpyx2"}
    assert all(r["steps_per_s"] > 0 and r["state_bytes_per_game"] > 0 for r in rows)


def test_batched_bench_profiles_party() -> None:
    text = batched_bench.profile_numpy("party", 8, {"num_players": 16}, steps=2)
    assert "engine" in text and "random policy" in text
