"""`proctor import inspect` reads a `.eval` archive within one budget for the whole archive:
a small file that inflates to far more than a log can (a zip bomb) is refused (exit 2) naming
the file, before anything is stored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from proctor.errors import DatasetError

FIXTURES = Path(__file__).parent / "fixtures"
EVAL = FIXTURES / "inspect-0.3.285_gsm8k_2epochs.deflate.eval"
JSON_LOG = FIXTURES / "inspect-0.3.285_gsm8k.json"


def write_bomb(path: Path, *, members: int, member_bytes: int) -> Path:
    """An `.eval` with the real fixture's header and `members` samples whose completion is one
    run of a letter about `member_bytes` long (deflate packs about a thousand bytes into one)."""
    with zipfile.ZipFile(EVAL) as real:
        header = real.read("header.json")
    chunk = b"A" * (1 << 20)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("header.json", header)
        for n in range(1, members + 1):
            sample = {
                "id": n,
                "epoch": 1,
                "input": f"What is {n} + {n}?",
                "target": str(2 * n),
                "output": {"completion": "@", "choices": [{"stop_reason": "stop"}]},
                "scores": {"match": {"value": "I", "answer": ""}},
            }
            head, tail = json.dumps(sample).split('"@"')
            with archive.open(f"samples/{n}_epoch_1.json", "w", force_zip64=True) as out:
                out.write(head.encode() + b'"')
                left = member_bytes
                while left > 0:
                    out.write(chunk[: min(left, len(chunk))])
                    left -= len(chunk)
                out.write(b'"' + tail.encode())
    return path


def proctor(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update({"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
    return subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_small_eval_that_inflates_past_the_budget_is_refused_and_stores_nothing(
    tmp_path: Path,
) -> None:
    # Four members of 10 MiB each: every one far under the per-member cap (256 MiB), together
    # 40 MiB from a file of about 40 KB, over what the whole archive may inflate to.
    bomb = write_bomb(tmp_path / "bomb.eval", members=4, member_bytes=10 << 20)
    size = bomb.stat().st_size
    assert size < 100_000
    results = tmp_path / "R"
    done = proctor("import", "inspect", str(bomb), "-r", str(results))
    assert done.returncode == 2, done.stdout + done.stderr
    error = " ".join(done.stderr.split())
    assert str(bomb) in error and "zip bomb" in error and "inflates to more than" in error
    assert "Traceback" not in done.stderr
    assert not results.exists()  # no results folder, no store, no half-written run


def test_the_real_eval_log_is_well_within_the_budget(tmp_path: Path) -> None:
    from proctor.foreign.inspect_log import BUDGET, read_inspect

    run = read_inspect(EVAL)
    assert len(run.answers) == 24
    with zipfile.ZipFile(EVAL) as archive:
        inflated = sum(i.file_size for i in archive.infolist())
    assert inflated * 10 < BUDGET.inflated_limit(EVAL.stat().st_size)


@pytest.mark.parametrize(
    ("log", "budget", "says"),
    [
        (EVAL, {"max_members": 30}, "31 members (at most 30)"),
        (EVAL, {"max_records": 23}, "24 samples (at most 23 records)"),
        (JSON_LOG, {"max_records": 23}, "more than 23 records"),
        (EVAL, {"ratio_floor": 0, "max_ratio": 2}, "inflates to more than"),
        (EVAL, {"max_inflated": 50_000}, "inflates to more than 50,000 bytes"),
    ],
)
def test_each_part_of_the_budget_counts_for_the_whole_log(
    log: Path, budget: dict[str, int], says: str
) -> None:
    from proctor.foreign.inspect_log import ArchiveBudget, read_inspect

    with pytest.raises(DatasetError) as caught:
        read_inspect(log, ArchiveBudget(**budget))
    assert caught.value.file == str(log) and says in str(caught.value)
