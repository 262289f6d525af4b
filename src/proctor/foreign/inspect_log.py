"""Inspect AI's eval logs, log format version 2 (read and tested with inspect-ai 0.3.285): the
`.json` log (one JSON document: `eval`, `plan`, `results`, `samples`, ...) and the `.eval` log (a
zip archive: `header.json` with the same header, one `samples/<id>_epoch_<n>.json` per sample),
read with the standard library. A `.eval` compressed with Zstandard (what Inspect writes since
April 2026) is read by Python 3.14's `zipfile`, or below 3.14 with the `zstandard` package
(`zip_zstd`, within the same budget); without either it is refused with the command that converts
it to `.json`. Deflate-compressed `.eval` files are read everywhere.

A sample gives its `id`, `epoch` (from 1), `input` (a string or chat messages: the last user
message is the question), `target`, `output` (`completion`, `choices[0].stop_reason`, `usage`,
`time`, `model`), `scores` ({scorer: {value, answer, explanation}}) and `error` when the sample
failed. Score values: "C" correct, "I" incorrect, "N" no answer (all as Inspect's accuracy
counts them: 1, 0, 0), "P" partial (0.5, unscored here), numbers 1 / 0 (other numbers unscored).

Not read (yet): logs of format version 1, samples whose scorer value is a dict (several
values per sample), agent transcripts with tool calls (only the final completion is kept), and
tasks proctor has no grader for unless `--task` names one.

A `.eval` is read within one budget for the whole archive (`ArchiveBudget`), counted as it is
inflated, so a small file that unpacks to gigabytes (a zip bomb) stops at the first byte over:
the members it lists, the compressed bytes its read members span (at most the file's own size:
members that share compressed data are refused), the bytes they inflate to (at most
`max_ratio` times the file, or `ratio_floor` for a small one, and never over `max_inflated`),
and the records (samples times epochs). The whole log is read and checked before anything is
stored, so a refused log leaves no run and no results folder."""

from __future__ import annotations

import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proctor.errors import DatasetError
from proctor.foreign.run import (
    ForeignAnswer,
    ForeignOutcome,
    ForeignRun,
    ForeignVerdict,
    check_size,
    gsm8k_sample,
    numeric_verdict,
    proctor_task_for,
    read_json,
    text_of,
)
from proctor.foreign.zip_zstd import (
    ZSTD,
    ZstdMemberError,
    inflate_member,
    package_reads_zstd,
    stdlib_reads_zstd,
)
from proctor.providers.http import json_object as obj
from proctor.types import FinishReason, Sample, Usage

LOG_VERSION = 2
_STOP: dict[str, FinishReason] = {
    "stop": "stop",
    "max_tokens": "length",
    "model_length": "length",
    "tool_calls": "tool_calls",
    "content_filter": "content_filter",
}
_LETTER: dict[str, tuple[ForeignOutcome, float | None]] = {
    "C": ("correct", 1.0),
    "I": ("wrong", 0.0),
    "N": ("wrong", 0.0),
    "P": ("unscored", 0.5),
}
_MAX_MEMBER = 256 << 20


def _verdict(score: object) -> ForeignVerdict:
    if not isinstance(score, dict):
        return ForeignVerdict("unscored", repr(score), None, explanation="not a score object")
    value = score.get("value")
    answer = score.get("answer")
    extracted = answer if isinstance(answer, str) else "" if answer is None else str(answer)
    explanation = score.get("explanation")
    why = explanation if isinstance(explanation, str) else ""
    if isinstance(value, str) and value in _LETTER:
        letter, credit = _LETTER[value]
        reason = "partial credit" if value == "P" else why
        return ForeignVerdict(letter, value, credit, extracted, reason)
    numeric = numeric_verdict(value, extracted, why)
    if numeric is not None:
        return numeric
    return ForeignVerdict(
        "unscored", repr(value)[:200], None, extracted, "a value proctor cannot read"
    )


