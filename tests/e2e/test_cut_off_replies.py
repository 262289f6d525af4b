"""Cut-off replies through the CLI against a loopback stub: a run whose replies hit max_tokens
says so in the terminal, results.json, summary.md and report.html (one statistics builder), with
the accuracy bounds and a suggested max_tokens; `proctor gate --strict` exits non-zero."""

from __future__ import annotations

import json
from pathlib import Path

from support.stub.config import StubConfig
from support.stub.server import run_stub

from .conftest import flat_cli as cli

LONG = "Let me work through this carefully, one digit at a time. " * 8 + "Final answer: 1"


def test_a_capped_run_is_bounded_everywhere_and_strict_fails(tmp_path: Path) -> None:
    results = tmp_path / "results"
    with run_stub(StubConfig(answer_mode=f"const:{LONG}")) as stub:
        code, out = cli("run", "arithmetic", "--n", "6", "--max-tokens", "16", "-m", stub.model,
                        "-r", results)  # fmt: skip
    assert code == 0, out
    assert "Cut-off replies" in out
    assert "6 of 6 replies (100.0 %) hit the token cap" in out
    assert "try max_tokens 32" in out
    run_dir = next((results / "runs").iterdir())
    doc = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    (row,) = doc["truncation"].values()
    assert (row["cut_off"], row["scored"], row["suggested_max_tokens"]) == (6, 6, 32)
    assert row["accuracy_cut_off_wrong"] == 0.0 and row["accuracy_cut_off_right"] == 1.0
    assert row["accuracy_on_finished"] is None
    assert "Cut-off replies" in (run_dir / "summary.md").read_text(encoding="utf-8")
    assert 'id="truncation"' in (run_dir / "report.html").read_text(encoding="utf-8")
    code, out = cli("gate", "latest", "--strict", "-r", results)
    assert code == 1, out
    assert "truncated<=0.05" in out and "FAIL" in out
