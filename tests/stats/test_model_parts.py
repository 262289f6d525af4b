"""`stats/model_parts.py`: a run's answers walked one model at a time. The statistics built from
a stream equal those built from the same answers held, part by part, and the stream is never
held: a walk keeps at most one model's answers alive (counted with weak references, not timed
or measured), and a stream asked for a list at once raises."""

from __future__ import annotations

import gc
import math
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TypeVar

import pytest

from proctor.stats.calibration import summarize_calibration
from proctor.stats.gates import evaluate, parse_requirement
from proctor.stats.model_parts import (
    Extras,
    ItemScores,
    ItemStream,
    SampleIndex,
    by_model,
    in_model_order,
)
from proctor.stats.run_statistics import (
    JudgeVerdict,
    RunStatistics,
    TaskView,
    build_statistics,
    failures,
)
from proctor.stats.scores import item_scores
from proctor.stats.tiers import TIERS
from proctor.tasks.gsm8k import lmeval_metrics
from proctor.types import (
    GenerationParams,
    GradedItem,
    Outcome,
    Record,
    RunInfo,
    Sample,
    Score,
    Usage,
)

T = TypeVar("T")

MODELS = ("m/a", "m/b", "m/c", "m/a+calculator")
"""m/c never answers; m/a+calculator is m/a's calculator twin."""


def _item(model: str, i: int, epoch: int, outcome: Outcome) -> GradedItem:
    kind, difficulty = ("add", "big", "")[i % 3], ("easy", "hard")[i % 2]
    sample = Sample(f"s{i:03d}", f"{i} + 7", str(i + 7), category=kind, difficulty=difficulty)
    failed = outcome == "call_failed"
    record = Record(
        run_id="run-1", model=model, sample_id=sample.id, status="call_failed" if failed else "ok",
        text="" if failed else f"Final answer: {i + 7 + (outcome != 'correct')}",
        finish_reason="length" if i % 11 == 0 else "stop", usage=Usage(30 + i, 5 + epoch),
        latency_s=0.5, attempts=1 + (i % 4 == 0), prompt_variant="B", lang="en",
        error="Transient: connection refused" if failed else "", epoch=epoch,
    )  # fmt: skip
    extracted = None if failed else str(i + 7 + (outcome != "correct"))
    score = Score(outcome, "final_answer_line", f"'{extracted}' vs {i + 7}", extracted, extracted)
    return GradedItem(sample, record, score)


def _outcome(m: int, i: int, epoch: int) -> Outcome:
    if (i + m) % 17 == 0:
        return "call_failed"
    if (i * 3 + m + epoch) % 13 == 0:
        return "unscored"
    return "correct" if (i * 7 + m * 5 + epoch * 3) % 10 < 7 - m else "wrong"


def answers(epochs: int, n: int = 40) -> list[GradedItem]:
    """Every model's answers in the store's order (model, then sample, then epoch)."""
    return [
        _item(model, i, e, _outcome(m, i, e))
        for m, model in sorted(enumerate(MODELS), key=lambda x: x[1])
        if model != "m/c"
        for i in range(n)
        for e in range(epochs)
        if not (model == "m/b" and i >= n - 3)  # m/b missed the last items
    ]


class Stream:
    """An `ItemStream` over answers it walks again at each pass; it tracks the items of the
    current walk that are still alive, and refuses to be read whole at once."""

    def __init__(self, items: Sequence[GradedItem]) -> None:
        self._items = items
        self.alive = 0
        self.most_alive = 0

    def __iter__(self) -> Iterator[GradedItem]:
        for item in self._items:
            copy = replace(item)  # a fresh object, as a store page decodes it
            self.alive += 1
            weakref.finalize(copy, self._freed)
            self.most_alive = max(self.most_alive, self.alive)
            yield copy

    def _freed(self) -> None:
        self.alive -= 1

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, item: object) -> bool:
        return any(item == mine for mine in self)

    def __getitem__(self, index: object) -> GradedItem:
        raise AssertionError("a stream is never indexed (nor sliced into a list)")

    @property
    def max_epoch(self) -> int:
        return max((i.record.epoch for i in self._items), default=0)

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(i.record.model for i in self._items))

    def of_model(self, model: str) -> Iterator[GradedItem]:
        return (i for i in self if i.record.model == model)


def _info() -> RunInfo:
    return RunInfo(run_id="run-1", task="arithmetic", models=MODELS, dataset_hash="h",
                   dataset_size=40, generator_version="1", prompt_variant="B", lang="en",
                   created_at="2026-12-01T00:00:00+00:00",
                   params=GenerationParams(max_tokens=64))  # fmt: skip


def _build(items: Sequence[GradedItem] | ItemStream) -> RunStatistics:
    judged = [
        JudgeVerdict("judge/j", "m/a", f"s{i:03d}", 0, pairwise=False,
                     score=None if i % 5 == 0 else i % 4, reason="no verdict" if i % 5 == 0 else "")
        for i in range(10)
    ]  # fmt: skip
    return build_statistics(
        _info(), items, TaskView("arithmetic", tiers=TIERS),
        judge_verdicts=judged, calculator_pairs=[("m/a", "m/a+calculator")],
        gate_requirements=["accuracy >= 0.5"],
    )  # fmt: skip


