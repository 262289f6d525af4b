"""The public benchmarks as Samples: the files shipped in `builtin/` (read with importlib.resources,
so they work from a wheel), and GPQA from the user's own copy.

Each loader gives stable ids, the exact target and what grading needs in `metadata` (strings;
lists as JSON). See builtin/NOTICE for each file's source and licence.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from proctor.datasets.records import read_text
from proctor.errors import ConfigError, DatasetError
from proctor.types import Sample

MBPP_SPLITS: dict[str, range] = {
    "prompt": range(1, 11),
    "test": range(11, 511),
    "validation": range(511, 601),
    "train": range(601, 975),
    "full": range(1, 975),
}


def builtin_bytes(name: str, file: str) -> bytes:
    """The bytes of a shipped file, e.g. ("gsm8k", "test.jsonl")."""
    return resources.files("proctor.datasets").joinpath("builtin", name, file).read_bytes()


class _Row:
    """One line of a shipped JSONL file: a field it lacks is a DatasetError naming the file, the
    line and the field."""

    def __init__(self, source: str, number: int, data: Mapping[str, Any]) -> None:
        self.number = number
        """The line's number in the file, from 1."""
        self._source = source
        self._data = data

    def need(self, field: str) -> Any:
        value = self._data.get(field)
        if value is None:
            raise DatasetError(self._source, self.number, field, "missing")
        return value

    def text(self, field: str) -> str:
        return str(self.need(field))

    def get(self, field: str, default: Any = "") -> Any:
        return self._data.get(field, default)

    def __contains__(self, field: str) -> bool:
        return field in self._data


def _rows(name: str, file: str) -> Iterator[_Row]:
    data = builtin_bytes(name, file)
    if file.endswith(".gz"):
        data = gzip.decompress(data)
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if line.strip():
            yield _Row(f"builtin/{name}/{file}", number, json.loads(line))


def gsm8k() -> tuple[Sample, ...]:
    """GSM8K test: the target is the number after "####", thousands commas removed."""
    return tuple(
        Sample(
            id=f"gsm8k-test-{row.number - 1:04d}",
            input=row.text("question"),
            target=row.text("answer").rsplit("####", 1)[-1].strip().replace(",", ""),
            answer_type="integer",
            metadata={"solution": row.text("answer")},
        )
        for row in _rows("gsm8k", "test.jsonl")
    )


def math500() -> tuple[Sample, ...]:
    """MATH-500: category is the subject, difficulty the level ("level 1" … "level 5")."""
    return tuple(
        Sample(
            id=row.text("unique_id"),
            input=row.text("problem"),
            target=row.text("answer"),
            category=str(row.get("subject")),
            difficulty=f"level {row.get('level')}" if "level" in row else "",
            answer_type="text",
            metadata={"solution": str(row.get("solution"))},
        )
        for row in _rows("math500", "test.jsonl")
    )


def aime(years: Iterable[int] = (2024, 2025)) -> tuple[Sample, ...]:
    """AIME I and II of the given years; category is the exam ("AIME 2024 I"); answers 0-999."""
    wanted = set(years)
    return tuple(
        Sample(
            id=f"aime-{row.need('id')}",
            input=row.text("problem"),
            target=str(int(row.need("answer"))),
            category=str(row.get("exam")),
            answer_type="integer",
            metadata={"year": row.text("year"), "problem_number": str(row.get("problem_number"))},
        )
        for row in _rows("aime", "aime_2024_2025_matharena.jsonl")
        if int(row.need("year")) in wanted
    )


def humaneval() -> tuple[Sample, ...]:
    """HumanEval: the input is the prompt (signature and docstring), the target the canonical
    solution; metadata holds entry_point and the test code."""
    return tuple(
        Sample(
            id=row.text("task_id"),
            input=row.text("prompt"),
            target=row.text("canonical_solution"),
            answer_type="text",
            metadata={"entry_point": row.text("entry_point"), "test": row.text("test")},
        )
        for row in _rows("humaneval", "HumanEval.jsonl.gz")
    )


