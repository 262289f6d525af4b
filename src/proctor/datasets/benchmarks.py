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


def _jsonl(name: str, file: str) -> Iterator[tuple[int, dict[str, Any]]]:
    data = builtin_bytes(name, file)
    if file.endswith(".gz"):
        data = gzip.decompress(data)
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if line.strip():
            yield number, json.loads(line)


def _need(row: Mapping[str, Any], field: str, where: tuple[str, int]) -> Any:
    if field not in row or row[field] is None:
        raise DatasetError(where[0], where[1], field, "missing")
    return row[field]


def gsm8k() -> tuple[Sample, ...]:
    """GSM8K test: the target is the number after "####", thousands commas removed."""
    out = []
    for number, row in _jsonl("gsm8k", "test.jsonl"):
        where = ("builtin/gsm8k/test.jsonl", number)
        answer = str(_need(row, "answer", where))
        target = answer.rsplit("####", 1)[-1].strip().replace(",", "")
        out.append(
            Sample(
                id=f"gsm8k-test-{number - 1:04d}",
                input=str(_need(row, "question", where)),
                target=target,
                answer_type="integer",
                metadata={"solution": answer},
            )
        )
    return tuple(out)


def math500() -> tuple[Sample, ...]:
    """MATH-500: category is the subject, difficulty the level ("level 1" … "level 5")."""
    out = []
    for number, row in _jsonl("math500", "test.jsonl"):
        where = ("builtin/math500/test.jsonl", number)
        out.append(
            Sample(
                id=str(_need(row, "unique_id", where)),
                input=str(_need(row, "problem", where)),
                target=str(_need(row, "answer", where)),
                category=str(row.get("subject", "")),
                difficulty=f"level {row['level']}" if "level" in row else "",
                answer_type="text",
                metadata={"solution": str(row.get("solution", ""))},
            )
        )
    return tuple(out)


def aime(years: Iterable[int] = (2024, 2025)) -> tuple[Sample, ...]:
    """AIME I and II of the given years; category is the exam ("AIME 2024 I"); answers 0-999."""
    wanted = set(years)
    out = []
    for number, row in _jsonl("aime", "aime_2024_2025_matharena.jsonl"):
        where = ("builtin/aime/aime_2024_2025_matharena.jsonl", number)
        if int(_need(row, "year", where)) not in wanted:
            continue
        out.append(
            Sample(
                id=f"aime-{_need(row, 'id', where)}",
                input=str(_need(row, "problem", where)),
                target=str(int(_need(row, "answer", where))),
                category=str(row.get("exam", "")),
                answer_type="integer",
                metadata={
                    "year": str(row["year"]),
                    "problem_number": str(row.get("problem_number", "")),
                },
            )
        )
    return tuple(out)


def humaneval() -> tuple[Sample, ...]:
    """HumanEval: the input is the prompt (signature and docstring), the target the canonical
    solution; metadata holds entry_point and the test code."""
    out = []
    for number, row in _jsonl("humaneval", "HumanEval.jsonl.gz"):
        where = ("builtin/humaneval/HumanEval.jsonl.gz", number)
        out.append(
            Sample(
                id=str(_need(row, "task_id", where)),
                input=str(_need(row, "prompt", where)),
                target=str(_need(row, "canonical_solution", where)),
                answer_type="text",
                metadata={
                    "entry_point": str(_need(row, "entry_point", where)),
                    "test": str(_need(row, "test", where)),
                },
            )
        )
    return tuple(out)


def mbpp(split: str = "test") -> tuple[Sample, ...]:
    """MBPP in one of MBPP_SPLITS (by task_id); metadata holds test_list (JSON) and
    test_setup_code; the target is the reference solution."""
    if split not in MBPP_SPLITS:
        raise ConfigError(f"unknown MBPP split {split!r}: use {', '.join(MBPP_SPLITS)}")
    ids = MBPP_SPLITS[split]
    out = []
    for number, row in _jsonl("mbpp", "mbpp.jsonl"):
        where = ("builtin/mbpp/mbpp.jsonl", number)
        task_id = int(_need(row, "task_id", where))
        if task_id not in ids:
            continue
        out.append(
            Sample(
                id=f"mbpp-{task_id}",
                input=str(_need(row, "text", where)),
                target=str(_need(row, "code", where)).replace("\r\n", "\n"),
                answer_type="text",
                metadata={
                    "task_id": str(task_id),
                    "test_list": json.dumps(list(_need(row, "test_list", where))),
                    "test_setup_code": str(row.get("test_setup_code") or "").replace("\r\n", "\n"),
                },
            )
        )
    return tuple(out)


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
