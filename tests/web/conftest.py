"""Shared fixtures of the web tests: an app client, and a record file to replay."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip(
    "starlette", reason="the web extra is not installed (pip install cardsuite[web])"
)
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx")


@pytest.fixture(scope="session")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A record file of two Scum games (heuristic against random), for the replay tests."""
    from cardsuite.agents.arena.tournament import run_tournament

    path = tmp_path_factory.mktemp("records") / "scum.jsonl"
    run_tournament("scum", ["heuristic", "random"], games=2, seed=5, record=path)
    return path
