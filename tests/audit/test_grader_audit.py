"""`proctor audit` through the CLI: the shipped, hand-labelled audit sets graded with the current
rules, false correct / false wrong with intervals, classes of disagreement, exit codes, and the
recorded figures that every report quotes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from proctor.audit.labelled_sets import builtin_audit_files, load_audit_file

AUDIT_DIR = Path(__file__).parents[2] / "src" / "proctor" / "datasets" / "builtin" / "audit"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def proctor(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PY_COLORS")}
    env.update(COLUMNS="300", NO_COLOR="1", TERM="dumb")
    return subprocess.run(
        [sys.executable, "-m", "proctor", *(str(a) for a in args)],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def squash(text: str) -> str:
    return " ".join(_ANSI.sub("", text).split())


def test_shipped_sets_label_every_reply_with_a_reason() -> None:
    files = builtin_audit_files()
    assert {"arithmetic", "gsm8k", "math500"} <= set(files)
    for task, path in files.items():
        items = load_audit_file(path)
        assert len(items) >= 50, task
        assert {i.task for i in items} == {task}
        assert {i.label for i in items} == {"correct", "not_correct"}
        assert all(i.reason.strip() and i.form.strip() for i in items)


def test_audit_grades_the_shipped_sets_and_matches_the_recorded_figures(tmp_path: Path) -> None:
    record = tmp_path / "audited.json"
    done = proctor("audit", "--record", record, cwd=tmp_path)
    out = squash(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    for task in ("arithmetic", "gsm8k", "math500"):
        assert re.search(rf"{task} \({task}/\d+\): \d+ labelled replies", out), out
    assert "false correct 0 of" in out and "95 % interval" in out
    fresh = json.loads(record.read_text(encoding="utf-8"))["tasks"]
    shipped = json.loads((AUDIT_DIR / "audited.json").read_text(encoding="utf-8"))["tasks"]
    # The figures reports quote were recorded with the grader as it is now: a grader change must
    # be re-audited (`proctor audit --record src/proctor/datasets/builtin/audit/audited.json`).
    assert fresh == shipped
    assert all(entry["false_correct"] == 0 for entry in fresh.values())


def test_a_false_correct_in_your_own_set_fails_and_is_named(tmp_path: Path) -> None:
    sample = {"id": "q1", "input": "7/2 × 3", "target": "21/2", "answer_type": "fraction"}
    rows = [
        {"id": "mine-1", "task": "arithmetic", "sample": sample, "reply": "Final answer: 21/2",
         "label": "correct", "reason": "states 21/2", "form": "fraction"},
        {"id": "mine-2", "task": "arithmetic", "sample": sample, "reply": "Final answer: 10.5",
         "label": "correct", "reason": "10.5 is 21/2", "form": "decimal for fraction"},
        {"id": "mine-3", "task": "arithmetic", "sample": sample, "reply": "Final answer: 21/2",
         "label": "not_correct", "reason": "a deliberately wrong label", "form": "mislabelled"},
    ]  # fmt: skip
    mine = tmp_path / "mine.jsonl"
    mine.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    done = proctor("audit", "--set", mine, cwd=tmp_path)
    out = squash(done.stdout)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "arithmetic (arithmetic/2): 3 labelled replies, 1 agree" in out
    assert "false correct 1 of 1" in out and "false wrong 1 of 2" in out
    assert "classes of disagreement — false wrong: decimal for fraction 1; false correct:" in out
    assert "mine-3 [mislabelled] labelled not_correct" in out


def test_a_malformed_audit_file_is_one_clear_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    row = {"id": "x", "task": "arithmetic", "sample": {"id": "q", "input": "1+1", "target": "2"},
           "reply": "2", "label": "right", "reason": "r", "form": "f"}  # fmt: skip
    bad.write_text(json.dumps(row) + "\n", encoding="utf-8")
    done = proctor("audit", "--set", bad, cwd=tmp_path)
    assert done.returncode == 2
    message = squash(done.stderr)
    assert f"{bad}:1: field 'label'" in message and "use correct or not_correct" in message
    unknown = proctor("audit", "no-such-task", cwd=tmp_path)
    assert unknown.returncode == 2 and "no audit set for task 'no-such-task'" in unknown.stderr


def test_every_report_ends_with_the_grader_audit_line(tmp_path: Path) -> None:
    from proctor.runs.report import grader_audit_line

    recorded = json.loads((AUDIT_DIR / "audited.json").read_text(encoding="utf-8"))["tasks"]
    n = recorded["arithmetic"]["labelled"]
    done = proctor(
        "run", "arithmetic", "-m", "fake/const:Final answer: 1", "--n", "3", "-r", tmp_path / "r",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    line = f"grader audited: 0 false correct in {n} labelled replies"
    assert line in squash(done.stdout)
    (run,) = (tmp_path / "r" / "runs").iterdir()
    assert line in (run / "summary.md").read_text(encoding="utf-8")
    assert line in (run / "report.html").read_text(encoding="utf-8")
    assert grader_audit_line("humaneval").startswith("grader not audited")


def test_every_language_of_the_shipped_sets_has_twenty_replies_and_no_false_correct() -> None:
    from proctor.audit.grader_audit import audit

    result = audit("gsm8k")
    languages = {lang: (n, agree) for lang, n, agree in result.languages}
    assert {"en", "zh", "de", "fr", "es", "pt", "it", "ru", "ja", "ko"} <= set(languages)
    assert {"ar", "hi", "tr", "id", "vi", "nl"} <= set(languages)
    assert all(n >= 20 for n, _ in languages.values()), languages
    assert result.false_correct == 0
    items = load_audit_file(builtin_audit_files()["gsm8k"])
    for lang in languages:
        labels = {i.label for i in items if i.language == lang}
        assert labels == {"correct", "not_correct"}, lang  # right replies and near misses


def test_the_audit_footer_names_the_languages_audited(tmp_path: Path) -> None:
    done = proctor("audit", "gsm8k", cwd=tmp_path)
    out = squash(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "languages audited: ar, de, en, es, fr, hi, id, it, ja, ko, nl, pt, ru, tr, vi, zh" in out
    )
