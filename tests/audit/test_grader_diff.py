"""`proctor score RUN --diff` through the CLI: a run graded by an older grader (its stored grades
made false-correct, as the grader of issue 12 did) is re-graded; every flipped verdict is listed
with both rules and a reply excerpt, a paired test old vs new is printed, grader_diff.json is
written, and the store records the new grader version."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

from proctor.store import RunStore

from .test_grader_audit import proctor, squash

REPLY = "I add the digits.\nFinal answer: 2½"


def test_a_grader_change_is_a_reviewable_diff(tmp_path: Path) -> None:
    results = tmp_path / "r"
    done = proctor("run", "arithmetic", "-m", f"fake/const:{REPLY}", "--n", "8", "-r", results,
                   cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    db = results / "proctor.db"
    with closing(sqlite3.connect(db)) as conn, conn:
        (run_id,) = conn.execute("SELECT id FROM runs").fetchone()
        rows = conn.execute("SELECT sample_id FROM scores ORDER BY sample_id").fetchall()
        fooled = [sid for (sid,) in rows[:3]]
        conn.executemany(
            "UPDATE scores SET outcome = 'correct', rule = 'final_answer_line+integer_equal'"
            " WHERE sample_id = ?",
            [(sid,) for sid in fooled],
        )
        conn.execute("UPDATE gradings SET grader_version = 'arithmetic/1'")

    done = proctor("score", run_id, "--diff", "-r", results, cwd=tmp_path)
    out = squash(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Grader change: arithmetic/1 → arithmetic/2 (8 answers re-graded)" in out
    assert "3 verdicts flipped:" in out
    for sid in fooled:
        assert f"{sid}: correct (final_answer_line+integer_equal) → wrong (" in out
    assert "Final answer: 2½" in out
    assert "0 became correct, 3 became not correct" in out and "exact McNemar" in out
    (diff_file,) = results.glob("runs/*/grader_diff.json")
    diff = json.loads(diff_file.read_text(encoding="utf-8"))
    assert (diff["old_grader"], diff["new_grader"]) == ("arithmetic/1", "arithmetic/2")
    assert sorted(row["sample_id"] for row in diff["flipped"]) == fooled
    assert diff["paired_test"]["became_not_correct"] == 3
    with RunStore.open(results) as store:
        assert store.grader_version(run_id) == "arithmetic/2"
        assert all(s.outcome != "correct" for s in store.scores(run_id).values())

    again = squash(proctor("score", run_id, "--diff", "-r", results, cwd=tmp_path).stdout)
    assert "Grader change: arithmetic/2 → arithmetic/2" in again and "0 verdicts flipped." in again