def _question(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        users = [m for m in value if isinstance(m, dict) and m.get("role") == "user"]
        if users:
            return text_of(users[-1].get("content"))
    return ""


def _target(value: object) -> str:
    if isinstance(value, list):
        return " | ".join(str(v) for v in value)
    return "" if value is None else str(value)


def _answer(path: Path, where: str, raw: object, task: str) -> ForeignAnswer:
    if not isinstance(raw, dict):
        raise DatasetError(str(path), None, where, "expected a sample object")
    sample_id = raw.get("id")
    epoch = raw.get("epoch", 1)
    if not isinstance(sample_id, str | int) or isinstance(sample_id, bool):
        raise DatasetError(str(path), None, f"{where}.id", "expected a string or an integer")
    if not isinstance(epoch, int) or isinstance(epoch, bool) or epoch < 1:
        raise DatasetError(str(path), None, f"{where}.epoch", "expected an integer from 1")
    question = _question(raw.get("input"))
    target = _target(raw.get("target"))
    if proctor_task_for(task) == "gsm8k":
        sample = gsm8k_sample(question, target, str(sample_id))
    else:
        sample = Sample(id=str(sample_id), input=question, target=target, answer_type="text")
    output = obj(raw.get("output"))
    choices = output.get("choices") if isinstance(output.get("choices"), list) else []
    first = choices[0] if choices and isinstance(choices[0], dict) else {}
    usage = obj(output.get("usage"))
    error = raw.get("error")
    message = ""
    if error:
        message = text_of(error.get("message")) if isinstance(error, dict) else str(error)
        message = f"Inspect logged an error: {message or 'no message'}"[:400]
    scores = obj(raw.get("scores"))
    latency = output.get("time")
    return ForeignAnswer(
        sample=sample,
        epoch=epoch - 1,
        text=text_of(output.get("completion")),
        finish_reason=_STOP.get(str(first.get("stop_reason")), "unknown"),
        usage=Usage(_count(usage.get("input_tokens")), _count(usage.get("output_tokens"))),
        latency_s=float(latency) if isinstance(latency, int | float) and latency >= 0 else 0.0,
        reported_model=str(output.get("model") or ""),
        error=message,
        verdicts={f"inspect {name}": _verdict(s) for name, s in scores.items()},
    )


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return 0
    return value


@dataclass(frozen=True)
class ArchiveBudget:
    """What reading one log may cost, for the whole archive (not per member)."""

    max_members: int = 200_000
    """Entries the archive may list (a sample and epoch each, and a few more)."""
    max_records: int = 200_000
    """Samples times epochs, in a `.eval` or a `.json` log."""
    max_inflated: int = 1 << 30
    """Bytes all read members may inflate to together, whatever the file's size."""
    max_ratio: int = 50
    """... and at most this many times the file's size (Inspect's own logs inflate about 4×)."""
    ratio_floor: int = 32 << 20
    """... except that a small file may always inflate to this much."""

    def inflated_limit(self, archive_bytes: int) -> int:
        return min(self.max_inflated, max(self.ratio_floor, self.max_ratio * archive_bytes))


BUDGET = ArchiveBudget()


class _Meter:
    """Counts one archive's reading against its budget, as it goes."""

    def __init__(self, path: Path, budget: ArchiveBudget) -> None:
        self.path = path
        self.budget = budget
        self.size = path.stat().st_size
        self.limit = budget.inflated_limit(self.size)
        self.spanned = 0
        self.inflated = 0

    def refuse(self, where: str | None, why: str) -> DatasetError:
        return DatasetError(str(self.path), None, where, f"{why}: refused as a zip bomb")

    def read(self, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
        name = info.filename
        if info.file_size > _MAX_MEMBER:
            raise DatasetError(str(self.path), None, name, "member too large")
        self.spanned += info.compress_size
        if self.spanned > self.size:
            raise self.refuse(
                name,
                "members share compressed data (they span more bytes "
                f"than the file's {self.size:,})",
            )
        if info.compress_type == ZSTD and not stdlib_reads_zstd():
            with self.path.open("rb") as fp:
                try:
                    return b"".join(inflate_member(fp, info, lambda n: self.count(name, n)))
                except ZstdMemberError as e:
                    raise DatasetError(str(self.path), None, name, str(e)) from None
        parts: list[bytes] = []
        with archive.open(info) as stream:  # the sizes listed may lie: count what comes out
            while chunk := stream.read(1 << 20):
                self.count(name, len(chunk))
                parts.append(chunk)
        return b"".join(parts)

    def count(self, name: str, inflated: int) -> None:
        """Counts bytes as they come out; refuses at the first one over the archive's limit."""
        self.inflated += inflated
        if self.inflated > self.limit:
            b = self.budget
            raise self.refuse(
                name,
                f"the archive inflates to more than {self.limit:,} bytes, the most a "
                f"file of {self.size:,} bytes may ({b.max_ratio} times its size, at "
                f"least {b.ratio_floor >> 20} MiB, at most {b.max_inflated >> 20} MiB)",
            )


def _read_zip(path: Path, budget: ArchiveBudget = BUDGET) -> tuple[dict[str, Any], list[object]]:
    meter = _Meter(path, budget)
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            if len(infos) > budget.max_members:
                raise meter.refuse(None, f"{len(infos):,} members (at most {budget.max_members:,})")
            by_name = {i.filename: i for i in infos}
            names = list(by_name)
            wanted = sorted(n for n in names if n.startswith("samples/"))
            if len(wanted) > budget.max_records:
                raise meter.refuse(
                    None, f"{len(wanted):,} samples (at most {budget.max_records:,} records)"
                )

            def member(name: str) -> object:
                try:
                    text = meter.read(archive, by_name[name]).decode("utf-8")
                except UnicodeDecodeError as e:
                    raise DatasetError(
                        str(path), None, name, f"not UTF-8 (byte {e.start})"
                    ) from None
                return read_json(path, text)

            if "header.json" not in names:
                raise DatasetError(
                    str(path), None, None, "no header.json: an unfinished or not an Inspect log"
                )
            methods = {i.compress_type for i in archive.infolist()}
            if ZSTD in methods and not (stdlib_reads_zstd() or package_reads_zstd()):
                raise DatasetError(
                    str(path),
                    None,
                    None,
                    "compressed with Zstandard (newer Inspect versions write it), which this "
                    "Python cannot read: install the `zstandard` package (bash scripts/setup.sh "
                    "does; Python 3.14 needs none), or convert it with `inspect log convert "
                    "--to json --output-dir DIR LOG` and import the .json",
                )
            header = member("header.json")
            samples = [member(n) for n in wanted]
    except (zipfile.BadZipFile, zlib.error, EOFError) as e:
        raise DatasetError(str(path), None, None, f"not a zip archive: {e}") from None
    if not isinstance(header, dict):
        raise DatasetError(str(path), None, "header.json", "expected a JSON object")
    return header, samples


def read_inspect(path: Path, budget: ArchiveBudget = BUDGET) -> ForeignRun:
    """The run in an Inspect `.json` or `.eval` log."""
    check_size(path)
    if path.suffix == ".eval":
        header, samples = _read_zip(path, budget)
    else:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise DatasetError(str(path), None, None, f"not UTF-8 text (byte {e.start})") from None
        header = read_json(path, text)
        if not isinstance(header, dict):
            raise DatasetError(str(path), None, None, "expected a JSON object")
        samples = header.get("samples") or []
        if not isinstance(samples, list):
            raise DatasetError(str(path), None, "samples", "expected a list")
        if len(samples) > budget.max_records:
            raise DatasetError(
                str(path), None, "samples", f"more than {budget.max_records:,} records"
            )
    version = header.get("version")
    if version != LOG_VERSION:
        raise DatasetError(
            str(path),
            None,
            "version",
            f"Inspect log format {version!r}: proctor reads version {LOG_VERSION}",
        )
    ev = obj(header.get("eval"))
    task = str(ev.get("task") or "")
    packages = obj(ev.get("packages"))
    answers = [_answer(path, f"samples[{i}]", s, task) for i, s in enumerate(samples)]
    if not answers:
        raise DatasetError(str(path), None, "samples", "no samples in the log")
    scorers = [f"inspect {s.get('name')}" for s in ev.get("scorers") or [] if isinstance(s, dict)]
    seen = {g for a in answers for g in a.verdicts}
    graders = tuple(dict.fromkeys([*(g for g in scorers if g in seen), *sorted(seen)]))
    reported: dict[str, float] = {}
    results = obj(header.get("results"))
    for score in results.get("scores") or []:
        if not isinstance(score, dict):
            continue
        metrics = obj(score.get("metrics"))
        accuracy = metrics.get("accuracy")
        value = accuracy.get("value") if isinstance(accuracy, dict) else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            reported[f"inspect {score.get('name')}"] = float(value)
    notes = []
    if header.get("status") != "success":
        notes.append(f"the log's status is {header.get('status')!r}, not 'success'")
    return ForeignRun(
        harness="inspect",
        harness_version=str(packages.get("inspect_ai") or ""),
        their_task=task,
        model=str(ev.get("model") or "unknown"),
        source=str(path),
        graders=graders,
        answers=tuple(answers),
        reported=reported,
        proctor_task=proctor_task_for(task),
        notes=tuple(notes),
    )
