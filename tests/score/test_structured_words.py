"""Answers in the words models use, graded through the public path: `proctor run structured
--dataset …` against the loopback stub, which replays one scripted reply per question; the
verdicts are read back from the run's samples.csv and task_metrics.json.

cases/words_cases.json: free-text answers to the shipped items, with the shipped contracts.
The calibration test scripts a perfectly calibrated model that answers with units and checks
the task's ECE and Brier (task_metrics.json) against the formulas, computed here.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.datasets.benchmarks import builtin_bytes
from support.stub import StubConfig, StubHandle, run_stub

CASES = Path(__file__).parent / "cases"
ENV = {"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"}
SHIPPED = {
    row["id"]: row
    for row in map(json.loads, builtin_bytes("structured", "items.jsonl").decode().splitlines())
}


def reply(answer: str, confidence: float, item: Mapping[str, Any]) -> str:
    """A reply in the protocol, citing the item's exact data point and a second source."""
    cited = [item["data_point"][0], *(s["id"] for s in item["sources"][1:2])]
    until = "FOREVER" if not item["time_sensitive"] else item["question_time"]
    return json.dumps(
        {"answer": answer, "confidence_score": confidence, "source_citation": cited,
         "valid_until": until},
        ensure_ascii=False,
    )  # fmt: skip


