"""People's verdicts on a run, in and out of the store: `proctor review export|import`.

The CSV holds every verdict ever given on the run, in the order they were stored (a superseded
verdict included: drift is measured on them), one row each:

    model, id, epoch, reviewer, verdict, note, reply_hash, blind, reviewed_at

`verdict` is correct, wrong or skip; `reply_hash` the sha256 of the reply reviewed (export
writes the stored reply's); `blind` 1 for a re-grade made without seeing the earlier verdict;
`reviewed_at` ISO 8601 (empty: the time of the import). An import checks every row before it
stores any: a row whose hash is not the stored reply's is refused with the file, line and field,
and nothing is stored. Importing a file a second time adds nothing (a row equal in every field
to a stored verdict is already there), so export → import → export gives the same bytes. A text
cell a spreadsheet could take for a formula (=, +, -, @ …) is written with an apostrophe in front,
and a leading apostrophe is taken off on import."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from proctor.datasets.labels import HumanLabel
from proctor.datasets.records import csv_rows, read_text
from proctor.errors import ConfigError, DatasetError
from proctor.report.atomic import write_text_atomic
from proctor.stats.human import counting
from proctor.store import RunStore
from proctor.store.human_verdicts import (
    HUMAN_VERDICTS,
    HumanVerdict,
    HumanVerdictValue,
    reply_hash,
)
from proctor.store.tables import now

_FORMULA = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20", "'")
"""What a spreadsheet may take for the start of a formula (as samples.csv's `inert`), and the
apostrophe that marks a cell made inert: a text cell starting with one gets an apostrophe in
front on export, and one leading apostrophe is taken off on import, so the round trip is exact."""
TEXT = ("model", "id", "reviewer", "note")
"""The columns of text from people or datasets (made inert); the others are written by proctor."""


def _inert(cell: str) -> str:
    return "'" + cell if cell.startswith(_FORMULA) else cell


def _live(cell: str) -> str:
    return cell[1:] if cell.startswith("'") else cell


COLUMNS = (
    "model",
    "id",
    "epoch",
    "reviewer",
    "verdict",
    "note",
    "reply_hash",
    "blind",
    "reviewed_at",
)


def reply_hashes(store: RunStore, run_id: str) -> dict[tuple[str, str, int], str]:
    """(model, sample id, epoch) → content hash of each answered reply of the run."""
    return {
        (r.model, r.sample_id, r.epoch): reply_hash(r.text)
        for r in store.records(run_id)
        if r.status == "ok"
    }


def export_csv(verdicts: Sequence[HumanVerdict]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for v in verdicts:
        writer.writerow(
            [
                _inert(v.model), _inert(v.sample_id), v.epoch, _inert(v.reviewer), v.verdict,
                _inert(v.note), v.reply_hash, int(v.blind), v.reviewed_at,
            ]
        )  # fmt: skip
    return out.getvalue()


def export_file(store: RunStore, run_id: str, path: Path) -> int:
    """Write every verdict of the run to `path` (whole or not at all); how many."""
    verdicts = store.human_verdicts(run_id)
    write_text_atomic(path, export_csv(verdicts))
    return len(verdicts)


def _header(header: list[str], file: str, line: int) -> None:
    for name in COLUMNS:
        if name not in header:
            raise DatasetError(file, line, name, f"missing column (need {', '.join(COLUMNS)})")


def _verdict(text: str, file: str, line: int) -> HumanVerdictValue:
    for option in HUMAN_VERDICTS:
        if text == option:
            return option
    raise DatasetError(file, line, "verdict", f"{text!r}: expected correct, wrong or skip")


def _time(text: str, file: str, line: int) -> str:
    if not text:
        return now()
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise DatasetError(file, line, "reviewed_at", f"{text!r} is not an ISO 8601 time") from None
    if when.tzinfo is None:
        raise DatasetError(file, line, "reviewed_at", f"{text!r} has no time zone (use +00:00)")
    return text


def read_csv(
    path: Path, run_id: str, hashes: dict[tuple[str, str, int], str]
) -> list[HumanVerdict]:
    """The verdicts of a CSV, each checked against the run's stored replies; DatasetError naming
    the file, line and field at the first bad row."""
    file = str(path)
    verdicts: list[HumanVerdict] = []
    for line, cells in csv_rows(read_text(path, file), file, _header):
        cells.update({name: _live(cells[name]) for name in TEXT})
        model, sample_id = cells["model"], cells["id"]
        epoch_text = cells["epoch"].strip()
        if not epoch_text.isdigit():
            raise DatasetError(file, line, "epoch", f"{epoch_text!r}: expected 0, 1, 2, …")
        key = (model, sample_id, int(epoch_text))
        stored = hashes.get(key)
        if stored is None:
            raise DatasetError(
                file,
                line,
                "id",
                f"run {run_id} has no answered reply of {model!r} to "
                f"{sample_id!r} (epoch {key[2]})",
            )
        if cells["reply_hash"].strip() != stored:
            raise DatasetError(
                file,
                line,
                "reply_hash",
                f"{cells['reply_hash']!r} is not the content hash of "
                f"the stored reply of {model} to {sample_id} ({stored}): the verdict was given on "
                "another reply",
            )
        reviewer = cells["reviewer"].strip()
        if not reviewer:
            raise DatasetError(file, line, "reviewer", "empty")
        if cells["blind"] not in ("0", "1"):
            raise DatasetError(file, line, "blind", f"{cells['blind']!r}: expected 0 or 1")
        verdicts.append(
            HumanVerdict(
                run_id=run_id,
                model=model,
                sample_id=sample_id,
                epoch=key[2],
                reviewer=reviewer,
                verdict=_verdict(cells["verdict"].strip(), file, line),
                note=cells["note"],
                reply_hash=stored,
                blind=cells["blind"] == "1",
                reviewed_at=_time(cells["reviewed_at"].strip(), file, line),
            )
        )
    return verdicts


def import_file(store: RunStore, run_id: str, path: Path) -> tuple[int, int]:
    """Store the verdicts of a CSV (all or none); (rows read, verdicts new to the store)."""
    verdicts = read_csv(path, run_id, reply_hashes(store, run_id))
    return len(verdicts), store.add_human_verdicts(run_id, verdicts)


HUMAN_LABELS = "human"
"""`proctor judge --against human`: the run's stored verdicts are the labels."""


def stored_labels(store: RunStore, run_id: str) -> list[HumanLabel]:
    """The verdict that counts on each reviewed reply (the newest non-skip one), as labels a
    judge is validated against: correct → pass, wrong → fail. ConfigError when there is none."""
    from proctor.runs.report import human_verdicts

    grades = counting(human_verdicts(store, run_id))
    if not grades:
        raise ConfigError(
            f"run {run_id} has no human verdicts (proctor review import, or the viewer's review)"
        )
    return [
        HumanLabel(g.sample_id, g.model, g.epoch, "pass" if g.verdict == "correct" else "fail", 0)
        for g in grades.values()
    ]


def stored_human_labels(results_dir: Path, run_id: str) -> list[HumanLabel]:
    """`stored_labels` of the run in the results folder's store (for `judge --against human`)."""
    with RunStore.open(results_dir) as store:
        return stored_labels(store, run_id)
