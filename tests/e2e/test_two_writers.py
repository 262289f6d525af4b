"""Two `proctor run` processes writing to one results folder at the same time: no error, no
"database is locked", nothing lost."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

from support.stub.config import StubConfig
from support.stub.server import run_stub

from .conftest import child_env, proctor_cmd, spawn


def test_two_processes_share_one_results_folder(
    tmp_path: Path, children: list[subprocess.Popen[bytes]]
) -> None:
    results = tmp_path / "shared"
    with run_stub(StubConfig(seed=1, latency_s=0.002)) as stub:
        procs = [
            spawn(
                children,
                proctor_cmd(
                    "run",
                    "arithmetic",
                    "--n",
                    "300",
                    "--seed",
                    str(seed),
                    "-m",
                    stub.model,
                    "-r",
                    str(results),
                    "--concurrency",
                    "16",
                ),
                tmp_path / f"log{seed}",
                child_env(),
            )
            for seed in (1, 2)
        ]
        codes = [p.wait(180) for p in procs]
    logs = [(tmp_path / f"log{s}").read_text(errors="replace") for s in (1, 2)]
    assert codes == [0, 0], logs
    for log in logs:
        assert "locked" not in log.lower()
    con = sqlite3.connect(results / "proctor.db")
    try:
        runs = con.execute("SELECT id, status FROM runs").fetchall()
        assert len(runs) == 2 and {s for _, s in runs} == {"complete"}
        per_run = con.execute(
            "SELECT run_id, COUNT(*), SUM(status = 'ok') FROM records GROUP BY run_id"
        ).fetchall()
        assert sorted((n, ok) for _, n, ok in per_run) == [(300, 300), (300, 300)]
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        con.close()
