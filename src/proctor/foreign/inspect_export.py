"""A proctor run as Inspect AI's eval logs (log format version 2, the `.json` form; written
after inspect-ai 0.3.285's own logs, see `inspect_log.py`): one log per model (Inspect's log
is one task on one model), named as Inspect names them (`<created>_<task>_<id>.json`), so a
folder of them is a log directory `inspect view --log-dir` lists.

Each answer is a sample (`epoch` from 1) with the prompt the run sent and the reply as its
messages, the reply as its `output`, and proctor's grade as the score `proctor`: "C" correct,
"N" no answer, "I" any other scored outcome (Inspect's `accuracy` counts them 1, 0, 0, as
proctor's does). An unscored answer has no score (proctor's reason is in the sample's
metadata); a failed call is a sample with an `error`, as Inspect logs one. The results are
computed as Inspect computes them from these scores (per sample the mean over its epochs, then
`accuracy` and `stderr`), so they match what Inspect shows when it scores the log again."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any, TextIO

from proctor.foreign.exported import (
    ExportFile,
    Prompts,
    by_model,
    is_scored,
    mean_stderr,
    messages_of,
    proctor_version,
    slug,
)
from proctor.stats.run_statistics import RunStatistics
from proctor.types import FinishReason, GradedItem, Message

LOG_VERSION = 2
SCORER = "proctor"
_STOP: dict[FinishReason, str] = {
    "stop": "stop",
    "length": "max_tokens",
    "tool_calls": "tool_calls",
    "content_filter": "content_filter",
    "unknown": "unknown",
}


def _id(*parts: str) -> str:
    """A stable id in Inspect's shape (22 letters and digits) from what it identifies."""
    digest = hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()
    alphabet = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    number, out = int(digest, 16), []
    for _ in range(22):
        number, digit = divmod(number, len(alphabet))
        out.append(alphabet[digit])
    return "".join(out)


def _letter(item: GradedItem) -> str:
    outcome = item.score.outcome
    return "C" if outcome == "correct" else "N" if outcome == "no_answer" else "I"


def _message(m: Message, model: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"role": m.role, "content": m.content, "source": "input"}
    if m.role == "assistant":
        out.update(source="generate", model=model)
    if m.role == "tool":
        out["tool_call_id"] = m.tool_call_id
    return out


def _sample(item: GradedItem, model: str, prompts: Prompts) -> dict[str, Any]:
    record, score = item.record, item.score
    messages = [_message(m) for m in messages_of(item, prompts)]
    reply = {"role": "assistant", "content": record.text, "source": "generate", "model": model}
    usage = record.usage
    output: dict[str, Any] = {"model": record.reported_model or model, "choices": [],
                              "completion": record.text, "time": record.latency_s}  # fmt: skip
    if usage.known:
        output["usage"] = {"input_tokens": usage.prompt_tokens,
                           "output_tokens": usage.completion_tokens,
                           "total_tokens": usage.total_tokens}  # fmt: skip
    sample: dict[str, Any] = {
        "id": item.sample.id,
        "epoch": record.epoch + 1,
        "input": item.sample.input,
        "target": item.sample.target,
        "messages": messages,
        "output": output,
        "scores": {},
        "metadata": {"proctor": {"outcome": score.outcome, "rule": score.rule,
                                 "explanation": score.explanation,
                                 "finish_reason": record.finish_reason}},
        "store": {},
        "events": [],
        "total_time": record.latency_s,
    }  # fmt: skip
    if record.status == "call_failed":
        sample["error"] = {"message": record.error or "the call failed",
                           "traceback": "", "traceback_ansi": ""}  # fmt: skip
        return sample
    messages.append(reply)
    output["choices"] = [{"message": reply, "stop_reason": _STOP[record.finish_reason]}]
    if is_scored(item):
        sample["scores"] = {SCORER: {"value": _letter(item), "answer": score.extracted,
                                     "explanation": score.explanation}}  # fmt: skip
    return sample


