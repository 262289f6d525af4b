"""The CLI prints what `proctor.runs` computes: no command module imports `proctor.stats`, not
even for a type under TYPE_CHECKING (which import-linter does not count as an import). The
import-linter contract "The CLI computes no statistics" holds the runtime imports; this holds the
annotation-only ones, so the types the CLI names come through `proctor.runs` too."""

from __future__ import annotations

import ast
from pathlib import Path

import proctor.cli

CLI = Path(proctor.cli.__file__).parent


def _stats_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        found += [
            f"{path.name}:{node.lineno}: {n}"
            for n in names
            if n == "proctor.stats" or n.startswith("proctor.stats.")
        ]
    return found


def test_no_cli_module_imports_the_statistics() -> None:
    modules = sorted(CLI.rglob("*.py"))
    assert len(modules) > 30, "the CLI's modules are where this test looks"
    assert [hit for path in modules for hit in _stats_imports(path)] == []


def test_the_check_sees_an_import_under_type_checking(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from proctor.stats.cost import PriceTable\nimport proctor.stats\n",
        encoding="utf-8",
    )
    assert sorted(_stats_imports(module)) == [
        "m.py:3: proctor.stats.cost",
        "m.py:3: proctor.stats.cost.PriceTable",
        "m.py:4: proctor.stats",
    ]
