"""The quickstart notebook runs top to bottom with tiny budgets (CARDSUITE_QUICK=1).

It is built from docs/tutorial.md (notebooks/build.py): play, train with
cardsuite ppo's Python entry on the preset loaded by name, benchmark a strategy
written in the notebook against the trained and the shipped agents, read the results.
"""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).parents[2] / "notebooks" / "quickstart.ipynb"


def test_quickstart_notebook_executes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    monkeypatch.setenv("CARDSUITE_QUICK", "1")
    monkeypatch.setenv("CARDSUITE_RUN_DIR", str(tmp_path / "run"))
    monkeypatch.chdir(tmp_path)  # a notebook outside any checkout
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    outputs = "".join(
        out.get("text", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
    )
    assert "players" in outputs  # the preset read by name: "6 players"
    assert "head-to-head" in outputs  # the tournament's table
    assert "lowest-first" in outputs
    assert (tmp_path / "run" / "agent" / "agent.json").is_file()  # what cardsuite ppo wrote
    assert (tmp_path / "run" / "tournament.png").is_file()
