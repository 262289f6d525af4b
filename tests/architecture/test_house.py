"""The house of ARCHITECTURE.md, checked: import-linter's contracts in pyproject are kept, every
package and loose module of src/proctor is on a floor of the layers contract, and every room has
a tests folder of its own."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src" / "proctor"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"

# Loose modules of the package top that ARCHITECTURE.md names (at most 6, __init__ aside).
LOOSE = {"__main__", "api", "testing", "plugins", "types", "errors"}
# Test folders that mirror no room: through the CLI, the tests' own helpers, peer graders' cases,
# the documentation (README.md, docs/: built, linked, its examples run) and this file. A loose
# module with tests of its own has a folder named after it (tests/api).
NOT_ROOMS = {"e2e", "support", "peers", "docs", "architecture"}


def _rooms() -> set[str]:
    return {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}


def _loose() -> set[str]:
    return {p.stem for p in SRC.glob("*.py") if p.stem != "__init__"}


def _layers() -> list[str]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layered = [c for c in contracts if c["type"] == "layers"]
    assert len(layered) == 1, "one layers contract: the house"
    names: list[str] = []
    for floor in layered[0]["layers"]:
        names += [n.strip() for n in floor.replace(":", "|").split("|")]
    return names


def test_import_contracts_are_kept() -> None:
    # Never skipped: the dev extra installs import-linter, and a missing one is a broken set-up.
    assert LINT_IMPORTS.exists(), f"import-linter is not installed beside {sys.executable}"
    proc = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 broken" in proc.stdout


def test_every_package_and_loose_module_is_on_a_floor() -> None:
    on_floors = {n.removeprefix("proctor.") for n in _layers()}
    missing = (_rooms() | _loose()) - on_floors
    assert not missing, f"not in the layers contract: {sorted(missing)}"
    gone = on_floors - (_rooms() | _loose())
    assert not gone, f"the layers contract names what src/proctor does not have: {sorted(gone)}"


def test_loose_modules_are_the_ones_the_architecture_names() -> None:
    assert _loose() <= LOOSE, f"loose modules not in ARCHITECTURE.md: {sorted(_loose() - LOOSE)}"
    assert len(_loose()) <= 6


def test_every_room_has_a_tests_folder() -> None:
    folders = {p.name for p in (REPO / "tests").iterdir() if p.is_dir()}
    missing = _rooms() - folders
    assert not missing, f"rooms without tests/<room>/: {sorted(missing)}"
    strays = folders - _rooms() - _loose() - NOT_ROOMS - {"__pycache__"}
    assert not strays, f"test folders that mirror no room of src/proctor: {sorted(strays)}"
