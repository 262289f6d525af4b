from __future__ import annotations

import csv
import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from proctor.errors import StoreError
from proctor.report import write_run_files
from proctor.report.samples_csv import COLUMNS, rule_explanation
from proctor.types import Score

from .conftest import TRICKY_RESPONSE, Run


def _write(run: Run, tmp_path: Path) -> dict[str, Path]:
    paths = write_run_files(tmp_path / "run", run.stats)
    return {path.name: path for path in paths}


def test_writes_four_files_and_no_leftovers(run: Run, tmp_path: Path) -> None:
    paths = _write(run, tmp_path)
    assert sorted(paths) == ["report.html", "results.json", "samples.csv", "summary.md"]
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == sorted(paths)


def test_results_json(run: Run, tmp_path: Path) -> None:
    doc = json.loads(_write(run, tmp_path)["results.json"].read_text(encoding="utf-8"))
    assert doc["schema"] == "proctor.results/1"
    assert doc["run"]["dataset"] == {"hash": "sha256:0123456789abcdef", "size": 10}
    assert doc["run"]["generator_version"] == "arith-1.2.0"
    assert doc["run"]["params"]["max_tokens"] == 512
    assert doc["run"]["params"]["temperature"] == 0.0
    assert doc["run"]["seed"] == 42
    assert [m["model"] for m in doc["models"]] == ["openai/gpt-4o", "local/smol|lm"]
    strong, weak = doc["models"]
    expected = run.metrics.model("openai/gpt-4o")
    assert strong["rank"] == 1 and weak["rank"] == 2
    assert strong["accuracy"] == expected.accuracy == 0.75
    assert (strong["ci_low"], strong["ci_high"]) == (expected.ci_low, expected.ci_high)
    assert (strong["correct"], strong["n_scored"], strong["n_items"]) == (3, 4, 4)
    assert strong["tier"] == "?"  # 3/4: the interval 30.1–95.4 spans tiers A to D
    assert strong["tier_label"].startswith("withheld: the 95 % interval 30.1–95.4 %")
    assert strong["retries"] == 2
    assert strong["tokens"] == {"prompt": 160, "completion": 48, "answers_with_unknown_counts": 0}
    assert set(strong["by_category"]["decimal"]) >= {"accuracy", "ci_low", "ci_high", "n"}
    assert strong["by_category"]["decimal"]["accuracy"] == 0.5
    assert list(strong["by_difficulty"]) == ["easy", "medium", "hard"]
    assert weak["outcomes"]["call_failed"] == 1
    assert weak["n_items"] == 10 and weak["n_scored"] == 9
    assert weak["format_compliance"] == pytest.approx(1 / 9)


def test_samples_csv_round_trips(run: Run, tmp_path: Path) -> None:
    path = _write(run, tmp_path)["samples.csv"]
    assert not path.read_bytes().startswith(b"\xef\xbb\xbf")
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames or ()) == COLUMNS
        rows = list(reader)
    assert len(rows) == len(run.items)
    assert rows[0]["raw_response"] == TRICKY_RESPONSE
    assert rows[0]["model"] == "openai/gpt-4o"
    weak = [r for r in rows if r["model"] == "local/smol|lm"]
    weak_input = next(r for r in weak if r["sample_id"] == "int_0")
    assert weak_input["input"] == "a | b\nsecond line"
    failed = next(r for r in rows if r["outcome"] == "call_failed")
    assert failed["extracted"] == "" and failed["error"] == "Transient: read timeout"
    assert rows[0]["rule_explanation"] == (
        "The answer is read from the last 'Final answer:' line. "
        "The number must equal the target exactly."
    )
    assert rows[3]["attempts"] == "3"


def test_samples_csv_groups_rows_by_model(run: Run, tmp_path: Path) -> None:
    items = [run.items[4], run.items[0], run.items[5], run.items[1]]  # interleaved
    paths = write_run_files(tmp_path, replace(run, items=items).stats)
    with paths[1].open(encoding="utf-8", newline="") as handle:
        models = [row["model"] for row in csv.DictReader(handle)]
    assert models == ["openai/gpt-4o", "openai/gpt-4o", "local/smol|lm", "local/smol|lm"]


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("numeric", "N."),
        ("extract+numeric", "E. N."),
        ("extract+missing", "E."),
        ("missing", "own words"),
        ("whole+rule", "W."),
    ],
)
def test_rule_explanation(rule: str, expected: str) -> None:
    rules = {"numeric": "N.", "extract": "E.", "whole+rule": "W."}
    score = Score(outcome="wrong", rule=rule, explanation="own words")
    assert rule_explanation(score, rules) == expected


def test_rewrite_replaces_and_a_failed_write_keeps_the_old_file(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _write(run, tmp_path)["results.json"]
    before = first.read_bytes()
    _write(run, tmp_path)
    assert first.read_bytes() == before

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(StoreError, match=r"cannot write .*results\.json: disk full"):
        _write(run, tmp_path)  # one line naming the file, not an OSError traceback
    assert first.read_bytes() == before
    assert sorted(p.name for p in first.parent.iterdir()) == [
        "report.html",
        "results.json",
        "samples.csv",
        "summary.md",
    ]