def items_and_replies(
    rows: list[tuple[str, str, str, float]],
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """(row id, shipped item id, answer, confidence) → one dataset item per row (the shipped
    item under the row's id, its question marked so the stub can tell them apart) and the
    stub's scripted replies."""
    items, replies = [], {}
    for row_id, item_id, answer, confidence in rows:
        marker = f"[{row_id}]"
        item = dict(
            SHIPPED[item_id], id=row_id, question=f"{marker} {SHIPPED[item_id]['question']}"
        )
        items.append(item)
        replies[marker] = reply(answer, confidence, item)
    return items, replies


@pytest.fixture(scope="module")
def stub_factory() -> Iterator[Any]:
    handles: list[Any] = []

    def start(replies: Mapping[str, str]) -> StubHandle:
        cm = run_stub(StubConfig(answer_mode="script", replies=tuple(replies.items())))
        handles.append(cm)
        return cm.__enter__()

    yield start
    for cm in handles:
        cm.__exit__(None, None, None)


def run_cli(tmp: Path, items: list[dict[str, Any]], stub: StubHandle) -> tuple[Path, str]:
    """`proctor run structured --dataset` against the stub; the run folder and the output."""
    dataset = tmp / "items.jsonl"
    dataset.write_text("\n".join(json.dumps(i, ensure_ascii=False) for i in items) + "\n")
    results = tmp / "results"
    model = f"openai-compat/scripted@{stub.base_url}"
    args = ["run", "structured", "--dataset", str(dataset), "-m", model, "-r", str(results),
            "--concurrency", "8", "--max-attempts", "1"]  # fmt: skip
    result = CliRunner().invoke(app, args, env=ENV, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    (run,) = (results / "runs").iterdir()
    return run, result.output


def outcomes(run: Path) -> dict[str, dict[str, str]]:
    with (run / "samples.csv").open(encoding="utf-8", newline="") as f:
        return {r["sample_id"]: r for r in csv.DictReader(f)}


def test_free_text_answers_through_the_cli(tmp_path: Path, stub_factory: Any) -> None:
    table = json.loads((CASES / "words_cases.json").read_text(encoding="utf-8"))["rows"]
    assert len(table) >= 60 and len({r["id"] for r in table}) == len(table)
    assert {SHIPPED[r["item"]]["lang"] for r in table} == {"en", "zh"}
    items, replies = items_and_replies([(r["id"], r["item"], r["answer"], 0.9) for r in table])
    run, _ = run_cli(tmp_path, items, stub_factory(replies))
    got = outcomes(run)
    failures = [
        f"{r['id']}: {r['answer']!r} expected {r['verdict']}, got {got[r['id']]['outcome']} "
        f"({got[r['id']]['explanation'].splitlines()[0]})"
        for r in table
        if got[r["id"]]["outcome"] != r["verdict"]
    ]
    assert not failures, f"{len(failures)} of {len(table)} rows failed:\n" + "\n".join(failures)
    for r in table:  # every verdict says why, naming the answer it read
        first = got[r["id"]]["explanation"].splitlines()[0]
        assert (r["answer"][:8] in first and "[quantity_" in first) or "[answer_text]" in first


# A scripted model, perfectly calibrated: at each stated confidence, that share of its answers
# is right. Right answers carry units the way models write them; wrong ones a wrong unit, scale
# or value.
CALIBRATED = [
    # confidence 1.0: 5 of 5 right
    ("en-lithium-2023", "About 180,000 tonnes (USGS estimate).", 1.0, True),
    ("zh-gdp-2023", "1260582亿元", 1.0, True),
    ("zh-nev-share", "百分之35.7", 1.0, True),
    ("en-acme-revenue", "$12.4 billion", 1.0, True),
    ("en-capital-australia", "Canberra", 1.0, True),
    # confidence 0.8: 4 of 5 right
    ("en-fed-rate", "5.5%", 0.8, True),
    ("en-water-boils", "100 °C", 0.8, True),
    ("zh-water-boils", "100℃", 0.8, True),
    ("en-speed-of-light", "299,792.458 km/s", 0.8, True),
    ("en-router-price", "$89", 0.8, False),
    # confidence 0.6: 3 of 5 right
    ("zh-xinghe-revenue", "56.8亿元", 0.6, True),
    ("zh-lpr", "百分之三点三五", 0.6, True),
    ("zh-linjiang-population", "318.6万人", 0.6, True),
    ("en-northbridge-population", "412,300 households", 0.6, False),
    ("zh-metro-fare", "7角", 0.6, False),
    # confidence 0.4: 2 of 5 right
    ("en-hypotenuse", "5 cm", 0.4, True),
    ("zh-capital-china", "北京", 0.4, True),
    ("en-ev-growth", "3.5 thousand", 0.4, False),
    ("zh-pi-two-places", "3.1416", 0.4, False),
    ("zh-oxygen-number", "十六", 0.4, False),
]


def expected_calibration(pairs: list[tuple[float, bool]], bins: int = 10) -> dict[str, float]:
    """ECE (10 equal bins, the top one closed), Brier, and mean calibration axis, from their
    formulas."""
    n = len(pairs)
    ece = 0.0
    for b in range(bins):
        inside = [
            (c, y)
            for c, y in pairs
            if b / bins <= c < (b + 1) / bins or (b == bins - 1 and c == 1.0)
        ]
        if inside:
            accuracy = sum(y for _, y in inside) / len(inside)
            confidence = sum(c for c, _ in inside) / len(inside)
            ece += len(inside) / n * abs(accuracy - confidence)
    brier = sum((c - y) ** 2 for c, y in pairs) / n
    axis = sum(1 - abs(c - y) for c, y in pairs) / n
    return {"ECE": ece, "Brier": brier, "calibration (mean)": axis}


def test_calibrated_model_answering_with_units(tmp_path: Path, stub_factory: Any) -> None:
    assert {i for i, *_ in CALIBRATED} == set(SHIPPED)
    rows = [(item_id, item_id, answer, conf) for item_id, answer, conf, _ in CALIBRATED]
    items, replies = items_and_replies(rows)
    run, _ = run_cli(tmp_path, items, stub_factory(replies))
    got = outcomes(run)
    for item_id, answer, _, right in CALIBRATED:
        assert got[item_id]["outcome"] == ("correct" if right else "wrong"), (answer, got[item_id])
    document = json.loads((run / "task_metrics.json").read_text(encoding="utf-8"))
    (metrics,) = document["models"].values()
    want = expected_calibration([(c, right) for _, _, c, right in CALIBRATED])
    assert want["ECE"] == pytest.approx(0.0) and want["Brier"] == pytest.approx(0.16)
    for name, value in want.items():
        assert metrics[name] == pytest.approx(value, abs=1e-9), name
    assert "unscored answers" not in metrics
