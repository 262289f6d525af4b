"""The graded result of a dialogue or workflow run, as its results.json gives it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def graded_result(results_dir: Path) -> dict[str, Any]:
    """The one run's whole graded dialogue or workflow (`turns[0].detail` of its results.json),
    with its run id."""
    (written,) = results_dir.glob("runs/*/results.json")
    doc = json.loads(written.read_text(encoding="utf-8"))
    (part,) = doc["turns"]
    return {"run_id": doc["run"]["run_id"], **part["detail"]}
