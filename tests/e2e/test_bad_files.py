"""The malformed-file table (cases/bad_files.json): every file a user may hand proctor, broken
in every way we know, is refused before any call with one line naming the file (line and
field where there is one), exit 2, and nothing written to the results folder."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from support.stub import StubConfig, StubHandle, run_stub

from .conftest import CliResult

TABLE = json.loads((Path(__file__).parent / "cases" / "bad_files.json").read_text("utf-8"))
ROWS: list[dict[str, Any]] = TABLE["rows"]
_DEEP = re.compile(r"\{deep:([0-9]+)\}")
_DIGITS = re.compile(r"\{digits:([0-9]+)\}")


def _text(template: str) -> str:
    text = _DEEP.sub(lambda m: "[" * int(m.group(1)) + "]" * int(m.group(1)), template)
    return _DIGITS.sub(lambda m: "1" * int(m.group(1)), text)


def _make(path: Path, row: dict[str, Any]) -> None:
    special = row.get("special")
    if special == "fifo":
        os.mkfifo(path)
    elif special == "devzero":
        path.symlink_to("/dev/zero")
    elif special == "dir":
        path.mkdir()
    elif special == "bytes":
        path.write_bytes(bytes.fromhex(row["content"]))
    elif special != "missing":
        path.write_text(_text(row["content"]), encoding="utf-8", newline="")


def _args(row: dict[str, Any], files: Path, stub: StubHandle) -> list[str]:
    path = files / row["file"]
    if row["kind"] == "dataset":
        return ["--dataset", str(path)]
    if row["kind"] in ("structured", "gpqa"):
        return [row["kind"], "--dataset", str(path)]
    if row["kind"] == "suite":
        return ["--suite", str(path)]
    if row["kind"] == "config":  # a good suite with this config beside it
        suite = files / "cases.csv"
        suite.write_text(TABLE["good_suite"], encoding="utf-8")
        return ["--suite", str(suite)]
    assert row["kind"] == "prices"
    return ["arithmetic", "--n", "2", "--prices", str(path)]


@pytest.fixture(scope="module")
def stub() -> Any:
    with run_stub(StubConfig()) as handle:
        yield handle


def test_the_table_holds_at_least_forty_files() -> None:
    assert len(ROWS) >= 40


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['kind']}-{r['file']}" for r in ROWS])
def test_a_malformed_file_is_one_line_exit_2_and_nothing_written(
    row: dict[str, Any], tmp_path: Path, stub: StubHandle, cli: Callable[..., CliResult]
) -> None:
    files = tmp_path / "files"
    files.mkdir()
    _make(files / row["file"], row)
    results = tmp_path / "R"
    before = stub.stats().requests
    done = cli("run", *_args(row, files, stub), "-m", stub.model, "-r", str(results))
    assert stub.stats().requests == before, "refused before any call"
    assert done.code == 2, done.output
    lines = [line for line in done.err.splitlines() if line.strip()]
    assert len(lines) == 1, done.err
    (line,) = lines
    assert line.startswith("error: "), line
    assert row["file"] in line, line
    assert row["fragment"] in line, (row["fragment"], line)
    assert "Traceback" not in done.output
    assert "\x1b" not in done.output and "\x07" not in done.output
    assert not results.exists() or not any(results.iterdir()), list(results.rglob("*"))


def test_arguments_the_locale_could_not_decode_never_crash_the_store(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    # Python reads argv bytes that are not UTF-8 as lone surrogates (\udcff).
    results = tmp_path / "R"
    done = cli("run", "arithmetic", "--n", "2", "-m", "fake/const:\udcff", "-r", str(results))
    assert done.code == 2, done.output
    assert "is not valid UTF-8 text" in done.err and not results.exists()
    dataset = tmp_path / "d\udcff.jsonl"  # the file's name holds the byte 0xff
    dataset.write_text('{"id": "a", "input": "1 + 1", "target": "2"}\n', encoding="utf-8")
    ok = cli("run", "--dataset", str(dataset), "-m", "fake/const:Final answer: 2",
             "-r", str(results))  # fmt: skip
    assert ok.code == 0, ok.output  # the run records its source with the byte replaced
    assert list(results.glob("runs/*/samples.csv"))


def test_a_valid_file_full_of_markup_and_escapes_runs_and_prints_them_as_text(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    hostile = "[/bold][link=file:///etc/passwd]x[/link]\u001b[2J\u001b]0;pwned\u0007\u202e"
    rows = [
        {"id": f"{hostile}-{i}", "input": f"{i} + 1", "target": str(i + 1), "category": hostile,
         "metadata": {hostile: hostile}}
        for i in range(3)
    ]  # fmt: skip
    dataset = tmp_path / "hostile.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    results = tmp_path / "R"
    done = cli("run", "--dataset", str(dataset), "-m", "fake/const:Final answer: 2",
               "-r", str(results))  # fmt: skip
    assert done.code == 0, done.output
    assert "[/bold][link=file:///etc/passwd]x[/link]" in done.out  # shown, not interpreted
    for control in ("\x1b", "\x07", "\u202e"):
        assert control not in done.output
    report = cli("report", next((results / "runs").iterdir()).name, "-r", str(results))
    assert report.code == 0 and "\x1b" not in report.output
