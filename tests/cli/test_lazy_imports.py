"""What `proctor --help` and the start of a run import: the heavy rooms stay out until used
(a list of modules, not a timing; bench/bench_startup.py measures the seconds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.stub.scripted import Scripted, run_scripted

HEAVY_FOR_HELP = (
    "asyncio",
    "rich",  # typer's rich help alone (markdown, traceback renderers) took longer than the rest
    "typer.rich_utils",
    "pydantic",
    "sqlite3",
    "proctor.types",
    "proctor.calling.cache_key",
    "numpy",
    "aiohttp",
    "httpx",
    "proctor.runs.ask",
    "proctor.report.html.report_page",
    "proctor.report.files",
    "proctor.extract.quantity_forms",
    "proctor.tasks.arithmetic",
    "proctor._util.redact",  # compiles its patterns: only an error's message is scrubbed here
    "xml.etree.ElementTree",
    "proctor.report.ci",
)
NOT_FOR_AN_ARITHMETIC_RUN = (
    "opentelemetry",  # only with --otel-endpoint
    "proctor.telemetry.spans",
    "proctor.tasks.gsm8k",
    "proctor.tasks.humaneval",
    "proctor.tasks.structured",
    "proctor.report.html.report_page",
    "numpy",
)

NOT_IN_A_PLAIN_RUN = (
    "numpy",  # ~0.1 s of start-up: only a run that bootstraps, pairs models or tests imports it
    "xml.etree.ElementTree",  # the JUnit writer: --junit and `gate` only
    "proctor.report.ci",
    "proctor.runs.gate",
    "opentelemetry",  # only with --otel-endpoint
    "proctor.telemetry.spans",
    "proctor.stats.sequential",  # only a --sequential run
    "proctor.stats.ppi",
)

NOT_BEFORE_THE_FIRST_REQUEST = (
    "httpx",  # only for a test's MockTransport or an https certificate store
    "proctor.calling.batching",  # only with --batch
    "proctor.providers.batch",
    "proctor.stats.metrics",  # the statistics come after the asking
    "proctor.report.files",
    "typer.rich_utils",
    "rich.markdown",
    "pygments",
)

CLI = """
import json, sys
from proctor.cli.app import main
sys.argv = ["proctor", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit as e:
    code = e.code
"""
AT_FIRST_CONNECTION = """
seen = []
def hook(event, args):
    if event == "socket.connect" and not seen:
        seen.append(sorted(sys.modules))
sys.addaudithook(hook)
"""


def run_cli(args: list[str], before: str = "", after: str = "") -> tuple[int, list[str]]:
    """`proctor ARGS` in a fresh interpreter: its exit code, and the JSON line `after` prints."""
    code = "import json, sys\n" + before + CLI + after
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(args)], capture_output=True, text=True, check=True
    )
    return int(done.returncode), done.stdout.splitlines()


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
        "import proctor.runs.ask, proctor.cli.run_support\n"
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


def test_help_through_the_cli_imports_no_rich_and_no_room() -> None:
    _, out = run_cli(["--help"], after="print(json.dumps([code, sorted(sys.modules)]))")
    code, loaded = json.loads(out[-1])
    assert code == 0
    assert "Commands:" in out and any(line.split()[:1] == ["run"] for line in out)
    assert [m for m in HEAVY_FOR_HELP if m in loaded] == []


def test_a_run_sends_its_first_request_before_the_rooms_it_does_not_need(tmp_path: Path) -> None:
    """The modules loaded when a run opens its first connection (an audit hook on
    socket.connect, in the CLI's own process, against a loopback server)."""
    with run_scripted(lambda messages: Scripted("Final answer: 2")) as server:
        _, out = run_cli(
            ["run", "arithmetic", "--n", "2", "-m", server.model, "-r", str(tmp_path / "r")],
            before=AT_FIRST_CONNECTION,
            after="print(json.dumps([code, seen[0] if seen else []]))",
        )
    code, loaded = json.loads(out[-1])
    assert code in (0, None)
    assert "aiohttp" in loaded  # the hook saw the request's connection, not something earlier
    assert [m for m in NOT_BEFORE_THE_FIRST_REQUEST if m in loaded] == []


def test_a_plain_run_imports_nothing_it_does_not_compute(tmp_path: Path) -> None:
    """A whole offline run of one model, one epoch (asked, stored, graded, reported, its files
    written) never loads numpy, the CI writers, the gates or the tracing: each is imported where
    it is used (issue 28: a plain run is not slower than before the house moved)."""
    _, out = run_cli(
        ["run", "arithmetic", "--n", "30", "-m", "fake/const:42", "-r", str(tmp_path / "r")],
        after="print(json.dumps([code, sorted(sys.modules)]))",
    )
    exit_code, loaded = json.loads(out[-1])
    assert exit_code in (0, None)
    assert "proctor.report.files" in loaded  # it did get as far as writing its files
    assert list((tmp_path / "r" / "runs").glob("*/report.html"))
    assert [m for m in NOT_IN_A_PLAIN_RUN if m in loaded] == []


def test_the_command_starts_with_its_imports_frozen_and_the_collector_on() -> None:
    """`proctor` (proctor.__main__:main) imports the CLI with the cyclic collector paused, then
    freezes what it imported and turns the collector back on: a command that left it off would
    keep every cycle it makes until it exits."""
    code = (
        "import gc, sys\n"
        "sys.argv = ['proctor', '--help']\n"
        "from proctor.__main__ import main\n"
        "assert gc.isenabled() and gc.get_freeze_count() == 0\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as e:\n"
        "    print(e.code, gc.isenabled(), gc.get_freeze_count() > 10_000)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "Commands:" in done.stdout
    assert done.stdout.splitlines()[-1] == "0 True True"
