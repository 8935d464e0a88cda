"""notebooks/walkthrough.ipynb runs top to bottom on the real sample_logs, and is stored clean."""

from __future__ import annotations

import pytest
from conftest import ROOT, sample_folders

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = ROOT / "notebooks" / "walkthrough.ipynb"


def test_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], "clear the outputs before committing"
            assert cell.execution_count is None


@pytest.mark.slow
@pytest.mark.skipif(not sample_folders(), reason="no sample_logs/<scenario>/truth.json yet")
def test_runs_without_error(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 2  # the swimlane and the zoom (or the followed node)
    html = [o for o in outputs if "text/html" in o.get("data", {})]
    assert any("tfdiag-summary" in o["data"]["text/html"] for o in html)  # Run._repr_html_
    nbformat.write(nb, tmp_path / "executed.ipynb")
