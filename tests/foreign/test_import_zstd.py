"""`proctor import inspect` on Zstandard-compressed `.eval` logs (what Inspect writes since April
2026) below Python 3.14, through the `zstandard` package: the real Inspect log and one re-packed
here are imported as the deflate log is; a zstd bomb, a corrupt member and a missing package are
refused (exit 2) naming the file, with nothing stored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from proctor.errors import DatasetError
from proctor.runs.imported import their_accuracy
from proctor.store import RunStore
from proctor.store.imported import verdicts
from support.zstd_zip import write_zstd_zip

pytest.importorskip("zstandard", reason="the zstandard package is a dependency (setup.sh)")

FIXTURES = Path(__file__).parent / "fixtures"
ZSTD_EVAL = FIXTURES / "inspect-0.3.285_gsm8k_2epochs.eval"  # written by Inspect itself
DEFLATE_EVAL = FIXTURES / "inspect-0.3.285_gsm8k_2epochs.deflate.eval"


def proctor(*args: str, pythonpath: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update({"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [pythonpath, env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def repacked(path: Path, **kwargs: int) -> Path:
    """The deflate fixture's members, each compressed with Zstandard."""
    with zipfile.ZipFile(DEFLATE_EVAL) as real:
        members = [(i.filename, [real.read(i)]) for i in real.infolist()]
    return write_zstd_zip(path, members, **kwargs)


def imported(results: Path) -> tuple[list[tuple[str, int, str]], float | None]:
    with RunStore.open(results) as store:
        (run,) = store.list_runs()
        records = store.records(run.run_id)
        accuracy, _ = their_accuracy(verdicts(store, run.run_id, "inspect match"))
    return sorted((r.sample_id, r.epoch, r.text) for r in records), accuracy


@pytest.mark.skipif(sys.version_info >= (3, 14), reason="3.14's zipfile reads zstd itself")
def test_zstd_logs_import_exactly_as_the_deflate_log_does(tmp_path: Path) -> None:
    with zipfile.ZipFile(ZSTD_EVAL) as real:
        assert {i.compress_type for i in real.infolist()} == {93}  # really Zstandard
    ours = repacked(tmp_path / "repacked.eval")
    runs = {}
    for name, log in (("deflate", DEFLATE_EVAL), ("inspect", ZSTD_EVAL), ("ours", ours)):
        done = proctor("import", "inspect", str(log), "-r", str(tmp_path / name))
        assert done.returncode == 0, done.stderr
        assert "they reported 0.5" in done.stdout and "(the same)" in done.stdout
        runs[name] = imported(tmp_path / name)
    records, accuracy = runs["deflate"]
    assert len(records) == 24 and {epoch for _, epoch, _ in records} == {0, 1}
    assert accuracy == pytest.approx(0.5, abs=1e-12)
    assert runs["inspect"] == runs["ours"] == runs["deflate"]


def _bomb_members(members: int, member_bytes: int) -> Iterator[tuple[str, Iterator[bytes]]]:
    with zipfile.ZipFile(DEFLATE_EVAL) as real:
        header = real.read("header.json")
    yield "header.json", iter([header])

    def body(n: int) -> Iterator[bytes]:
        sample = {"id": n, "epoch": 1, "input": "Q", "target": "1",
                  "output": {"completion": "@"}, "scores": {"match": {"value": "I"}}}  # fmt: skip
        head, tail = json.dumps(sample).split('"@"')
        yield head.encode() + b'"'
        for _ in range(member_bytes >> 20):
            yield b"A" * (1 << 20)
        yield b'"' + tail.encode()

    for n in range(1, members + 1):
        yield f"samples/{n}_epoch_1.json", body(n)


def test_a_zstd_bomb_is_refused_at_the_budget_and_stores_nothing(tmp_path: Path) -> None:
    # 4 members of 16 MiB each from a file of a few KB: 64 MiB, over the 32 MiB a small file
    # may inflate to (Zstandard packs a run of one letter far tighter than deflate).
    bomb = write_zstd_zip(tmp_path / "bomb.eval", _bomb_members(4, 16 << 20))
    assert bomb.stat().st_size < 20_000
    results = tmp_path / "R"
    done = proctor("import", "inspect", str(bomb), "-r", str(results))
    assert done.returncode == 2, done.stdout + done.stderr
    error = " ".join(done.stderr.split())
    assert str(bomb) in error and "zip bomb" in error and "inflates to more than" in error
    assert "Traceback" not in done.stderr
    assert not results.exists()


def test_the_budget_stops_a_zstd_member_at_the_first_piece_over(tmp_path: Path) -> None:
    from proctor.foreign.inspect_log import ArchiveBudget, read_inspect

    bomb = write_zstd_zip(tmp_path / "one.eval", _bomb_members(1, 8 << 20))
    with pytest.raises(DatasetError, match=r"inflates to more than 2,000,000 bytes") as caught:
        read_inspect(bomb, ArchiveBudget(max_inflated=2_000_000))
    assert caught.value.file == str(bomb) and caught.value.field == "samples/1_epoch_1.json"


def test_corrupt_zstd_members_are_refused_naming_the_member(tmp_path: Path) -> None:
    bad_crc = repacked(tmp_path / "crc.eval", crc_offset=1)
    done = proctor("import", "inspect", str(bad_crc), "-r", str(tmp_path / "R1"))
    assert done.returncode == 2 and "bad CRC-32" in done.stderr and str(bad_crc) in done.stderr
    cut = tmp_path / "cut.eval"
    data = bytearray(repacked(tmp_path / "whole.eval").read_bytes())
    with zipfile.ZipFile(tmp_path / "whole.eval") as whole:
        info = whole.getinfo("header.json")
    start = info.header_offset + 30 + len(info.filename)
    data[start + 8 : start + 40] = b"\xff" * 32  # garbage inside the zstd frame
    cut.write_bytes(bytes(data))
    done = proctor("import", "inspect", str(cut), "-r", str(tmp_path / "R2"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert str(cut) in done.stderr and "header.json" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "R1").exists() and not (tmp_path / "R2").exists()


@pytest.mark.skipif(sys.version_info >= (3, 14), reason="3.14's zipfile reads zstd itself")
def test_without_the_package_the_log_is_refused_with_the_ways_out(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker" / "zstandard"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('zstandard blocked for the test')\n")
    done = proctor(
        "import", "inspect", str(ZSTD_EVAL), "-r", str(tmp_path / "R"),
        pythonpath=str(blocker.parent),
    )  # fmt: skip
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert "Zstandard" in said and "`zstandard` package" in said
    assert "inspect log convert --to json" in said
    assert not (tmp_path / "R").exists()