@pytest.mark.parametrize("epochs", [1, 3])
def test_a_streamed_run_has_the_statistics_of_the_same_run_held(epochs: int) -> None:
    held = answers(epochs)
    stream = Stream(held)
    streamed, kept = _build(stream), _build(held)
    assert streamed.items is stream
    assert replace(streamed, items=()) == replace(kept, items=())
    # every part is there to compare: none is trivially empty
    assert kept.paired and kept.judges and kept.calculator and kept.truncation and kept.gate
    assert kept.taxonomy and kept.completeness.calls_failed
    assert (kept.consistency is not None) == bool(kept.repeats) == (epochs > 1)


def test_a_walk_keeps_at_most_one_models_answers_alive() -> None:
    held = answers(3)
    stream = Stream(held)
    gc.collect()
    build_statistics(_info(), stream, TaskView("arithmetic", tiers=TIERS))
    largest = max(len(group) for _, group in by_model(held))
    # one model's answers, and the next model's first one or two, in flight between them
    assert stream.most_alive <= largest + 2 < len(held) / 2


def test_a_walk_without_repeats_or_extras_holds_no_models_answers() -> None:
    """One reply per item, no task metrics, confidences or gate: each statistic is counted as
    the answers are read, so a walk keeps an answer or two alive, not a model's list, and
    its statistics equal those of the same answers held (and of a shuffled list)."""
    held = answers(1)
    stream = Stream(held)
    gc.collect()
    streamed = build_statistics(_info(), stream, TaskView("arithmetic", tiers=TIERS),
                                calculator_pairs=[("m/a", "m/a+calculator")])  # fmt: skip
    assert stream.most_alive <= 2
    kept = build_statistics(_info(), held, TaskView("arithmetic", tiers=TIERS),
                            calculator_pairs=[("m/a", "m/a+calculator")])  # fmt: skip
    assert replace(streamed, items=()) == replace(kept, items=())
    assert kept.calculator and kept.taxonomy and kept.truncation and kept.paired
    assert kept.completeness.calls_failed and kept.cost


def test_two_scored_replies_to_a_sample_without_repeats_read_the_model_again() -> None:
    """A run whose stored answers name one sample twice at epoch 0 (no repeats): the metrics'
    intervals are clustered by sample, from the model's answers read again, as held."""
    held = answers(1)
    twice = [replace(i, sample=replace(i.sample, id="s000")) if i.sample.id == "s001" else i
             for i in held]  # fmt: skip
    read_again: list[str] = []

    class Counted(Stream):
        def of_model(self, model: str) -> Iterator[GradedItem]:
            read_again.append(model)
            return super().of_model(model)

    streamed = build_statistics(_info(), Counted(twice), TaskView("arithmetic", tiers=TIERS))
    kept = build_statistics(_info(), twice, TaskView("arithmetic", tiers=TIERS))
    assert replace(streamed, items=()) == replace(kept, items=())
    # m/a+calculator and m/b answered s000 and s001 (scored) too; m/a's s000 is a failed call
    assert read_again == ["m/a+calculator", "m/b"]


def test_failure_examples_read_each_model_only_as_far_as_they_need() -> None:
    """`failures` (summary.md's examples): the same answers from a stream as from the list,
    each model's stream left as soon as it has its examples (an item or two alive)."""
    held = answers(3)
    expected: dict[str, list[GradedItem]] = {}
    for item in held:
        if item.score.outcome in ("wrong", "no_answer"):  # those in `answers` that count against
            expected.setdefault(item.record.model, [])
            if len(expected[item.record.model]) < 4:
                expected[item.record.model].append(item)
    handed: list[str] = []

    class Counted(Stream):
        def of_model(self, model: str) -> Iterator[GradedItem]:
            for item in super().of_model(model):
                handed.append(model)
                yield item

    streamed = build_statistics(_info(), Counted(held), TaskView("arithmetic", tiers=TIERS))
    kept = build_statistics(_info(), held, TaskView("arithmetic", tiers=TIERS))
    handed.clear()
    assert failures(streamed, 4) == failures(kept, 4) == {m: tuple(e) for m, e in expected.items()}
    assert sorted(set(handed)) == sorted(expected) and len(handed) < len(held) / 4
    assert set(failures(kept, 0)) == set(expected) and not any(failures(kept, 0).values())


def test_a_stream_split_by_model_is_refused() -> None:
    held = answers(1)
    shuffled = held[5:] + held[:5]  # m/a's first answers come again at the end
    with pytest.raises(ValueError, match="m/a are not together"):
        list(by_model(Stream(shuffled)))
    # counted as read (no Extras, one reply an item): refused all the same
    with pytest.raises(ValueError, match="m/a are not together"):
        build_statistics(_info(), Stream(shuffled), TaskView("arithmetic", tiers=TIERS))


def test_in_model_order_is_the_order_of_models_then_of_appearance() -> None:
    held = answers(1)
    order = ["m/b", "nobody"]
    expected = sorted(held, key=lambda i: (i.record.model != "m/b", i.record.model))
    assert list(in_model_order(held, order)) == expected
    assert list(in_model_order(Stream(held), order)) == expected


