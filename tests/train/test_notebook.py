"""The quickstart notebook runs top to bottom with tiny budgets (CARDSUITE_QUICK=1)."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).parents[2] / "notebooks" / "quickstart.ipynb"


def test_quickstart_notebook_executes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    monkeypatch.setenv("CARDSUITE_QUICK", "1")
    monkeypatch.setenv("CARDSUITE_RUN_DIR", str(tmp_path / "run"))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()
    outputs = "".join(
        out.get("text", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
    )
    assert "trained 1024 steps" in outputs
    assert "head-to-head" in outputs
    assert (tmp_path / "run" / "curves.png").is_file()
    assert (tmp_path / "run" / "tournament.png").is_file()
