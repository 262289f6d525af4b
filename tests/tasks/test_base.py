"""Tasks: the balanced prefix behind --limit, loading a run's samples, the task registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.datasets.jsonl import content_hash
from proctor.errors import ConfigError, DatasetError
from proctor.tasks.arithmetic import TASK
from proctor.tasks.base import first_n_balanced
from proctor.tasks.registry import TASKS, get_task, load_for_run
from proctor.types import Sample


def s(sid: str, category: str) -> Sample:
    return Sample(id=sid, input=f"q {sid}", target="1", category=category)


# three categories of unequal size, interleaved in file order
POOL = (
    s("a1", "a"),
    s("a2", "a"),
    s("b1", "b"),
    s("a3", "a"),
    s("c1", "c"),
    s("b2", "b"),
    s("a4", "a"),
)


def ids(samples: tuple[Sample, ...]) -> list[str]:
    return [x.id for x in samples]


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1, ["a1"]),
        (2, ["a1", "b1"]),
        (3, ["a1", "b1", "c1"]),
        (4, ["a1", "b1", "c1", "a2"]),
        (5, ["a1", "b1", "c1", "a2", "b2"]),
        (6, ["a1", "b1", "c1", "a2", "b2", "a3"]),
    ],
)
def test_first_n_balanced_is_round_robin(n: int, expected: list[str]) -> None:
    assert ids(first_n_balanced(POOL, n)) == expected


def test_first_n_balanced_covers_every_category_when_n_allows() -> None:
    picked = first_n_balanced(POOL, 3)
    assert {x.category for x in picked} == {"a", "b", "c"}


def test_first_n_balanced_is_deterministic() -> None:
    assert first_n_balanced(POOL, 5) == first_n_balanced(POOL, 5)
    assert first_n_balanced(list(POOL), 5) == first_n_balanced(POOL, 5)


@pytest.mark.parametrize("n", [None, len(POOL), len(POOL) + 1, 1000])
def test_first_n_balanced_all_when_n_is_none_or_large(n: int | None) -> None:
    assert first_n_balanced(POOL, n) == POOL


def test_first_n_balanced_zero_is_empty() -> None:
    assert first_n_balanced(POOL, 0) == ()


def test_first_n_balanced_takes_no_duplicates() -> None:
    picked = first_n_balanced(POOL, 6)
    assert len(set(ids(picked))) == len(picked) == 6


def test_first_n_balanced_single_category_keeps_order() -> None:
    same = tuple(s(f"x{i}", "") for i in range(5))
    assert first_n_balanced(same, 3) == same[:3]


def test_limit_on_the_builtin_task_covers_its_categories() -> None:
    full = load_for_run(TASK)
    categories = {x.category for x in full.samples}
    limited = load_for_run(TASK, limit=len(categories))
    assert {x.category for x in limited.samples} == categories


def test_load_for_run_builtin_is_seeded() -> None:
    a = load_for_run(TASK, seed=7, n=12)
    b = load_for_run(TASK, seed=7, n=12)
    c = load_for_run(TASK, seed=8, n=12)
    assert a == b
    assert len(a.samples) == 12
    assert a.content_hash != c.content_hash
    assert a.source == "generator"
    assert a.generator_version == "arith-2"


@pytest.fixture
def jsonl_file(tmp_path: Path) -> Path:
    rows = [
        {"id": "p1", "input": "1 + 1", "target": "2", "category": "add"},
        {"id": "p2", "input": "2 + 2", "target": "4", "category": "add"},
        {"id": "m1", "input": "3 * 3", "target": "9", "category": "mul"},
        {"id": "m2", "input": "1.5 * 2", "target": "3.0", "category": "mul", "decimals": 1},
    ]
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_load_for_run_reads_a_dataset_file(jsonl_file: Path) -> None:
    data = load_for_run(TASK, dataset=jsonl_file)
    assert ids(data.samples) == ["p1", "p2", "m1", "m2"]
    assert data.source == str(jsonl_file)
    assert data.generator_version == "file"
    assert data.content_hash == content_hash(data.samples)
    assert data.samples[3].answer_type == "decimal"
    assert data.samples[3].decimals == 1


def test_load_for_run_dataset_with_limit(jsonl_file: Path) -> None:
    data = load_for_run(TASK, dataset=jsonl_file, limit=2)
    assert ids(data.samples) == ["p1", "m1"]
    # the hash is of exactly the samples that will be asked
    assert data.content_hash == content_hash(data.samples)
    assert data.content_hash != load_for_run(TASK, dataset=jsonl_file).content_hash


def test_dataset_file_ignores_seed_and_n(jsonl_file: Path) -> None:
    assert load_for_run(TASK, dataset=jsonl_file, seed=1, n=1) == load_for_run(
        TASK, dataset=jsonl_file
    )


@pytest.mark.parametrize("limit", [0, -1])
def test_limit_below_one_is_a_config_error(limit: int) -> None:
    with pytest.raises(ConfigError, match="--limit"):
        load_for_run(TASK, limit=limit)


def test_bad_dataset_file_is_a_dataset_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "input": "1 + 1"}\n', encoding="utf-8")
    with pytest.raises(DatasetError) as info:
        load_for_run(TASK, dataset=bad)
    assert info.value.line == 1


def test_get_task_known() -> None:
    assert get_task("arithmetic") is TASK
    assert "arithmetic" in TASKS


def test_get_task_unknown_lists_known_tasks() -> None:
    with pytest.raises(ConfigError) as info:
        get_task("arithmetik")
    message = str(info.value)
    assert "unknown task 'arithmetik'" in message
    for name in TASKS:
        assert name in message


@pytest.mark.parametrize("name", ["arithmetic", "gsm8k", "math500", "aime", "humaneval", "mbpp",
                                  "structured", "structured-perturbed"])  # fmt: skip
def test_a_whole_paper_keeps_the_hash_of_exactly_its_samples(name: str) -> None:
    """load_for_run reuses the loader's hash for a whole paper (no --limit): it must be the hash
    of exactly the samples asked, as it is with a --limit."""
    task = get_task(name)
    whole = load_for_run(task, n=12 if name == "arithmetic" else None)
    assert whole.content_hash == content_hash(whole.samples)
    limited = load_for_run(task, n=12 if name == "arithmetic" else None, limit=3)
    assert limited.content_hash == content_hash(limited.samples) != whole.content_hash