def test_item_scores_kept_compact_read_as_the_dict_they_replace() -> None:
    index = SampleIndex()
    held = answers(3)
    per_model = {m: item_scores(g) for m, g in by_model(held)}
    compact = {m: ItemScores(s, index) for m, s in per_model.items()}
    for model, scores in per_model.items():
        got = compact[model]
        assert list(got) == list(scores) and len(got) == len(scores)
        assert dict(got.items()) == scores
    # m/b has no score on the items it missed; nobody has one on an item no model met
    assert "s039" in compact["m/a"] and "s039" not in compact["m/b"]
    assert "nowhere" not in compact["m/a"] and 7 not in compact["m/a"]
    with pytest.raises(KeyError):
        compact["m/b"]["s039"]
    assert not any(math.isnan(v) for s in compact.values() for v in s.values())


# -- what a task or a run adds (its metrics, its confidences, a suite's [gate]) --

GATE = [
    "accuracy >= 0.5",
    "kind=add:n >= 3",
    "model=m/b:failed <= 0.2",
    "model=m/c:accuracy >= 0.5",  # never answered
    "model=nobody:n >= 1",  # not in the run
    "judge_mean >= 2",
]


def _confidences(items: Sequence[GradedItem]) -> dict[str, list[tuple[float, bool]]]:
    """A task's stated confidences: one per answered reply, spread over every bin."""
    out: dict[str, list[tuple[float, bool]]] = {}
    for it in items:
        if it.record.status == "ok":
            c = int(it.sample.id[1:]) * 7 % 11 / 10  # 0.0 … 1.0
            out.setdefault(it.record.model, []).append((c, it.score.outcome == "correct"))
    return out


def _one_model_at_a_time(fn: Callable[[Sequence[GradedItem]], T]) -> Callable[..., T]:
    def checked(items: Sequence[GradedItem]) -> T:
        assert len({i.record.model for i in items}) <= 1, "given several models' answers"
        return fn(items)

    return checked


@pytest.mark.parametrize("epochs", [1, 3])
def test_a_tasks_metrics_confidences_and_gate_read_model_by_model_equal_those_of_every_answer(
    epochs: int,
) -> None:
    """Each model's part made as its answers are read, from a stream never held whole, equals
    what the list-based functions give on every answer at once: lm-eval's metrics (gsm8k), the
    calibration of stated confidences (summarize_calibration of all the pairs), a gate."""
    held = answers(epochs)
    stream = Stream(held)
    extras = Extras(
        metrics=_one_model_at_a_time(lmeval_metrics),
        confidence=_one_model_at_a_time(_confidences),
    )
    built = build_statistics(
        _info(), stream, TaskView("gsm8k"), gate_requirements=GATE, extras=extras,
        judge_verdicts=[JudgeVerdict("judge/j", "m/a", f"s{i:03d}", 0, pairwise=False, score=i % 4)
                        for i in range(10)],
    )  # fmt: skip
    largest = max(len(group) for _, group in by_model(held))
    assert stream.most_alive <= largest + 2 < len(held) / 2
    assert built.task_metrics is not None and built.calibration is not None
    expected = lmeval_metrics(held)
    assert list(built.task_metrics.values) == list(expected) == ["m/a", "m/a+calculator", "m/b"]
    assert built.task_metrics.values == expected
    pairs = _confidences(held)
    calibration = {m: summarize_calibration([c for c, _ in p], [ok for _, ok in p])
                   for m, p in pairs.items()}  # fmt: skip
    assert built.calibration == calibration
    assert sum(b.count > 0 for b in calibration["m/a"].bins) >= 8
    judge = {("m/a", f"s{i:03d}", 0): float(i % 4) for i in range(10)}
    rows = evaluate([parse_requirement(r) for r in GATE], held, MODELS, judge)
    assert built.gate is not None and built.gate.rows == tuple(rows)
    assert len(rows) == 4 + 4 + 1 + 1 + 1 + 4
    assert {r.model for r in rows if r.requirement.startswith("model=")} == {"m/b", "m/c", "nobody"}


def test_a_task_with_no_confidence_or_metric_for_a_model_leaves_it_out() -> None:
    held = answers(1)

    def b_only(items: Sequence[GradedItem]) -> bool:
        return bool(items) and items[0].record.model == "m/b"

    only_b = Extras(
        metrics=lambda items: {"m/b": {"x": 1.0}} if b_only(items) else {},
        confidence=lambda items: {"m/b": [(0.5, True)]} if b_only(items) else {},
    )
    built = build_statistics(_info(), Stream(held), TaskView("t"), extras=only_b)
    assert built.task_metrics is not None and dict(built.task_metrics.values) == {"m/b": {"x": 1.0}}
    assert built.calibration is not None and list(built.calibration) == ["m/b"]
    none = build_statistics(_info(), Stream(held), TaskView("t"),
                            extras=Extras(metrics=lambda items: {}, confidence=lambda items: {}))
    assert none.task_metrics is None and none.calibration is None  # fmt: skip
