"""The viewer's comparison page, without a server: pairing, verdicts, flips, escaping, and every
number computed once on the items both runs scored (`proctor.stats.comparison`)."""

from __future__ import annotations

import re
from dataclasses import replace

from proctor.report.html import compare_html
from proctor.stats.comparison import ComparedRuns, compare_run_items, model_pairs
from proctor.types import GradedItem, RunInfo
from support.hostile import EVIL_MODEL, MODELS, PWN, Run

View = tuple[RunInfo, list[GradedItem]]


def _view(run: Run, items: list[GradedItem], run_id: str) -> View:
    info = replace(
        run.info, run_id=run_id, models=tuple(dict.fromkeys(i.record.model for i in items))
    )
    return info, items


def _compared(a: View, b: View) -> ComparedRuns:
    return compare_run_items(a[0], a[1], b[0], b[1])


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
    assert model_pairs(a[0].models, b[0].models) == ([(m, m) for m in a[0].models], [], [])
    html = compare_html(_compared(a, b))
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
    a = (replace(hostile.info, models=(MODELS[0],)), one)
    b = (replace(hostile.info, run_id="b", models=("fake/other",)), other)
    assert model_pairs(a[0].models, b[0].models) == ([(MODELS[0], "fake/other")], [], [])
    html = compare_html(_compared(a, b))
    assert f"{MODELS[0]} → fake/other" in html
    assert "no item changed its score" in html


def test_no_model_in_common(hostile: Run) -> None:
    a_items = [i for i in hostile.items if i.record.model != MODELS[2]]
    b_items = [replace(i, record=replace(i.record, model="x/" + i.record.model)) for i in a_items]
    html = compare_html(_compared(_view(hostile, a_items, "a"), _view(hostile, b_items, "b")))
    assert "the two runs have no model in common" in html


def _heat_values(html: str) -> list[str]:
    mark = 'class="chart chart-heatmap"'
    chart = html[html.index(mark) if mark in html else 0 :]
    return re.findall(r">([+−-]\d+\.\d)<", chart)


def test_runs_of_different_sizes_agree_everywhere_on_the_shared_items(hostile: Run) -> None:
    """Run B asked half of A's items the same way, plus items only it has, all right: the heat
    map showed "+40.0" for a category while the paired table said B − A = 0 and "no item
    changed its score". Every number now comes from the items both scored."""
    one = [i for i in hostile.items if i.record.model == MODELS[1]]
    shared = one[: len(one) // 2]
    extra = [
        replace(
            i,
            sample=replace(i.sample, id=f"only-b-{i.sample.id}"),
            score=replace(i.score, outcome="correct"),
        )
        for i in one[len(one) // 2 :]
    ]
    a = _view(hostile, one, "run-a")
    b = _view(hostile, shared + extra, "run-b")
    compared = _compared(a, b)
    (pair,) = compared.pairs
    c = pair.comparison
    assert c.paired.difference == 0 and not c.regressions and not c.improvements
    assert c.side_a.accuracy == c.side_b.accuracy and c.side_a.n == len(shared)
    assert all(moved.change == 0 for moved in c.by_category.values())
    html = compare_html(compared)
    assert "no item changed its score" in html
    nonzero = [v for v in _heat_values(html) if v.strip("+−-") != "0.0"]
    assert not nonzero, nonzero


def test_every_model_of_run_b_is_shown_beside_run_a_s_only_model(hostile: Run) -> None:
    """Run A of one model, run B of two: both of B's are compared with A's (the second was not
    shown at all)."""
    a_items = [i for i in hostile.items if i.record.model == MODELS[0]]
    b_items = [i for i in hostile.items if i.record.model in MODELS[:2]]
    compared = _compared(_view(hostile, a_items, "a"), _view(hostile, b_items, "b"))
    assert [p.name for p in compared.pairs] == [MODELS[0], f"{MODELS[0]} → {MODELS[1]}"]
    html = compare_html(compared)
    assert f"{MODELS[0]} → {MODELS[1]}" in html


def test_a_model_without_a_partner_is_named(hostile: Run) -> None:
    a_items = [i for i in hostile.items if i.record.model in MODELS[:2]]
    b_items = [i for i in hostile.items if i.record.model in (MODELS[0], MODELS[2])]
    compared = _compared(_view(hostile, a_items, "a"), _view(hostile, b_items, "b"))
    assert compared.unpaired_a == (MODELS[1],) and compared.unpaired_b == (MODELS[2],)
    html = compare_html(compared)
    assert "not compared" in html and MODELS[1] in html
