"""report.html of a big run carries a bounded sample of its answers (every model's answers to the
paper's first samples) and says how many and where the rest are; samples.csv keeps them all."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from proctor.report import write_run_files
from proctor.report.html import Links, report_html, samples_html
from proctor.report.html.report_page import REPORT_ANSWERS
from proctor.report.html.sample_data import first_samples
from report.conftest import build_many


def _document(html: str) -> dict[str, object]:
    found = re.search(r'<script type="application/json" id="proctor-data">(.*?)</script>', html)
    assert found is not None
    document: dict[str, object] = json.loads(found.group(1))
    return document


def test_a_big_run_embeds_whole_samples_up_to_the_bound_and_says_so(tmp_path: Path) -> None:
    models, n = 3, REPORT_ANSWERS // 3 + 34  # 5,100 answers: over the bound
    stats = build_many(models, n).stats
    html = report_html(stats)
    document = _document(html)
    rows = document["rows"]
    samples = document["samples"]
    assert isinstance(rows, list) and isinstance(samples, list)
    kept = REPORT_ANSWERS // models  # whole samples only: 1,666 × 3 = 4,998
    assert len(samples) == kept and len(rows) == kept * models
    assert [s[0] for s in samples] == [f"s{i}" for i in range(kept)]  # the paper's first ones
    per_sample: dict[int, set[int]] = {}
    for row in rows:
        per_sample.setdefault(row[1], set()).add(row[0])
    assert all(len(m) == models for m in per_sample.values())  # every model's answer to each
    said = re.sub(r"\s+", " ", html)
    assert (
        f"This page carries {kept * models} of the run's {models * n} answers: every model's"
        f" answers to the first {kept} of {n} samples. All {models * n} are in samples.csv"
    ) in said
    write_run_files(tmp_path, stats)
    with (tmp_path / "samples.csv").open(newline="", encoding="utf-8") as f:
        assert sum(1 for _ in csv.reader(f)) == 1 + models * n  # the CSV keeps every answer


def test_the_viewer_report_page_points_to_its_samples_page() -> None:
    stats = build_many(3, REPORT_ANSWERS // 3 + 34).stats
    html = report_html(stats, links=Links(report="/runs/r", samples="/runs/r/samples"))
    said = re.sub(r"\s+", " ", html)
    assert 'are on <a href="/runs/r/samples">the samples page</a> and in the run folder' in said
    assert "next to this file" not in said


def test_a_run_within_the_bound_embeds_every_answer_and_no_note() -> None:
    stats = build_many(2, 40).stats
    html = report_html(stats)
    rows = _document(html)["rows"]
    assert isinstance(rows, list) and len(rows) == 80
    assert 'id="samples-shown"' not in html


def test_the_viewer_samples_page_carries_every_answer() -> None:
    stats = build_many(3, REPORT_ANSWERS // 3 + 34).stats
    rows = _document(samples_html(stats))["rows"]
    assert isinstance(rows, list) and len(rows) == len(stats.items)


def test_one_sample_bigger_than_the_bound_is_still_shown_whole() -> None:
    items = build_many(3, 2).items  # 3 answers per sample
    kept, shown = first_samples(items, 2)
    assert {i.sample.id for i in kept} == {"s0"} and len(kept) == 3
    assert (shown.answers, shown.total_answers, shown.samples, shown.total_samples) == (3, 6, 1, 2)
    assert not shown.complete
    kept, shown = first_samples(items, 6)
    assert len(kept) == 6 and shown.complete
