"""The Calibration section: a reliability diagram per model with ECE and Brier, or one line."""

from __future__ import annotations

import re

import pytest

from proctor.report.html import report_html
from proctor.stats.calibration import summarize_calibration
from support.hostile import EVIL_MODEL, Run
from support.run_stats import statistics

from .test_html import Page

PAIRS: dict[str, list[tuple[float, bool]]] = {
    # Two non-empty bins: [0.9, 1.0] with 3 replies, [0.6, 0.7) with 2.
    "fake/sure": [(0.95, True), (1.0, True), (0.9, False), (0.65, True), (0.6, False)],
    # Over-confident in one bin; a hostile name must stay text.
    EVIL_MODEL: [(0.25, False), (0.9, False)],
}


def _section(html: str) -> str:
    found = re.search(r'<section id="calibration"[^>]*>(.*?)</section>', html, re.S)
    assert found is not None
    return found.group(1)


def test_reliability_chart_per_model_with_diagonal_points_and_scores(hostile: Run) -> None:
    html = report_html(
        statistics(hostile.info, hostile.items, hostile.rules, confidence_pairs=PAIRS)
    )
    section = _section(html)
    assert "<h2>Calibration</h2>" in section
    calibration = {m: summarize_calibration(*zip(*p, strict=True)) for m, p in PAIRS.items()}
    charts = re.findall(r'<svg class="chart chart-reliability".*?</svg>', section, re.S)
    assert len(charts) == 2
    by_model = {m: c for m in PAIRS for c in charts if f"ECE {calibration[m].ece:.3f}" in c}
    assert len(by_model) == 2
    sure = by_model["fake/sure"]
    assert sure.count('class="diagonal"') == 1
    assert sure.count('class="bin point"') == 2  # 0.9–1.0 and 0.6–0.7
    assert re.findall(r'data-count="(\d+)"', sure) == ["2", "3"]
    summary = summarize_calibration(*zip(*PAIRS["fake/sure"], strict=True))
    assert f"ECE {summary.ece:.3f}" in sure and f"Brier {summary.brier:.3f}" in sure
    evil = by_model[EVIL_MODEL]
    assert evil.count('class="bin point"') == 2
    assert "<img" not in evil and "&lt;img" in evil
    page = Page(html)
    assert all("style" not in attrs for _, attrs in page.tags)


def test_point_sits_at_mean_confidence_and_accuracy() -> None:
    from proctor.report.html.svg_plots import reliability_chart

    summary = summarize_calibration([0.5, 0.5], [True, False], bins=10)
    chart = str(reliability_chart("m", summary, label="x"))
    (point,) = re.findall(r'<circle class="bin point" cx="([\d.]+)" cy="([\d.]+)"', chart)
    line = re.search(
        r'class="diagonal" x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)"', chart
    )
    assert line is not None
    x1, y1, x2, y2 = map(float, line.groups())
    # (0.5, 0.5) lies on the diagonal, halfway along it.
    assert float(point[0]) == pytest.approx((x1 + x2) / 2, abs=0.1)
    assert float(point[1]) == pytest.approx((y1 + y2) / 2, abs=0.1)


def test_without_calibration_there_is_no_section(hostile: Run) -> None:
    """A task that asks for no confidence, or a run where no valid reply stated one, has no
    calibration section (no empty one)."""
    for given in (None, {"m": []}):
        html = report_html(
            statistics(hostile.info, hostile.items, hostile.rules, confidence_pairs=given)
        )
        assert 'id="calibration"' not in html and "chart-reliability" not in html
