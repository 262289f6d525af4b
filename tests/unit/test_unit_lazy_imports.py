"""What `proctor --help` and the start of a run import: the heavy rooms stay out until used
(a list of modules, not a timing; bench/bench_startup.py measures the seconds)."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY_FOR_HELP = (
    "asyncio",
    "numpy",
    "aiohttp",
    "httpx",
    "proctor.runner",
    "proctor.report.html.report_page",
    "proctor.report.files",
    "proctor.extract.quantity_forms",
    "proctor.tasks.arithmetic",
)
NOT_FOR_AN_ARITHMETIC_RUN = (
    "proctor.tasks.gsm8k",
    "proctor.tasks.humaneval",
    "proctor.tasks.structured",
    "proctor.report.html.report_page",
    "numpy",
)


def imported_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_the_cli_module_imports_no_heavy_room() -> None:
    loaded = imported_after("import proctor.cli.app")
    assert [m for m in HEAVY_FOR_HELP if m in loaded] == []


def test_asking_for_one_task_imports_that_task_only() -> None:
    loaded = imported_after(
        "from proctor.tasks.registry import get_task\n"
        "import proctor.runner, proctor.cli.run_support\n"
        "assert get_task('arithmetic').name == 'arithmetic'"
    )
    assert "proctor.tasks.arithmetic" in loaded
    assert [m for m in NOT_FOR_AN_ARITHMETIC_RUN if m in loaded] == []


def test_every_lazy_name_resolves() -> None:
    """A name in a lazy package root that points at the wrong submodule fails here, not in a
    user's run."""
    import proctor.extract
    import proctor.report
    import proctor.report.html
    import proctor.stats

    for package in (proctor.extract, proctor.report, proctor.report.html, proctor.stats):
        for name in package.__all__:
            assert getattr(package, name) is not None, (package.__name__, name)