def mbpp(split: str = "test") -> tuple[Sample, ...]:
    """MBPP in one of MBPP_SPLITS (by task_id); metadata holds test_list (JSON) and
    test_setup_code; the target is the reference solution."""
    if split not in MBPP_SPLITS:
        raise ConfigError(f"unknown MBPP split {split!r}: use {', '.join(MBPP_SPLITS)}")
    ids = MBPP_SPLITS[split]
    numbered = ((int(row.need("task_id")), row) for row in _rows("mbpp", "mbpp.jsonl"))
    return tuple(
        Sample(
            id=f"mbpp-{task_id}",
            input=row.text("text"),
            target=row.text("code").replace("\r\n", "\n"),
            answer_type="text",
            metadata={
                "task_id": str(task_id),
                "test_list": json.dumps(list(row.need("test_list"))),
                "test_setup_code": str(row.get("test_setup_code") or "").replace("\r\n", "\n"),
            },
        )
        for task_id, row in numbered
        if task_id in ids
    )


GPQA_COLUMNS = (
    "Question",
    "Correct Answer",
    "Incorrect Answer 1",
    "Incorrect Answer 2",
    "Incorrect Answer 3",
)
LETTERS = "ABCD"


def gpqa_rows(rows: Iterable[Mapping[str, Any]], *, seed: int, source: str) -> tuple[Sample, ...]:
    """GPQA rows with the official column names → Samples whose four choices are shuffled by a
    generator seeded from (seed, the row's Record ID): the same seed, the same paper."""
    out = []
    seen: set[str] = set()
    for number, row in enumerate(rows, start=2 if source.endswith(".csv") else 1):
        for column in GPQA_COLUMNS:
            value = row.get(column)
            if value is None or not str(value).strip():
                raise DatasetError(source, number, column, "missing or empty")
        record_id = str(row.get("Record ID") or f"row-{number}").strip()
        if record_id in seen:
            raise DatasetError(source, number, "Record ID", f"duplicate {record_id!r}")
        seen.add(record_id)
        choices = [str(row[c]).strip() for c in GPQA_COLUMNS[1:]]
        order = list(range(4))
        random.Random(f"gpqa/{seed}/{record_id}").shuffle(order)
        shuffled = [choices[i] for i in order]
        target = LETTERS[order.index(0)]
        listing = "\n".join(f"{LETTERS[i]}) {c}" for i, c in enumerate(shuffled))
        out.append(
            Sample(
                id=f"gpqa-{record_id}",
                input=f"{str(row['Question']).strip()}\n\n{listing}",
                target=target,
                category=str(row.get("High-level domain") or ""),
                answer_type="text",
                metadata={
                    "choices": json.dumps(shuffled, ensure_ascii=False),
                    "letters": LETTERS,
                    "subdomain": str(row.get("Subdomain") or ""),
                    "seed": str(seed),
                },
            )
        )
    if not out:
        raise DatasetError(source, None, None, "no questions")
    return tuple(out)


def gpqa_csv(path: str | Path, *, seed: int = 0) -> tuple[Sample, ...]:
    """GPQA from the user's CSV (e.g. gpqa_diamond.csv from the authors' archive)."""
    file = str(path)
    text = read_text(Path(path), file)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in GPQA_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise DatasetError(file, 1, missing[0], "column missing (GPQA's official column names)")
    return gpqa_rows(reader, seed=seed, source=file)


HfLoader = Callable[..., Iterable[Mapping[str, Any]]]


def gpqa_hf(
    config: str = "gpqa_diamond", *, seed: int = 0, loader: HfLoader | None = None
) -> tuple[Sample, ...]:
    """GPQA from the gated Hugging Face dataset Idavidrein/gpqa (needs `datasets`, network, and
    access granted to the user's token). `loader` stands in for `datasets.load_dataset`."""
    if loader is None:
        try:
            from datasets import load_dataset
        except ImportError as e:
            raise ConfigError(
                "reading GPQA from Hugging Face needs the `datasets` package; or give the CSV"
            ) from e
        loader = load_dataset
    rows = loader("Idavidrein/gpqa", config, split="train")
    return gpqa_rows(rows, seed=seed, source=f"hf:Idavidrein/gpqa/{config}")