def _results(items: Sequence[GradedItem], epochs: int) -> dict[str, Any]:
    per_sample: dict[str, list[float]] = {}
    for item in items:
        if is_scored(item):
            per_sample.setdefault(item.sample.id, []).append(float(item.score.outcome == "correct"))
    values = [sum(v) / len(v) for v in per_sample.values()]
    metrics: dict[str, Any] = {}
    if values:
        metrics["accuracy"] = {"name": "accuracy", "value": sum(values) / len(values),
                               "params": {}}  # fmt: skip
        stderr = mean_stderr(values)
        if stderr is not None:
            metrics["stderr"] = {"name": "stderr", "value": stderr, "params": {}}
    samples = {i.sample.id for i in items}
    score = {"name": SCORER, "scorer": SCORER, "scored_samples": len(values),
             "unscored_samples": len(samples) - len(values), "params": {}, "metrics": metrics}
    if epochs > 1:
        score["reducer"] = "mean"
    return {"total_samples": len(samples), "completed_samples": len(samples),
            "scores": [score]}  # fmt: skip


def _log(
    model: str, items: Sequence[GradedItem], stats: RunStatistics, prompts: Prompts
) -> dict[str, Any]:
    info = stats.info
    epochs = 1 + max((i.record.epoch for i in items), default=0)
    sample_ids = list(dict.fromkeys(i.sample.id for i in items))
    config = {"temperature": info.params.temperature, "max_tokens": info.params.max_tokens}
    if info.seed is not None:
        config["seed"] = info.seed
    usage = {"input_tokens": sum(i.record.usage.prompt_tokens or 0 for i in items),
             "output_tokens": sum(i.record.usage.completion_tokens or 0 for i in items)}
    usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
    failed = any(i.record.status == "call_failed" for i in items)
    return {
        "version": LOG_VERSION,
        "status": "error" if failed else "success",
        "eval": {
            "eval_id": _id("eval", info.run_id, model),
            "run_id": _id("run", info.run_id),
            "created": info.created_at,
            "task": info.task,
            "task_id": _id("task", info.run_id, model),
            "task_version": stats.task.version or 0,
            "dataset": {"name": info.task, "location": info.dataset_hash,
                        "samples": info.dataset_size, "sample_ids": sample_ids,
                        "shuffled": False},
            "model": model,
            "model_generate_config": config,
            "config": {"epochs": epochs},
            "packages": {"proctor": proctor_version()},
            "metadata": {"proctor": {"run_id": info.run_id, "prompt_variant": info.prompt_variant,
                                     "lang": info.lang, "grader_version": stats.grader_version}},
            "scorers": [{"name": SCORER, "options": {},
                         "metrics": [{"name": "inspect_ai/accuracy", "options": {}},
                                     {"name": "inspect_ai/stderr", "options": {}}],
                         "metadata": {}}],
        },
        "plan": {"name": "plan", "steps": [{"solver": "generate", "params": {}}],
                 "config": config},
        "results": _results(items, epochs),
        "stats": {"started_at": info.created_at, "completed_at": info.created_at,
                  "model_usage": {model: usage}},
        "samples": [_sample(i, model, prompts) for i in sorted(items, key=_order(sample_ids))],
    }  # fmt: skip


def _order(sample_ids: list[str]) -> Any:
    place = {s: n for n, s in enumerate(sample_ids)}
    return lambda i: (place[i.sample.id], i.record.epoch)


def file_name(created_at: str, task: str, task_id: str) -> str:
    """Inspect's log file name, `<created>_<task>_<task id>.json`, each part cleaned as
    Inspect's `clean_filename_component` does ("_", "/", ":", "+" become "-"), and anything
    a file name cannot hold also becomes "-"."""

    def clean(part: str) -> str:
        return slug(re.sub(r"[_/:+]", "-", part))

    return f"{clean(created_at)}_{clean(task)}_{clean(task_id)}.json"


def inspect_files(stats: RunStatistics, prompts: Prompts) -> list[ExportFile]:
    """One Inspect log per model of the run."""
    files = []
    info = stats.info
    for model, items in by_model(stats).items():
        log = _log(model, items, stats, prompts)
        name = file_name(info.created_at, info.task, log["eval"]["task_id"])

        def write(out: TextIO, log: dict[str, Any] = log) -> None:
            json.dump(log, out, ensure_ascii=False, indent=1)
            out.write("\n")

        files.append(ExportFile(PurePosixPath(name), write))
    return files
