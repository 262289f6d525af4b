"""lm-evaluation-harness's `--log_samples` JSONL (`samples_<task>_<date>.jsonl`), as written by
lm-eval 0.4.x (read and tested with 0.4.13).

One line per (document, filter): `doc_id`, `doc` (the dataset row), `target`, `arguments` (the
request: the prompt, the generation kwargs), `resps` (the raw outputs: one list per request, one
entry per repeat), `filtered_resps` (what the filter took), `filter` (e.g. "strict-match"),
`metrics` (their names) and each metric's value on the line itself (`"exact_match": 1.0`).

The model's name, lm-eval's version and the accuracy it reported come from the run's
`results_<date>.json` when it lies beside the samples file (same date, or the only one naming the
task), or from `--results FILE`.

Not read (yet): loglikelihood tasks (multiple choice by log-probabilities: there is no generated
text to re-grade), the per-repeat verdicts of majority-vote filters (the document's verdict is
kept on its first repeat), and tasks proctor has no grader for unless `--task` names one."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from proctor.errors import DatasetError
from proctor.foreign.run import (
    ForeignAnswer,
    ForeignRun,
    ForeignVerdict,
    check_size,
    gsm8k_sample,
    jsonl_objects,
    numeric_verdict,
    proctor_task_for,
    read_json,
    text_of,
)
from proctor.providers.http import json_object as obj
from proctor.types import Sample, Usage

_NAME = re.compile(r"samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[\d.\-]+)\.jsonl$")


def _verdict(value: object, extracted: str) -> ForeignVerdict:
    verdict = numeric_verdict(value, extracted, "")
    if verdict is None:
        return ForeignVerdict("unscored", repr(value), None, extracted, "not a number")
    if verdict.outcome == "unscored":
        return replace(verdict, explanation=f"lm-eval gave {verdict.value}, neither 1 nor 0")
    return verdict


def _prompt(arguments: object) -> str:
    """The prompt text of a logged request (a chat request's messages are a JSON string)."""
    if not isinstance(arguments, dict):
        return ""
    first = next(iter(arguments.values()), None)
    if not isinstance(first, dict):
        return ""
    arg = first.get("arg_0")
    if isinstance(arg, list):
        arg = arg[0] if arg else ""
    return arg if isinstance(arg, str) else ""


def _results_file(samples: Path, task: str) -> Path | None:
    match = _NAME.search(samples.name)
    folder = samples.parent
    if match:
        same = folder / f"results_{match['date']}.json"
        if same.is_file():
            return same
    candidates = []
    for path in sorted(folder.glob("*results*.json")):
        try:
            check_size(path)
            data = read_json(path, path.read_text(encoding="utf-8"))
        except (DatasetError, OSError, UnicodeDecodeError):
            continue
        if isinstance(data, dict) and task in (data.get("results") or {}):
            candidates.append(path)
    return candidates[0] if len(candidates) == 1 else None


def _sample(task: str, number: int, line: dict[str, Any], path: Path) -> Sample:
    doc = line.get("doc")
    doc_id = line.get("doc_id")
    if not isinstance(doc_id, int) or isinstance(doc_id, bool):
        raise DatasetError(str(path), number, "doc_id", "expected an integer")
    target = line.get("target")
    target_text = target if isinstance(target, str) else "" if target is None else str(target)
    if proctor_task_for(task) == "gsm8k" and isinstance(doc, dict):
        question = doc.get("question")
        if isinstance(question, str):
            answer = doc.get("answer")
            return gsm8k_sample(
                question, answer if isinstance(answer, str) else target_text, f"doc-{doc_id}"
            )
    return Sample(
        id=f"doc-{doc_id}",
        input=_prompt(line.get("arguments")),
        target=target_text,
        answer_type="text",
    )


def read_lm_eval(path: Path, results: Path | None = None) -> ForeignRun:
    """The run in an lm-eval samples file (and its results file, found beside it or given)."""
    name = _NAME.search(path.name)
    task = name["task"] if name else ""
    by_doc, graders = _read_samples(path)
    results_path = results or _results_file(path, task)
    notes: list[str] = []
    if results_path is not None:
        told = _read_results(results_path, task)
    else:
        told = _Told("", "", task, {})
        notes.append("no results file beside the samples: lm-eval's reported accuracy unknown")
    answers = []
    for doc_id in sorted(by_doc):
        entry = by_doc[doc_id]
        sample = _sample(told.task, entry["number"], entry["line"], path)
        for epoch, text in enumerate(entry["outputs"]):
            answers.append(
                ForeignAnswer(
                    sample=sample,
                    epoch=epoch,
                    text=text,
                    usage=Usage(None, None),  # lm-eval logs no token counts: unknown, not 0
                    verdicts=entry["verdicts"] if epoch == 0 else {},
                )
            )
    return ForeignRun(
        harness="lm-eval",
        harness_version=told.version,
        their_task=told.task,
        model=told.model or "unknown",
        source=str(path),
        graders=_ordered(tuple(graders)),
        answers=tuple(answers),
        reported=told.reported,
        proctor_task=proctor_task_for(told.task),
        notes=tuple(notes),
    )


def _read_samples(path: Path) -> tuple[dict[int, dict[str, Any]], dict[str, None]]:
    """Per document id, its first line's number, the line, its outputs and each grader's
    verdict; and the graders ("lm-eval <filter> <metric>") in the order first met."""
    by_doc: dict[int, dict[str, Any]] = {}
    graders: dict[str, None] = {}
    for number, line in jsonl_objects(path):
        resps = line.get("resps")
        if not isinstance(resps, list) or not resps or not isinstance(resps[0], list):
            raise DatasetError(
                str(path),
                number,
                "resps",
                "expected a list of generated outputs (a loglikelihood task cannot be re-graded)",
            )
        outputs = resps[0]
        if not outputs or not all(isinstance(r, str) for r in outputs):
            raise DatasetError(
                str(path), number, "resps", "not generated text (a loglikelihood task?)"
            )
        entry = by_doc.setdefault(
            int(line.get("doc_id", -1)) if isinstance(line.get("doc_id"), int) else -1,
            {"number": number, "line": line, "outputs": outputs, "verdicts": {}},
        )
        filt = str(line.get("filter") or "none")
        metrics = line.get("metrics")
        names = [m for m in metrics if isinstance(m, str)] if isinstance(metrics, list) else []
        filtered = line.get("filtered_resps")
        extracted = text_of(filtered[0]) if isinstance(filtered, list) and filtered else ""
        for metric in names:
            grader = f"lm-eval {filt} {metric}"
            graders[grader] = None
            entry["verdicts"][grader] = _verdict(line.get(metric), extracted)
    if not by_doc:
        raise DatasetError(str(path), None, None, "no samples in the file")
    if -1 in by_doc:
        raise DatasetError(str(path), by_doc[-1]["number"], "doc_id", "expected an integer")
    return by_doc, graders


@dataclass(frozen=True)
class _Told:
    """What a results file tells: lm-eval's version, the model, the task and its accuracy."""

    version: str
    model: str
    task: str
    reported: dict[str, float]


def _read_results(results_path: Path, task: str) -> _Told:
    """The results file's version, model and reported metrics of `task` (the file's only task
    when the samples file's name gave none)."""
    check_size(results_path)
    try:
        data = read_json(results_path, results_path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise DatasetError(str(results_path), None, None, f"not UTF-8 (byte {e.start})") from None
    if not isinstance(data, dict):
        raise DatasetError(str(results_path), None, None, "expected a JSON object")
    version = str(data.get("lm_eval_version") or "")
    config = obj(data.get("config"))
    model = "/".join(str(x) for x in (config.get("model"), data.get("model_name")) if x)
    if not task:
        found = list((data.get("results") or {}).keys())
        task = found[0] if len(found) == 1 else ""
    reported: dict[str, float] = {}
    per_task = (data.get("results") or {}).get(task) or {}
    for key, value in per_task.items():
        metric, _, filt = str(key).partition(",")
        if filt and not metric.endswith("_stderr") and isinstance(value, int | float):
            reported[f"lm-eval {filt} {metric}"] = float(value)
    return _Told(version, model, task, reported)


def _ordered(graders: tuple[str, ...]) -> tuple[str, ...]:
    """strict-match first: it is the number lm-eval's gsm8k leaderboards quote."""
    return tuple(sorted(graders, key=lambda g: (" strict-match " not in g, graders.index(g))))
