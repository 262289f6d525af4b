"""A proctor run as lm-evaluation-harness writes one with `--output_path DIR --log_samples`
(the layout and fields of lm-eval 0.4.13, `lm_eval/result_schema.py`): per model a folder
`<model, sanitized as lm-eval does>/` holding `results_<date>.json` (the aggregated results:
`make_table` prints them) and `samples_<task>_<date>.jsonl` (one line per document).

A proctor grade is one metric, `correct` under the filter `proctor` (1.0 correct, 0.0 any other
scored outcome). A document whose answer was not scored (a failed call, an unscored reply) gets
no metric at all (lm-eval's metric values are always numbers): the results count only scored
documents, as proctor's accuracy does. Several epochs: `resps` holds one reply per epoch (as
lm-eval's repeats) and the metric is the first epoch's (as lm-eval's `take_first` filter);
every epoch's grade is in `proctor export --to jsonl`. Every line passes lm-eval's own schema
(`SampleResult`: no key of ours beside its metrics). Read back by `proctor import lm-eval`."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import Any, TextIO

from proctor.foreign.exported import (
    ExportFile,
    Prompts,
    by_model,
    chat_messages,
    is_scored,
    mean_stderr,
    proctor_version,
)
from proctor.stats.run_statistics import RunStatistics
from proctor.types import GradedItem

FILTER = "proctor"
METRIC = "correct"


def sanitize_model_name(model: str) -> str:
    """lm-eval's folder name for a model (`lm_eval.utils.sanitize_model_name`)."""
    return re.sub(r"[\"<>:/|\\?*\[\]]+", "__", model)


def sanitize_task_name(task: str) -> str:
    """lm-eval's task name in a samples file's name (`lm_eval.utils.sanitize_task_name`)."""
    return re.sub(r"\W", "_", task)


def started(created_at: str) -> datetime:
    """The run's start in UTC (a start that is not an ISO date: the epoch's)."""
    try:
        when = datetime.fromisoformat(created_at)
    except ValueError:
        return datetime.fromtimestamp(0, UTC)
    return when.astimezone(UTC) if when.tzinfo is not None else when.replace(tzinfo=UTC)


def date_id(created_at: str) -> str:
    """lm-eval's date in file names (`datetime.isoformat()` with "-" for ":"), of the run's
    start in UTC."""
    naive = started(created_at).replace(tzinfo=None)
    return naive.isoformat(timespec="microseconds").replace(":", "-")


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _value(item: GradedItem) -> float:
    return 1.0 if item.score.outcome == "correct" else 0.0


def _doc(item: GradedItem) -> dict[str, Any]:
    s = item.sample
    doc: dict[str, Any] = {"id": s.id, "question": s.input, "target": s.target}
    doc["answer"] = s.metadata.get("solution") or s.target
    for key, value in (("category", s.category), ("difficulty", s.difficulty)):
        if value:
            doc[key] = value
    doc["answer_type"] = s.answer_type
    return doc


def _line(doc_id: int, epochs: Sequence[GradedItem], stats: RunStatistics, prompts: Prompts) -> str:
    first = epochs[0]
    doc = _doc(first)
    messages = chat_messages(first, prompts)
    prompt = json.dumps(messages, ensure_ascii=False)
    params = stats.info.params
    gen_kwargs = {"do_sample": params.temperature > 0, "temperature": params.temperature,
                  "max_gen_toks": params.max_tokens}  # fmt: skip
    line: dict[str, Any] = {
        "doc_id": doc_id,
        "doc": doc,
        "target": first.sample.target,
        "arguments": {"gen_args_0": {"arg_0": prompt, "arg_1": gen_kwargs}},
        "resps": [[i.record.text for i in epochs]],
        "filtered_resps": [first.score.extracted or ""],
        "filter": FILTER,
        "metrics": [METRIC] if is_scored(first) else [],
        "doc_hash": _hash(json.dumps(doc, indent=2, ensure_ascii=False)),
        "prompt_hash": _hash(prompt),
        "target_hash": _hash(first.sample.target),
    }
    if is_scored(first):
        line[METRIC] = _value(first)
    return json.dumps(line, ensure_ascii=False) + "\n"


def _documents(items: Sequence[GradedItem]) -> dict[str, list[GradedItem]]:
    """One model's items by sample (in the order samples first appear), each by epoch."""
    docs: dict[str, list[GradedItem]] = {}
    for item in items:
        docs.setdefault(item.sample.id, []).append(item)
    return {s: sorted(d, key=lambda i: i.record.epoch) for s, d in docs.items()}


def _results(model: str, docs: Sequence[Sequence[GradedItem]], stats: RunStatistics) -> str:
    info, task = stats.info, stats.info.task
    values = [_value(d[0]) for d in docs if is_scored(d[0])]
    scores: dict[str, Any] = {"name": task, "alias": task, "sample_len": len(docs)}
    if values:
        scores[f"{METRIC},{FILTER}"] = sum(values) / len(values)
        stderr = mean_stderr(values)
        scores[f"{METRIC}_stderr,{FILTER}"] = "N/A" if stderr is None else stderr
    repeats = max((len(d) for d in docs), default=1)
    document = {
        "results": {task: scores},
        "group_subtasks": {task: []},
        "configs": {task: {
            "task": task,
            "output_type": "generate_until",
            "repeats": repeats,
            "metric_list": [{"metric": METRIC, "aggregation": "mean", "higher_is_better": True}],
            "metadata": {"version": stats.task.version, "proctor_grader": stats.grader_version},
        }},
        "versions": {task: stats.task.version or None},
        "higher_is_better": {task: {METRIC: True}},
        "n-samples": {task: {"original": info.dataset_size, "effective": len(docs)}},
        "config": {
            "model": "proctor",
            "model_args": model,
            "gen_kwargs": {"temperature": info.params.temperature,
                           "max_gen_toks": info.params.max_tokens},
            **({"random_seed": info.seed} if info.seed is not None else {}),
        },
        "date": started(info.created_at).timestamp(),
        "model_source": "proctor",
        "model_name": model,
        "model_name_sanitized": sanitize_model_name(model),
        "task_hashes": {task: info.dataset_hash},
        "proctor": {"run_id": info.run_id, "version": proctor_version(),
                    "grader_version": stats.grader_version, "prompt_variant": info.prompt_variant,
                    "unscored_documents": len(docs) - len(values)},
    }  # fmt: skip
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def lm_eval_files(stats: RunStatistics, prompts: Prompts) -> list[ExportFile]:
    """The run as lm-eval's output folder: per model its results and samples files. A
    document's id is its sample's place in the run, the same for every model."""
    when = date_id(stats.info.created_at)
    task = sanitize_task_name(stats.info.task)
    order = dict.fromkeys(i.sample.id for i in stats.items)
    doc_ids = {sample_id: n for n, sample_id in enumerate(order)}
    files = []
    for model, items in by_model(stats).items():
        folder = PurePosixPath(sanitize_model_name(model))
        docs = _documents(items)

        def samples(out: TextIO, docs: dict[str, list[GradedItem]] = docs) -> None:
            for sample_id, epochs in docs.items():
                out.write(_line(doc_ids[sample_id], epochs, stats, prompts))

        def results(out: TextIO, text: str = _results(model, list(docs.values()), stats)) -> None:
            out.write(text)

        files.append(ExportFile(folder / f"samples_{task}_{when}.jsonl", samples))
        files.append(ExportFile(folder / f"results_{when}.json", results))
    return files
