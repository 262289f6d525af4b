"""The result file of a dialogue or workflow run (`dialogue.json`, `workflow.json`), written
atomically in its run folder."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from proctor.report.atomic import write_text_atomic


def write_turn_result(run_dir: Path, name: str, run_id: str, doc: Mapping[str, Any]) -> Path:
    out = run_dir / name
    body = json.dumps({"run_id": run_id, **doc}, ensure_ascii=False, indent=2)
    write_text_atomic(out, body + "\n")
    return out
