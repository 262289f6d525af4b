"""Human verdicts on a run's answers, to validate a judge against (`proctor judge --against`).

A CSV with a header: `id` (the case's sample id) and `label`, and optionally `model` (which of
the run's models gave the answer; needed when the run has several) and `epoch` (default 0), and
any other column (a `note`, say), which is kept out of the way. Labels, case-insensitive:

    pointwise    pass | fail        (also yes/no, good/bad, correct/wrong, 1/0)
    pairwise     a | b | tie        (a: the first side is better, as in `--models A B`)

Every problem is a DatasetError naming the file, line and field; an id labelled twice is one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from proctor.datasets.records import csv_rows, read_text
from proctor.errors import DatasetError

Label = Literal["pass", "fail", "a", "b", "tie"]

_POINTWISE: dict[str, Label] = {
    "pass": "pass", "yes": "pass", "good": "pass", "correct": "pass", "1": "pass",
    "fail": "fail", "no": "fail", "bad": "fail", "wrong": "fail", "0": "fail",
}
_PAIRWISE: dict[str, Label] = {"a": "a", "b": "b", "tie": "tie"}


@dataclass(frozen=True)
class HumanLabel:
    sample_id: str
    model: str
    """"" when the file does not say (the run's only model)."""
    epoch: int
    label: Label
    line: int


def _header(header: list[str], file: str, line: int) -> None:
    for name in ("id", "label"):
        if name not in header:
            raise DatasetError(file, line, name, "missing column (need id and label)")


def load_labels(path: Path, *, pairwise: bool) -> list[HumanLabel]:
    file = str(path)
    if path.suffix.lower() != ".csv":
        raise DatasetError(file, None, None, "a labels file is a .csv with columns id, label")
    table = _PAIRWISE if pairwise else _POINTWISE
    labels: list[HumanLabel] = []
    seen: dict[tuple[str, str, int], int] = {}
    for line, cells in csv_rows(read_text(path, file), file, _header):
        sample_id = cells["id"].strip()
        if not sample_id:
            raise DatasetError(file, line, "id", "empty")
        raw = cells["label"].strip().lower()
        label = table.get(raw)
        if label is None:
            allowed = "a, b or tie" if pairwise else "pass or fail (yes/no, good/bad, 1/0)"
            raise DatasetError(file, line, "label", f"{cells['label']!r}: expected {allowed}")
        epoch_text = (cells.get("epoch") or "0").strip() or "0"
        if not epoch_text.isdigit():
            raise DatasetError(file, line, "epoch", f"{epoch_text!r}: expected 0, 1, 2, …")
        key = (sample_id, (cells.get("model") or "").strip(), int(epoch_text))
        if key in seen:
            raise DatasetError(
                file, line, "id", f"{sample_id!r} is labelled twice (line {seen[key]})"
            )
        seen[key] = line
        labels.append(HumanLabel(key[0], key[1], key[2], label, line))
    if not labels:
        raise DatasetError(file, None, None, "no labels in the file")
    return labels
