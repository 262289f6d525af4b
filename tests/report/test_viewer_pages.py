"""The viewer's comparison page, without a server: pairing, verdicts, flips, escaping."""

from __future__ import annotations

from dataclasses import replace

from proctor.report.html import RunView, compare_html
from proctor.report.html.viewer_pages import model_pairs
from proctor.stats import summarize
from proctor.types import GradedItem
from support.hostile import EVIL_MODEL, MODELS, PWN, Run


def _view(run: Run, items: list[GradedItem], run_id: str) -> RunView:
    info = replace(
        run.info, run_id=run_id, models=tuple(dict.fromkeys(i.record.model for i in items))
    )
    return RunView(info, summarize(items, models=info.models), items)


def _improve(items: list[GradedItem], model: str, every: int) -> list[GradedItem]:
    """Every `every`-th wrong answer of `model` made right."""
    out, seen = [], 0
    for item in items:
        if item.record.model == model and item.score.outcome == "wrong":
            seen += 1
            if seen % every == 0:
                item = replace(item, score=replace(item.score, outcome="correct"))
        out.append(item)
    return out


def test_pairs_the_same_models_and_lists_flips(hostile: Run) -> None:
    a = _view(hostile, hostile.items, "run-a")
    b_items = _improve(hostile.items, MODELS[1], every=2)
    b = _view(hostile, b_items, "run-b")
    assert model_pairs(a, b) == [
        (m.model, m.model) for m in sorted(a.metrics.models, key=lambda m: -(m.accuracy or 0))
    ]
    html = compare_html(a, b)
    wrong_bad = sum(
        1 for i in hostile.items if i.record.model == MODELS[1] and i.score.outcome == "wrong"
    )
    assert f"{wrong_bad // 2} item(s) changed" in html
    assert html.count('class="name delta-pos">better</td>') == wrong_bad // 2
    assert "not distinguishable" in html or "better than" in html
    assert "&lt;img src=x onerror=window.__pwned=1&gt;" in html
    assert EVIL_MODEL not in html and f"<script>{PWN}" not in html


def test_one_model_each_are_paired_even_when_names_differ(hostile: Run) -> None:
    one = [i for i in hostile.items if i.record.model == MODELS[0]]
    other = [replace(i, record=replace(i.record, model="fake/other")) for i in one]
    a = RunView(replace(hostile.info, models=(MODELS[0],)), summarize(one), one)
    b = RunView(replace(hostile.info, run_id="b", models=("fake/other",)), summarize(other), other)
    assert model_pairs(a, b) == [(MODELS[0], "fake/other")]
    html = compare_html(a, b)
    assert f"{MODELS[0]} → fake/other" in html
    assert "no item changed its score" in html


def test_no_model_in_common(hostile: Run) -> None:
    a_items = [i for i in hostile.items if i.record.model != MODELS[2]]
    b_items = [replace(i, record=replace(i.record, model="x/" + i.record.model)) for i in a_items]
    html = compare_html(_view(hostile, a_items, "a"), _view(hostile, b_items, "b"))
    assert "the two runs have no model in common" in html
