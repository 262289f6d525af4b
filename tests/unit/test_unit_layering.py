"""The import layering of ARCHITECTURE.md, checked by import-linter's contracts in pyproject."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


@pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is not installed")
def test_import_contracts_are_kept() -> None:
    proc = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_the_contracts_exist() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert "[tool.importlinter]" in text
    assert text.count("[[tool.importlinter.contracts]]") >= 3
