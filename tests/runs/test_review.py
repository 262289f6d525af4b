"""`proctor review export|import` through the CLI, as separate processes: export → import →
export gives the same bytes (into a second store holding the same run too); a row whose content
hash is not the stored reply's, or any other bad row, is refused with the file, line and field,
exit 2, and nothing is stored."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from proctor.store import RunStore
from proctor.store.human_verdicts import reply_hash
from support.judge_suite import RunSuite

REPLIES = {
    "ext": '{"name": "张三", "amount": 299}',
    "sum": "Revenue grew 12%, led by the East region.",
    "rw": "抱歉给您添麻烦了。",
    "ref": "The material does not say.",
}
OTHER = {**REPLIES, "sum": "Revenue fell."}


def proctor(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PY_COLORS")}
    env.update(COLUMNS="250", NO_COLOR="1", TERM="dumb")
    return subprocess.run(
        [sys.executable, "-m", "proctor", *(str(a) for a in args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def hand_csv(path: Path, rows: list[list[str]]) -> Path:
    header = "model,id,epoch,reviewer,verdict,note,reply_hash,blind,reviewed_at\n"
    path.write_text(header + "".join(",".join(r) + "\n" for r in rows), encoding="utf-8")
    return path


def rows_for(model: str, replies: dict[str, str]) -> list[list[str]]:
    notes = {
        "sum": '"says ""East"", fine,\nbut terse"',
        "rw": "语气诚恳",
        "ext": "=1+1",
        "ref": "''as is",
    }
    return [
        [
            model,
            sid,
            "0",
            "ann",
            "wrong" if sid == "ref" else "correct",
            notes.get(sid, ""),
            reply_hash(text),
            "0",
            f"2026-12-01T10:0{i}:00+00:00",
        ]
        for i, (sid, text) in enumerate(replies.items())
    ]


def stored_count(results: Path, run_id: str) -> int:
    with RunStore.open(results) as store:
        return len(store.human_verdicts(run_id))


def test_export_import_export_is_byte_for_byte(
    tmp_path: Path, suite_path: Path, run_suite: RunSuite
) -> None:
    results = tmp_path / "results"
    run_id = run_suite(suite_path, {"fake/a": REPLIES, "fake/b": OTHER}, results)
    twin = tmp_path / "twin"
    twin.mkdir()
    shutil.copy(results / "proctor.db", twin / "proctor.db")  # the same run, no verdicts yet
    given = hand_csv(
        tmp_path / "given.csv", rows_for("fake/a", REPLIES) + rows_for("fake/b", OTHER)
    )
    done = proctor("review", "import", run_id, given, "-r", results)
    assert done.returncode == 0, done.stderr
    assert "8 verdicts read" in done.stdout and "8 new" in done.stdout
    first = tmp_path / "first.csv"
    assert proctor("review", "export", run_id, "-o", first, "-r", results).returncode == 0
    exported = first.read_bytes()
    assert exported.count(b"\n") > 8 and "语气诚恳".encode() in exported
    assert b'"says ""East"", fine,\nbut terse"' in exported
    # cells a spreadsheet could run get an apostrophe, taken off again on import
    assert b",'=1+1," in exported and b",''as is," in exported
    with RunStore.open(results) as store:
        notes = {v.note for v in store.human_verdicts(run_id)}
    assert {"=1+1", "'as is"} <= notes
    again = proctor("review", "import", run_id, first, "-r", results)
    assert again.returncode == 0 and "0 new" in again.stdout, again.stdout + again.stderr
    assert proctor("review", "import", run_id, first, "-r", twin).returncode == 0
    for folder, name in ((results, "second.csv"), (twin, "third.csv")):
        out = tmp_path / name
        assert proctor("review", "export", run_id, "-o", out, "-r", folder).returncode == 0
        assert out.read_bytes() == exported


def test_a_stale_content_hash_is_refused_naming_file_line_and_field(
    tmp_path: Path, suite_path: Path, run_suite: RunSuite
) -> None:
    results = tmp_path / "results"
    run_id = run_suite(suite_path, {"fake/a": REPLIES, "fake/b": OTHER}, results)
    rows = rows_for("fake/a", REPLIES)
    rows[2][6] = reply_hash(OTHER["sum"])  # a verdict given on fake/b's reply, filed under fake/a
    bad = hand_csv(tmp_path / "bad.csv", rows)
    done = proctor("review", "import", run_id, bad, "-r", results)
    assert done.returncode == 2
    # the note of line 3 spans two lines, so the bad row begins on line 5
    assert f"{bad}:5: field 'reply_hash'" in done.stderr
    assert "Traceback" not in done.stderr
    assert stored_count(results, run_id) == 0


def test_other_bad_rows_are_refused_and_nothing_is_stored(
    tmp_path: Path, suite_path: Path, run_suite: RunSuite
) -> None:
    results = tmp_path / "results"
    run_id = run_suite(suite_path, {"fake/a": REPLIES}, results)
    good = rows_for("fake/a", REPLIES)[0]
    cases = {
        "verdict": [*good[:4], "maybe", *good[5:]],
        "reviewer": [*good[:3], " ", *good[4:]],
        "blind": [*good[:7], "yes", good[8]],
        "reviewed_at": [*good[:8], "yesterday"],
        "epoch": [good[0], good[1], "-1", *good[3:]],
        "id": [good[0], "nope", *good[2:]],
    }
    for field, row in cases.items():
        bad = hand_csv(tmp_path / f"{field}.csv", [good, row])
        done = proctor("review", "import", run_id, bad, "-r", results)
        assert done.returncode == 2, field
        assert f"{bad}:3: field '{field}'" in done.stderr, done.stderr
    assert stored_count(results, run_id) == 0
