"""`proctor import` on logs written by the real harnesses (tests/foreign/fixtures/README.md says
how they were made), through the CLI; the runs read back from the store."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from proctor.runs.imported import their_accuracy
from proctor.store import RunStore
from proctor.store.imported import verdicts

FIXTURES = Path(__file__).parent / "fixtures"
LM_EVAL = FIXTURES / "lm-eval-0.4.13"
SAMPLES = LM_EVAL / "samples_gsm8k_local_2026-12-01T08-34-44.949223.jsonl"
RESULTS = LM_EVAL / "results_2026-12-01T08-34-44.949223.json"
INSPECT = FIXTURES / "inspect-0.3.285_gsm8k.json"


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


def only_run(results: Path) -> str:
    with RunStore.open(results) as store:
        (run,) = store.list_runs()
    return run.run_id


def lm_eval_lines() -> list[dict[str, object]]:
    return [json.loads(line) for line in SAMPLES.read_text(encoding="utf-8").splitlines()]


def test_lm_eval_verdicts_reproduce_its_reported_accuracy_exactly(tmp_path: Path) -> None:
    done = proctor("import", "lm-eval", str(SAMPLES), "-r", str(tmp_path))
    assert done.returncode == 0, done.stderr
    reported = json.loads(RESULTS.read_text(encoding="utf-8"))["results"]["gsm8k_local"]
    run_id = only_run(tmp_path)
    with RunStore.open(tmp_path) as store:
        stored = verdicts(store, run_id)
        records = store.records(run_id)
        info = store.run_info(run_id)
    assert info.task == "gsm8k" and len(records) == 24
    # Their raw outputs are the records, byte for byte.
    outputs = {line["doc_id"]: line["resps"][0][0] for line in lm_eval_lines()}
    assert sorted(r.text for r in records) == sorted(outputs.values())
    for filt in ("strict-match", "flexible-extract"):
        mine = [v for v in stored if v.grader == f"lm-eval {filt} exact_match"]
        accuracy, n = their_accuracy(mine)
        assert n == 24
        assert accuracy == reported[f"exact_match,{filt}"]  # exactly, as a float
        assert f"they reported {reported[f'exact_match,{filt}']:.6g}" in done.stdout
    assert done.stdout.count("(the same)") == 2 and "DIFFERENT" not in done.stdout


def test_lm_eval_import_lists_every_item_the_graders_grade_differently(tmp_path: Path) -> None:
    done = proctor("import", "lm-eval", str(SAMPLES), "-r", str(tmp_path))
    assert done.returncode == 0, done.stderr
    run_id = only_run(tmp_path)
    with RunStore.open(tmp_path) as store:
        ours = {k[1]: s.outcome for k, s in store.scores(run_id).items()}
        theirs = {
            v.sample_id: v.outcome
            for v in verdicts(store, run_id, "lm-eval strict-match exact_match")
        }
        run_dir = store.run_dir(run_id)
    differ = {s for s in ours if (ours[s] == "correct") != (theirs[s] == "correct")}
    diff = json.loads((run_dir / "import_diff.json").read_text(encoding="utf-8"))
    assert {d["sample_id"] for d in diff["differences"]} == differ
    assert diff["agree"] + len(differ) == 24
    rows = {d["sample_id"]: d for d in diff["differences"]}
    # "#### 64.00": lm-eval compares the strings "64.00" and "64"; the value is right.
    assert rows["gsm8k-test-0005"]["theirs"]["extracted"] == "64.00"
    assert rows["gsm8k-test-0005"]["proctor"]["outcome"] == "correct"
    # A wrong "#### N" is wrong for both; "I am not sure." is correct for neither.
    assert "gsm8k-test-0003" not in rows and ours["gsm8k-test-0003"] == "wrong"
    assert "gsm8k-test-0009" not in rows and ours["gsm8k-test-0009"] != "correct"
    assert f"{len(differ)} differ" in done.stdout
    # The paired verdict of the two graders, and the usual report, on the imported run.
    compare = proctor("compare", run_id, "--imported", "-r", str(tmp_path))
    assert compare.returncode == 0, compare.stderr
    assert "lm-eval strict-match exact_match" in compare.stdout
    assert "proctor gsm8k" in compare.stdout
    report = proctor("report", run_id, "-r", str(tmp_path))
    assert report.returncode == 0, report.stderr


@pytest.mark.parametrize(
    ("log", "n", "epochs"),
    [(INSPECT, 24, 1), (FIXTURES / "inspect-0.3.285_gsm8k_2epochs.deflate.eval", 24, 2)],
)
def test_inspect_log_is_imported_and_its_accuracy_reproduced(
    tmp_path: Path, log: Path, n: int, epochs: int
) -> None:
    done = proctor("import", "inspect", str(log), "-r", str(tmp_path))
    assert done.returncode == 0, done.stderr
    run_id = only_run(tmp_path)
    with RunStore.open(tmp_path) as store:
        records = store.records(run_id)
        stored = verdicts(store, run_id, "inspect match")
        run_dir = store.run_dir(run_id)
    assert len(records) == n and {r.epoch for r in records} == set(range(epochs))
    assert all(r.usage.prompt_tokens > 0 for r in records)  # Inspect logs token usage
    accuracy, _ = their_accuracy(stored)
    assert accuracy == pytest.approx(0.5, abs=1e-12)
    assert "they reported 0.5" in done.stdout and "(the same)" in done.stdout
    diff = json.loads((run_dir / "import_diff.json").read_text(encoding="utf-8"))
    assert diff["harness_version"] == "0.3.285" and diff["differences"]


def test_bad_logs_are_refused_naming_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "logs"
    bad.mkdir()
    lines = SAMPLES.read_text(encoding="utf-8").splitlines()
    cut = bad / "samples_gsm8k_local_2026-12-01T08-34-44.949223.jsonl"
    cut.write_text("\n".join([*lines[:3], lines[3][:100], *lines[4:]]) + "\n", encoding="utf-8")
    done = proctor("import", "lm-eval", str(cut), "-r", str(tmp_path / "r1"))
    assert done.returncode == 2 and f"{cut}:4:" in done.stderr
    loglik = bad / "samples_arc_easy_2026-12-01T00-00-00.jsonl"
    row = {"doc_id": 0, "doc": {}, "target": "A", "resps": [[[-1.5, False]]], "filter": "none",
           "metrics": ["acc"], "acc": 1.0}  # fmt: skip
    loglik.write_text(json.dumps(row) + "\n", encoding="utf-8")
    done = proctor("import", "lm-eval", str(loglik), "-r", str(tmp_path / "r2"))
    assert done.returncode == 2 and f"{loglik}:1:" in done.stderr and "resps" in done.stderr
    other = bad / "samples_hellaswag_2026-12-01T00-00-00.jsonl"
    shutil.copy(SAMPLES, other)
    done = proctor("import", "lm-eval", str(other), "-r", str(tmp_path / "r3"))
    assert done.returncode == 2 and "--task" in done.stderr
    assert not any((tmp_path / r / "proctor.db").exists() for r in ("r1", "r2", "r3"))


@pytest.mark.parametrize("harness, log", [("lm-eval", SAMPLES), ("inspect", INSPECT)])
def test_score_diff_of_an_import_is_against_their_verdicts(
    tmp_path: Path, harness: str, log: Path
) -> None:
    assert proctor("import", harness, str(log), "-r", str(tmp_path)).returncode == 0
    run_id = only_run(tmp_path)
    with RunStore.open(tmp_path) as store:
        run_dir = store.run_dir(run_id)
    differ = json.loads((run_dir / "import_diff.json").read_text(encoding="utf-8"))
    for _ in range(2):  # always against theirs, not against proctor's last grades
        done = proctor("score", run_id, "--diff", "-r", str(tmp_path))
        assert done.returncode == 0, done.stderr
        diff = json.loads((run_dir / "grader_diff.json").read_text(encoding="utf-8"))
        assert diff["old_grader"] == differ["their_grader"]
        assert {f["sample_id"] for f in diff["flipped"]} == {
            d["sample_id"] for d in differ["differences"]
        }
        assert f"{len(diff['flipped'])} verdicts flipped" in done.stdout


def test_a_hostile_model_name_never_drives_the_terminal(tmp_path: Path) -> None:
    """The import's report prints outside text (the model's name, their notes, reply excerpts)
    through the safe console: control characters are shown, never sent."""
    hostile = "evil\x1b]0;pwned\x07\x1b[2Jname"
    done = proctor("import", "lm-eval", str(SAMPLES), "--model", hostile, "-r", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "imported 24 answers of evil" in done.stdout
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
