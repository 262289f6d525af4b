"""Datasets by name: `--dataset hf://ORG/NAME[@REVISION][:SPLIT]`, read with Hugging Face's
`datasets` library (the optional extra `hf`; imported only here, only when such a name is given).

The split defaults to `test` (an evaluation reads the test split). The revision a run read is
resolved (the Hub's commit, as `datasets` caches it) and kept in the run's dataset source
(`hf://ORG/NAME@COMMIT:SPLIT`), beside the content hash of the samples asked, so a later run
can pin the same data. Offline (`HF_DATASETS_OFFLINE=1`) it is read from the local cache.

Rows become samples as a `.jsonl` record does (`schema.to_sample`, every problem a DatasetError
naming the dataset, the row (1-based) and the field), with the column names the common datasets
use: `input` (else `question`, `problem`, `prompt`), `target` (else `answer`, `solution`; a
GSM8K-style answer "… #### 72" gives "72"), `id` (else `SPLIT-ROW`); other scalar columns go
into the sample's metadata."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proctor.errors import ConfigError, DatasetError
from proctor.types import Sample

FORM = "hf://ORG/NAME[@REVISION][:SPLIT]"
DEFAULT_SPLIT = "test"
_REF = re.compile(
    r"(?P<repo>[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*)"
    r"(?:@(?P<revision>[A-Za-z0-9][A-Za-z0-9_./-]*))?"
    r"(?::(?P<split>[A-Za-z0-9][A-Za-z0-9_.-]*))?"
)
_INPUTS = ("input", "question", "problem", "prompt")
_TARGETS = ("target", "answer", "solution")
_KEPT = ("category", "difficulty", "answer_type", "decimals")


@dataclass(frozen=True)
class HubRef:
    repo: str
    revision: str | None
    split: str

    def spec(self, revision: str | None = None) -> str:
        rev = revision or self.revision
        return f"hf://{self.repo}{'@' + rev if rev else ''}:{self.split}"


def is_hub_name(dataset: str | Path) -> bool:
    """Whether `dataset` is meant as a dataset name ("hf:…"), not a file. A `Path` made of
    "hf://a/b" reads "hf:/a/b" (it collapses the double slash): both count."""
    return str(dataset).startswith("hf:/")


def hub_ref(dataset: str | Path) -> HubRef:
    """The parts of "hf://ORG/NAME[@REVISION][:SPLIT]"; a DatasetError naming the form when it
    is not one (said as the user wrote it, "hf://", whatever Path made of it)."""
    text = str(dataset)
    rest = text[5:] if text.startswith("hf://") else text[4:]
    shown = f"hf://{rest}"
    match = _REF.fullmatch(rest)
    if match is None:
        raise DatasetError(
            shown, None, None, f"not a Hugging Face dataset name: expected {FORM}, "
            "e.g. hf://openai/gsm8k@main:test"
        )  # fmt: skip
    return HubRef(match["repo"], match["revision"], match["split"] or DEFAULT_SPLIT)


def load_hub(ref: HubRef) -> tuple[list[Sample], str]:
    """The split's samples and the source to store (with the resolved revision)."""
    try:
        import datasets

        datasets.load_dataset_builder  # noqa: B018 (a folder named datasets is not the library)
    except (ImportError, AttributeError):
        raise ConfigError(
            f"--dataset {ref.spec()} needs Hugging Face's `datasets` library: "
            "pip install 'proctor-eval[hf]' (or pip install datasets)"
        ) from None
    try:
        with without_progress_bars(datasets):
            builder = datasets.load_dataset_builder(ref.repo, revision=ref.revision)
            builder.download_and_prepare()
            table = builder.as_dataset(split=ref.split)
    except Exception as e:  # the library's own errors: not found, offline without a cache …
        why = " ".join(str(e).split())[:400] or type(e).__name__
        raise DatasetError(ref.spec(), None, None, f"cannot load it: {why}") from None
    revision = _resolved(builder, ref)
    source = ref.spec(revision)
    return hub_samples(table, source, ref.split), source


@contextmanager
def without_progress_bars(datasets: Any) -> Iterator[None]:
    """`datasets` with its tqdm bars off meanwhile (on again after, if they were on), and the
    monitor thread tqdm starts for any bar, shown or not, stopped after. proctor shows its own
    progress; and that thread would live as long as the process, while re-grading forks its
    workers only when no other thread could hold a lock (`runs.grade.grade_run`)."""
    was_on = datasets.is_progress_bar_enabled()
    before = set(threading.enumerate())
    datasets.disable_progress_bars()
    try:
        yield
    finally:
        if was_on:
            datasets.enable_progress_bars()
        for thread in set(threading.enumerate()) - before:
            if type(thread).__name__ == "TMonitor":  # tqdm._monitor.TMonitor: sleeps, then ends
                getattr(thread, "exit")()  # noqa: B009 (not a method of Thread)


def _resolved(builder: Any, ref: HubRef) -> str | None:
    """The commit `datasets` read: the builder's hash, which for a Hub dataset is the commit
    (40 hex digits); else the revision asked for."""
    found = str(getattr(builder, "hash", "") or "")
    return found if re.fullmatch(r"[0-9a-f]{40}", found) else ref.revision


def hub_samples(rows: Iterable[Mapping[str, Any]], source: str, split: str) -> list[Sample]:
    """Rows → samples (module docstring), ids unique."""
    from proctor.datasets.loaders import unique_samples
    from proctor.datasets.schema import to_sample

    def sample(row: Mapping[str, Any], line: int) -> Sample:
        return to_sample(_record(row, source, line, f"{split}-{line - 1}"), source, line)

    return unique_samples(enumerate(rows, start=1), sample, source, "no rows in the split")


def _record(row: Mapping[str, Any], source: str, line: int, default_id: str) -> dict[str, Any]:
    def first(names: tuple[str, ...], what: str) -> tuple[str, Any]:
        for name in names:
            if row.get(name) is not None:
                return name, row[name]
        columns = ", ".join(sorted(map(str, row))) or "none"
        raise DatasetError(
            source, line, what, f"no {' / '.join(names)} column (its columns: {columns})"
        )

    input_name, question = first(_INPUTS, "input")
    target_name, answer = first(_TARGETS, "target")
    target = answer if isinstance(answer, str) else str(answer)
    if "####" in target:  # GSM8K: the reasoning, then "#### 1,234"
        target = target.rsplit("####", 1)[-1].strip().replace(",", "")
    raw_id = row.get("id")
    record: dict[str, Any] = {
        "id": default_id if raw_id is None else str(raw_id),
        "input": question,
        "target": target,
    }
    used = {"id", input_name, target_name}
    for name in _KEPT:
        if row.get(name) is not None:
            record[name] = row[name]
            used.add(name)
    metadata = {
        str(k): v if isinstance(v, str) else str(v)
        for k, v in row.items()
        if k not in used and v is not None and isinstance(v, str | int | float | bool)
    }
    if metadata:
        record["metadata"] = metadata
    return record
