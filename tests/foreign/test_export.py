"""`proctor export RUN --to inspect|lm-eval|jsonl -o PATH` through the CLI, on a run made through
the CLI: the files hold every stored answer with the grade proctor gave it, and proctor's own
readers of those harnesses' logs (`proctor import`) read them back with the same verdicts. The
harnesses' own readers are in test_export_peers.py."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from proctor.tasks.maths_version import VERSION as MATHS_VERSION
from support.replayed_run import ALPHA, MadeRun, make_run, proctor


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> MadeRun:
    return make_run(tmp_path_factory.mktemp("export"))


def outcomes(made: MadeRun) -> dict[tuple[str, str, int], str]:
    """(model, sample, epoch) → the outcome in the run's samples.csv."""
    path = made.results / "runs" / made.run_id / "samples.csv"
    with path.open(encoding="utf-8", newline="") as f:
        return {(r["model"], r["sample_id"], int(r["epoch"])): r["outcome"]
                for r in csv.DictReader(f)}  # fmt: skip


def accuracy(made: MadeRun, model: str) -> float:
    results = json.loads((made.results / "runs" / made.run_id / "results.json").read_text())
    (row,) = [m for m in results["models"] if m["model"] == model]
    return float(row["accuracy"])


def export(made: MadeRun, to: str, out: Path) -> list[Path]:
    done = proctor("export", made.run_id, "--to", to, "-o", out, "-r", made.results)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"exported as {to}" in done.stdout
    return sorted(p for p in out.rglob("*") if p.is_file()) if out.is_dir() else [out]


def test_inspect_logs_hold_each_answer_with_proctors_grade(made: MadeRun, tmp_path: Path) -> None:
    files = export(made, "inspect", tmp_path / "logs")
    assert len(files) == 2, files  # one log per model
    graded = outcomes(made)
    alpha, _ = made.models
    letters = {}
    for path in files:
        log = json.loads(path.read_text(encoding="utf-8"))
        model = log["eval"]["model"]
        assert log["version"] == 2 and log["status"] == "success"
        assert path.name.endswith(f"_gsm8k_{log['eval']['task_id']}.json")
        assert len(log["samples"]) == 6 and log["eval"]["config"]["epochs"] == 2
        for s in log["samples"]:
            letters[(model, s["id"], s["epoch"] - 1)] = s["scores"]["proctor"]["value"]
            assert s["messages"][-1] == s["output"]["choices"][0]["message"]
            assert s["messages"][-1]["content"] == s["output"]["completion"]
            assert "Question:" in s["messages"][0]["content"]  # the prompt the run sent
        (score,) = log["results"]["scores"]
        assert score["metrics"]["accuracy"]["value"] == pytest.approx(accuracy(made, model))
    # What must never read as correct first: alpha's wrong reply and its reply without an answer.
    for epoch in (0, 1):
        assert letters[(alpha, "q2", epoch)] == "I"
        assert letters[(alpha, "q3", epoch)] == "N"
    expected = {k: "C" if o == "correct" else "N" if o == "no_answer" else "I"
                for k, o in graded.items()}  # fmt: skip
    assert letters == expected


def test_inspect_logs_read_back_by_proctor_import_agree(made: MadeRun, tmp_path: Path) -> None:
    files = export(made, "inspect", tmp_path / "logs")
    for path in files:
        done = proctor("import", "inspect", path, "-r", tmp_path / "again")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "6 of 6 answers graded alike, 0 differ" in done.stdout
        assert "(the same)" in done.stdout  # its reported accuracy = its verdicts' accuracy


def folder(model: str) -> str:
    """lm-eval's folder of a model (`lm_eval.utils.sanitize_model_name`, as lm-eval 0.4.13)."""
    return re.sub(r"[\"<>:/|\\?*\[\]]+", "__", model)


def test_lm_eval_folder_has_lm_evals_layout_and_reads_back(made: MadeRun, tmp_path: Path) -> None:
    out = tmp_path / "lm"
    files = export(made, "lm-eval", out)
    assert len(files) == 4
    alpha, beta = made.models
    by_folder = {p.parent.name: p for p in files if p.name.startswith("samples_")}
    assert set(by_folder) == {folder(m) for m in made.models}
    for model in made.models:
        samples = by_folder[folder(model)]
        assert samples.name.startswith("samples_gsm8k_") and samples.suffix == ".jsonl"
        (results,) = samples.parent.glob("results_*.json")
        assert results.name.removeprefix("results_") == samples.name.split("_", 2)[2][:-1]
        lines = [json.loads(x) for x in samples.read_text(encoding="utf-8").splitlines()]
        assert [x["doc_id"] for x in lines] == [0, 1, 2]
        assert all(len(x["resps"][0]) == 2 for x in lines)  # both replies, as repeats
        reported = json.loads(results.read_text(encoding="utf-8"))["results"]["gsm8k"]
        assert reported["correct,proctor"] == pytest.approx(accuracy(made, model))
        if model == alpha:  # the must-not-be-correct lines first
            assert [x["correct"] for x in lines] == [1.0, 0.0, 0.0]
            assert lines[1]["resps"][0][0] == ALPHA["[q2]"]
        done = proctor("import", "lm-eval", samples, "-r", tmp_path / "again")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "3 of 3 answers graded alike, 0 differ" in done.stdout
    assert beta != alpha


def test_jsonl_has_one_line_per_stored_answer(made: MadeRun, tmp_path: Path) -> None:
    (path,) = export(made, "jsonl", tmp_path / "answers.jsonl")
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 12
    got = {(x["model"], x["sample_id"], x["epoch"]): x["outcome"] for x in lines}
    assert got == outcomes(made)
    first = lines[0]
    assert first["run_id"] == made.run_id and first["grader_version"] == f"gsm8k/{MATHS_VERSION}"
    assert first["messages"][0]["role"] == "user" and first["reply"]


def test_a_target_of_the_wrong_kind_is_refused_and_nothing_written(
    made: MadeRun, tmp_path: Path
) -> None:
    a_file = tmp_path / "taken"
    a_file.write_text("keep me", encoding="utf-8")
    done = proctor("export", made.run_id, "--to", "inspect", "-o", a_file, "-r", made.results)
    assert done.returncode == 2 and "written as a folder" in done.stderr + done.stdout
    assert a_file.read_text(encoding="utf-8") == "keep me"
    done = proctor("export", made.run_id, "--to", "jsonl", "-o", tmp_path, "-r", made.results)
    assert done.returncode == 2 and "written as one file" in done.stderr + done.stdout
    done = proctor("export", "no-such-run", "--to", "jsonl", "-o", tmp_path / "x.jsonl",
                   "-r", made.results)  # fmt: skip
    assert done.returncode == 2 and not (tmp_path / "x.jsonl").exists()
    assert "Traceback" not in done.stderr


def test_the_run_streamed_every_answer_to_samples_jsonl(made: MadeRun) -> None:
    """Written while the run asked (`proctor.runs.answer_log`), before any grade."""
    path = made.results / "runs" / made.run_id / "samples.jsonl"
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert {(x["model"], x["sample_id"], x["epoch"]) for x in lines} == set(outcomes(made))
    assert len(lines) == 12 and all(x["status"] == "ok" and "outcome" not in x for x in lines)
    by_key = {(x["model"], x["sample_id"]): x["reply"] for x in lines}
    assert by_key[(made.models[0], "q2")] == ALPHA["[q2]"]
