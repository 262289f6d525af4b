"""The Calibration section: a reliability diagram per model with ECE and Brier, or one line."""

from __future__ import annotations

import re

import pytest

from proctor.report.html import ReportExtras, calibration_of, report_html
from proctor.stats.calibration import summarize_calibration

from .hostile import EVIL_MODEL, Run
from .test_report_html_page import Page

PAIRS: dict[str, list[tuple[float, bool]]] = {
    # Two non-empty bins: [0.9, 1.0] with 3 replies, [0.6, 0.7) with 2.
    "fake/sure": [(0.95, True), (1.0, True), (0.9, False), (0.65, True), (0.6, False)],
    # Over-confident in one bin; a hostile name must stay text.
    EVIL_MODEL: [(0.25, False), (0.9, False)],
}


def _section(html: str) -> str:
    found = re.search(r'<section id="calibration">(.*?)</section>', html, re.S)
    assert found is not None
    return found.group(1)


def test_reliability_chart_per_model_with_diagonal_points_and_scores(hostile: Run) -> None:
    calibration = calibration_of(PAIRS)
    html = report_html(
        hostile.info,
        hostile.metrics,
        hostile.items,
        hostile.rules,
        ReportExtras(calibration=calibration),
    )
    section = _section(html)
    assert "<h2>Calibration</h2>" in section
    assert "not a confidence-scored task" not in section
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
    from proctor.report.html.svg import reliability_chart

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


def test_without_calibration_one_line_says_why(hostile: Run) -> None:
    html = report_html(hostile.info, hostile.metrics, hostile.items, hostile.rules)
    section = _section(html)
    assert "chart-reliability" not in section
    assert '<p class="note">calibration: not a confidence-scored task</p>' in section


def test_no_valid_reply_says_so(hostile: Run) -> None:
    html = report_html(
        hostile.info,
        hostile.metrics,
        hostile.items,
        hostile.rules,
        ReportExtras(calibration=calibration_of({"m": []})),
    )
    section = _section(html)
    assert "chart-reliability" not in section
    assert "no valid reply stated a confidence" in section
