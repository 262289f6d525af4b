"""The fault table (cases/reply_faults.json): every way a server misbehaves that the stub can
act out, each met by `proctor run` through its CLI. The run finishes; every reply is stored
(repaired, counts unknown, keys redacted, and the record says so) or a `call_failed` with its
reason; nothing from the server drives the terminal; the exit code is the documented one."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from proctor.store import RunStore
from support.stub import StubConfig, run_stub
from support.stub.hostile import MARKUP, key_forms

from .conftest import CliResult, child_env, proctor_cmd

TABLE = json.loads((Path(__file__).parent / "cases" / "reply_faults.json").read_text("utf-8"))
ROWS: list[dict[str, Any]] = TABLE["rows"]
KEY = "sk-proctor-CANARY-fault-table-5e1f0c2a"
# Small enough to stay quick: the cap, not the size, is what the rows test (512 MiB and
# 100 MiB are the stub's defaults and the figures: see test_a_gzip_bomb_... below).
SIZES = {"huge_bytes": 24 * 1024 * 1024, "bomb_bytes": 64 * 1024 * 1024}


@pytest.mark.parametrize("row", ROWS, ids=[r["fault"] for r in ROWS])
def test_each_server_misbehaviour_is_data_never_a_crash(
    row: dict[str, Any],
    tmp_path: Path,
    cli: Callable[..., CliResult],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PROCTOR_API_KEY", KEY)
    results = tmp_path / "R"
    config = StubConfig(fault_rate=1.0, faults=(row["fault"],), hang_s=5.0, **SIZES)
    # Only the rows about a server that never answers test the request timeout (1 s); the others
    # get room to read a big body on a busy machine, so their verdict is not a timeout.
    timeout = str(row.get("timeout", 30))
    with run_stub(config) as stub:
        done = cli(
            "run", "arithmetic", "--n", "2", "-m", stub.model, "-r", str(results),
            "--max-attempts", "1", "--concurrency", "1", "--timeout", timeout,
        )  # fmt: skip
        asked = stub.stats().requests
    assert "Traceback" not in done.output, done.output
    assert done.code == row["exit"], done.output
    # Nothing a server sends reaches the terminal as a control sequence.
    for control in ("\x1b", "\x9b", "\r", "\u202e"):
        assert control not in done.output, (control, done.output)
    if row["fault"] == "markup_error":  # printed as it came, as text: not read as markup
        assert MARKUP in done.output, done.output
    with RunStore.open(results) as store:
        (run,) = store.list_runs()
        records = store.records(run.run_id)
    assert len(records) == 2
    assert asked == (1 if row["exit"] == 3 else 2)  # a 401 stops the model after one call
    for record in records:
        assert record.status == row["status"], record
        where = record.error if row["status"] == "call_failed" else record.notes
        assert row.get("fragment", "") in where, (where, row)
        if row["status"] == "ok":
            assert record.text, record
        if row.get("usage") == "unknown":
            assert record.usage.prompt_tokens is None, record.usage
    samples_csv = next((results / "runs").iterdir()) / "samples.csv"
    assert samples_csv.is_file()
    if "outcome" in row:
        assert f",{row['outcome']}," in samples_csv.read_text("utf-8")
    for form in key_forms(f"Bearer {KEY}"):
        for path in results.rglob("*"):
            if path.is_file():
                assert form.encode() not in path.read_bytes(), (form, path)
        assert form not in done.output


def test_a_gzip_bomb_and_a_100_mib_body_never_take_the_memory(tmp_path: Path) -> None:
    """The issue's figures: 0.5 MiB of gzip that inflates to 512 MiB took proctor to 2.7 GB,
    and a 100 MiB reply was stored as ok. With the cap, peak memory stays near an idle run's."""
    peaks: dict[str, int] = {}
    for fault in ("gzip_bomb", "huge", None):
        config = StubConfig(fault_rate=1.0 if fault else 0.0, faults=(fault,) if fault else ())
        with run_stub(config) as stub:
            proc = subprocess.Popen(
                proctor_cmd("run", "arithmetic", "--n", "2", "-m", stub.model,
                            "-r", str(tmp_path / str(fault)), "--max-attempts", "1"),
                env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            )  # fmt: skip
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            err = proc.stderr.read().decode() if proc.stderr else ""
        assert proc.returncode == (4 if fault else 0), err
        peaks[str(fault)] = usage.ru_maxrss * 1024  # kilobytes on Linux
    baseline = peaks["None"]
    for fault in ("gzip_bomb", "huge"):
        # the cap is 4 MiB: a few copies of it, never the 512 MiB or 100 MiB body
        assert peaks[fault] - baseline < 64 * 1024 * 1024, peaks


def test_max_reply_bytes_raises_the_cap_also_for_the_calls_it_asks_again(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    results = tmp_path / "R"
    config = StubConfig(fault_rate=1.0, faults=("huge",), huge_bytes=5 * 1024 * 1024)
    with run_stub(config) as stub:
        first = cli("run", "arithmetic", "--n", "2", "-m", stub.model, "-r", str(results),
                    "--max-attempts", "1")  # fmt: skip
        assert first.code == 4, first.output
        with RunStore.open(results) as store:
            (run,) = store.list_runs()
        again = cli("run", "--retry-errors", run.run_id, "-r", str(results),
                    "--max-reply-bytes", str(8 * 1024 * 1024))  # fmt: skip
    assert again.code == 0, again.output
    with RunStore.open(results) as store:
        records = store.records(run.run_id)
    assert [r.status for r in records] == ["ok", "ok"]
    assert all(len(r.text) > 5_000_000 for r in records)
