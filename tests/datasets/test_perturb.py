"""Perturbed variants keep or recompute the answer; the accuracy drop is paired per kind."""

from __future__ import annotations

import json
import random

from proctor.datasets.perturb import change_numbers, perturb, reword, shift_dates
from proctor.stats.perturbation import accuracy_drop
from proctor.tasks.registry import load_for_run
from proctor.tasks.structured import TASK
from proctor.types import GradedItem, Outcome, Record, Sample, Score, Usage

ITEMS = load_for_run(TASK).samples


def test_dates_shift_question_time_and_sources_not_the_answer() -> None:
    s = next(x for x in ITEMS if x.id == "en-router-price")
    v = shift_dates(s, 365)
    assert v is not None and v.id == "en-router-price~dates"
    assert v.metadata["question_time"] == "2025-07-01" and v.target == s.target
    assert "2025-09-30" in v.metadata["sources"] and v.metadata["perturbed_from"] == s.id


def test_numbers_changed_and_answer_recomputed() -> None:
    s = Sample(
        id="ev",
        input="Sales went from 10 million to 14 million. Growth in million?",
        target="4",
        answer_type="integer",
        metadata={"formula": "{b} - {a}", "values": json.dumps({"a": "10", "b": "14"})},
    )
    v = change_numbers(s, random.Random(1))
    assert v is not None
    new = json.loads(v.metadata["values"])
    assert (
        v.input == f"Sales went from {new['a']} million to {new['b']} million. Growth in million?"
    )
    assert v.target == str(int(new["b"]) - int(new["a"]))
    assert change_numbers(ITEMS[0], random.Random(1)) is None


def test_wording_and_the_whole_set_is_seeded() -> None:
    zh = next(x for x in ITEMS if x.id == "zh-gdp-2023")
    v = reword(zh)
    assert v is not None and "为多少" in v.input and v.target == zh.target
    assert perturb(ITEMS, seed=3) == perturb(ITEMS, seed=3)
    assert len(perturb(ITEMS)) > len(ITEMS)


def _item(sample: Sample, outcome: Outcome, model: str = "m") -> GradedItem:
    record = Record("r", model, sample.id, "ok", "", "stop", Usage(), 0.0, 1, "json", "en")
    return GradedItem(sample, record, Score(outcome, "rule", ""))


def test_accuracy_drop_is_paired_per_kind() -> None:
    base = [ITEMS[0], ITEMS[1]]
    variants = perturb(base, kinds=("dates",), seed=0)
    outcomes: dict[str, Outcome] = {
        ITEMS[0].id: "correct",
        ITEMS[1].id: "correct",
        f"{ITEMS[0].id}~dates": "wrong",
        f"{ITEMS[1].id}~dates": "correct",
    }
    items = [_item(s, outcomes[s.id]) for s in variants]
    items.append(_item(variants[1], "call_failed", model="other"))
    (drop,) = accuracy_drop(items)
    assert (drop.kind, drop.pairs, drop.original_accuracy, drop.perturbed_accuracy) == (
        "dates",
        2,
        1.0,
        0.5,
    )
    assert drop.drop == 0.5 and drop.flipped == (ITEMS[0].id,)


def test_perturbed_task_recomputes_the_shipped_formula_item() -> None:
    from proctor.tasks.registry import get_task

    data = get_task("structured-perturbed").load(None, None)
    kinds = {s.metadata.get("perturbation") for s in data.samples}
    assert kinds == {None, "dates", "numbers", "wording"}
    v = next(s for s in data.samples if s.id == "en-ev-growth~numbers")
    values = json.loads(v.metadata["values"])
    assert f"2022: {values['a']} million" in v.metadata["sources"]
    assert float(v.target) == float(values["b"]) - float(values["a"])
