"""docs/notebook.ipynb runs from top to bottom without an error and draws its charts; the
committed file keeps no outputs."""

from __future__ import annotations

from pathlib import Path

import pytest
from chart_defaults import SMALL_CHARTS_CODE

NOTEBOOK = Path(__file__).resolve().parent.parent / "docs" / "notebook.ipynb"

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")


def test_the_committed_notebook_has_no_outputs():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(not cell.outputs and cell.execution_count is None for cell in code)


@pytest.mark.slow
def test_the_notebook_runs_and_draws_its_charts(tmp_path):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    # the kernel writes its report's charts as every test does; the charts the notebook
    # shows are drawn as a reader sees them
    notebook.cells.insert(0, nbformat.v4.new_code_cell(SMALL_CHARTS_CODE))
    client = nbclient.NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},  # its runs go into tmp_path/results
    )
    client.execute()  # raises CellExecutionError, naming the cell, at the first error
    outputs = [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]
    assert not [out for out in outputs if out.output_type == "error"]
    images = [out for out in outputs if "image/png" in out.get("data", {})]
    assert len(images) >= 6
    tables = [out for out in outputs if "text/html" in out.get("data", {})]
    assert any("doubling" in out["data"]["text/html"] for out in tables)  # the comparison
    for name in ("bmn", "adding", "doubling"):
        assert (tmp_path / "results" / "notebook" / name / "run.json").is_file()
    assert (tmp_path / "results" / "notebook" / "bmn" / "summary.csv").is_file()
