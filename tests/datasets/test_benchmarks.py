"""The shipped benchmark files, their notices and licences, and GPQA from the user's copy."""

from __future__ import annotations

import csv
import gzip
import json
from importlib import resources
from pathlib import Path

import pytest

from proctor.datasets import benchmarks
from proctor.errors import DatasetError
from proctor.extract.normalize import parse_number
from proctor.tasks import gpqa

BUILTIN = resources.files("proctor.datasets").joinpath("builtin")


@pytest.mark.parametrize(
    ("loader", "count"),
    [
        (benchmarks.gsm8k, 1319),
        (benchmarks.math500, 500),
        (benchmarks.aime, 60),
        (benchmarks.humaneval, 164),
        (benchmarks.mbpp, 500),
    ],
)
def test_each_shipped_set_loads_with_unique_ids(loader: object, count: int) -> None:
    samples = loader()  # type: ignore[operator]
    assert len(samples) == count
    assert len({s.id for s in samples}) == count
    assert all(s.input.strip() and s.target.strip() for s in samples)


def test_numeric_targets_are_exact_integers() -> None:
    for s in benchmarks.gsm8k() + benchmarks.aime():
        token = parse_number(s.target)
        assert token is not None and token.value.denominator == 1, s.id
    assert {s.category for s in benchmarks.aime()} == {
        "AIME 2024 I",
        "AIME 2024 II",
        "AIME 2025 I",
        "AIME 2025 II",
    }
    assert len(benchmarks.aime([2025])) == 30


def test_mbpp_splits_and_set_up_code() -> None:
    assert [s.id for s in benchmarks.mbpp("prompt")][:3] == ["mbpp-1", "mbpp-2", "mbpp-3"]
    assert len(benchmarks.mbpp("full")) == 974
    full = {s.id: s for s in benchmarks.mbpp("full")}
    assert "Node(" in full["mbpp-367"].metadata["test_setup_code"]
    assert len(json.loads(full["mbpp-11"].metadata["test_list"])) == 3


def test_notice_names_every_shipped_file_and_each_licence_is_beside_it() -> None:
    notice = BUILTIN.joinpath("NOTICE").read_text(encoding="utf-8")
    for folder, data, licences in (
        ("gsm8k", "test.jsonl", ("LICENSE",)),
        (
            "math500",
            "test.jsonl",
            ("LICENSE.prm800k", "LICENSE.simpleRL-reason_simplelr_math_eval"),
        ),
        ("aime", "aime_2024_2025_matharena.jsonl", ("LICENSE.matharena",)),
        ("humaneval", "HumanEval.jsonl.gz", ("LICENSE",)),
        ("mbpp", "mbpp.jsonl", ("LICENSE.FormulaMonks-llm-benchmarker-suite.md",)),
    ):
        assert f"{folder}/{data}" in notice
        for name in licences:
            assert BUILTIN.joinpath(folder, name).is_file(), (folder, name)
    assert "GPQA is not shipped" in notice


ROWS = [
    {
        "Record ID": f"r{i}",
        "Question": f"Question {i}?",
        "Correct Answer": f"yes {i}",
        "Incorrect Answer 1": f"no a{i}",
        "Incorrect Answer 2": f"no b{i}",
        "Incorrect Answer 3": f"no c{i}",
        "High-level domain": "Chemistry",
    }
    for i in range(12)
]


def write_csv(path: Path, rows: list[dict[str, str]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_gpqa_csv_shuffles_per_item_from_the_seed(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "g.csv", ROWS)
    a, b, c = (benchmarks.gpqa_csv(path, seed=s) for s in (1, 1, 2))
    assert a == b
    assert [s.target for s in a] != [s.target for s in c]
    assert len({s.target for s in a}) > 1  # the correct answer is not always in one place
    for s in a:
        choices = json.loads(s.metadata["choices"])
        correct = choices["ABCD".index(s.target)]
        assert correct.startswith("yes ")
        assert f"{s.target}) {correct}" in s.input


def test_gpqa_csv_names_a_missing_column(tmp_path: Path) -> None:
    rows = [{k: v for k, v in ROWS[0].items() if k != "Incorrect Answer 3"}]
    with pytest.raises(DatasetError, match="Incorrect Answer 3"):
        benchmarks.gpqa_csv(write_csv(tmp_path / "bad.csv", rows))


def test_gpqa_from_hugging_face_goes_through_the_loader_it_is_given() -> None:
    asked: list[tuple[object, ...]] = []

    def fake_load_dataset(path: str, name: str, split: str) -> list[dict[str, str]]:
        asked.append((path, name, split))
        return ROWS[:3]

    samples = benchmarks.gpqa_hf("gpqa_diamond", seed=0, loader=fake_load_dataset)
    assert asked == [("Idavidrein/gpqa", "gpqa_diamond", "train")]
    assert [s.id for s in samples] == ["gpqa-r0", "gpqa-r1", "gpqa-r2"]


def test_gpqa_task_reads_the_users_file_or_hf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_csv(tmp_path / "g.csv", ROWS)
    data = gpqa.load_file(path, 3)
    assert len(data.samples) == 12 and data.generator_version == "gpqa-shuffle-seed-3"
    monkeypatch.setenv("PROCTOR_GPQA", str(path))
    assert gpqa.TASK.load(3, 5).samples == data.samples[:5]

    def fake(path: str, name: str, split: str) -> list[dict[str, str]]:
        return ROWS[:2]

    monkeypatch.setattr(
        benchmarks,
        "gpqa_hf",
        lambda config, seed: benchmarks.gpqa_rows(fake("", config, ""), seed=seed, source=config),
    )
    assert len(gpqa.load_file(Path("hf:gpqa_main"), 0).samples) == 2


@pytest.mark.parametrize(
    ("loader", "name", "line", "field"),
    [
        (benchmarks.gsm8k, "gsm8k", '{"question": "1+1?"}', "answer"),
        (benchmarks.math500, "math500", '{"unique_id": "u", "answer": "2"}', "problem"),
        (benchmarks.aime, "aime", '{"id": 1, "problem": "p", "answer": 3}', "year"),
        (benchmarks.humaneval, "humaneval", '{"task_id": "t", "prompt": null}', "prompt"),
        (benchmarks.mbpp, "mbpp", '{"task_id": 11, "text": "t"}', "code"),
    ],
)
def test_a_shipped_line_without_a_field_names_file_line_and_field(
    monkeypatch: pytest.MonkeyPatch, loader: object, name: str, line: str, field: str
) -> None:
    """A damaged shipped file is never a KeyError: the error names where it is and what lacks."""
    data = f"\n{line}\n".encode()
    monkeypatch.setattr(
        benchmarks,
        "builtin_bytes",
        lambda _name, file: gzip.compress(data) if file.endswith(".gz") else data,
    )
    with pytest.raises(DatasetError) as caught:
        loader()  # type: ignore[operator]
    assert (caught.value.file.startswith(f"builtin/{name}/"), caught.value.line) == (True, 2)
    assert caught.value.field == field
