"""A tiny run of the load test (``benchmarks/web_load.py``): 3 clients for 3 seconds, no errors."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed")
pytest.importorskip("httpx", reason="the load test needs httpx")

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "web_load.py"


def test_the_load_script_plays_and_watches_without_errors(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("web_load", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "load.json"
    assert module.main(["--clients", "3", "--seconds", "3", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["errors"] == {} and report["requests"] > 3
    assert report["p50_ms"] <= report["p99_ms"]
    assert report["server_rss_mb_start"] > 0 and report["server_rss_mb_end"] > 0
