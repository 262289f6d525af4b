"""results.json: what the run was and every model's metrics, for machines (gates, comparisons).

A pure function of the run's `RunStatistics`; a part the run has no data for is left out (no
"tiers" for a task without a tier scale, no "judges" for a run nobody judged)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from proctor._util.variants import matrix_axes
from proctor.stats.human import HumanSummary
from proctor.stats.metrics import Cell, ModelMetrics
from proctor.stats.repeats import Estimate
from proctor.stats.run_statistics import RunStatistics

SCHEMA = "proctor.results/1"
CONFIDENCE = 0.95


def results_json(stats: RunStatistics) -> str:
    return json.dumps(results_document(stats), ensure_ascii=False, indent=2) + "\n"


def results_document(stats: RunStatistics) -> dict[str, Any]:
    """Models are listed in input order; each carries its rank."""
    info = stats.info
    rank = {m.model: position for position, m in enumerate(stats.ranking, start=1)}
    document: dict[str, Any] = {
        "schema": SCHEMA,
        "run": {
            "run_id": info.run_id,
            "task": info.task,
            "models": list(info.models),
            "dataset": {"hash": info.dataset_hash, "size": info.dataset_size},
            "generator_version": info.generator_version,
            "prompt": {"variant": info.prompt_variant, "lang": info.lang},
            "created_at": info.created_at,
            "params": asdict(info.params),
            "seed": info.seed,
        },
        "grader_version": stats.grader_version,
        "interval": {"method": "wilson", "confidence": CONFIDENCE},
    }
    if stats.completeness.stopped_early:  # its answers not asked were left out on purpose
        document["run"]["stopped_early"] = stats.completeness.stopped_early
    matrix = matrix_axes(info.models)
    if matrix:  # each variant was asked with its own settings: these, per model string
        document["run"]["matrix"] = matrix
    if stats.prompt_files:  # the files its variants name, each with its whole hash
        document["run"]["prompt"]["files"] = {k: dict(v) for k, v in stats.prompt_files.items()}
    if stats.task.tiers is not None:
        document["tiers"] = [
            {"tier": t.name, "min_accuracy": t.min_accuracy, "label": t.label}
            for t in stats.task.tiers
        ]
    document["models"] = [_model(m, rank[m.model]) for m in stats.metrics.models]
    document.update(_parts(stats))
    return document


def _parts(stats: RunStatistics) -> dict[str, Any]:
    """Every result beyond the per-model metrics that the run has."""
    parts: dict[str, Any] = {}
    if stats.suite:
        parts["suite"] = stats.suite
    if stats.turns:
        parts["turns"] = [{**t.to_json(), "grader_version": t.grader_version} for t in stats.turns]
    if stats.paired:
        parts["paired"] = [
            {**asdict(p), "verdict": p.verdict(), "significant": p.significant}
            for p in stats.paired
        ]
    if stats.repeats:
        parts["repeats"] = {
            model: {
                "replies_per_item": r.replies_per_item,
                "accuracy": _estimate(r.accuracy),
                "majority": _estimate(r.majority),
                "stability": _estimate(r.stability),
                "pass_at": {str(k): _estimate(e) for k, e in r.pass_at.items()},
            }
            for model, r in stats.repeats.items()
        }
    if stats.consistency is not None:
        parts["consistency"] = {
            r.model: {"overall": _estimate(r.overall),
                      "by_kind": {k: _estimate(e) for k, e in r.by_kind.items()}}
            for r in stats.consistency.rows
        }  # fmt: skip
    if stats.judges:
        parts["judges"] = [asdict(j) for j in stats.judges]
    if stats.human is not None:
        parts["human"] = human_json(stats.human)
    if stats.task_metrics is not None:
        parts["task_metrics"] = {m: dict(v) for m, v in stats.task_metrics.values.items()}
    if stats.gate is not None:
        parts["gate"] = {
            "passed": stats.gate.passed,
            "inconclusive": sum(r.inconclusive for r in stats.gate.rows),
            "checks": [asdict(r) for r in stats.gate.rows],
        }
    if stats.truncation:
        parts["truncation"] = {
            t.model: {"scored": t.scored, "cut_off": t.capped, "rate": t.rate,
                      "accuracy_cut_off_wrong": t.accuracy_low,
                      "accuracy_cut_off_right": t.accuracy_high,
                      "accuracy_on_finished": t.finished_accuracy, "max_tokens": t.cap,
                      "suggested_max_tokens": t.suggested_max_tokens, "warning": t.warning()}
            for t in stats.truncation
        }  # fmt: skip
    if stats.calibration:
        parts["calibration"] = {
            model: {"n": c.n, "ece": c.ece, "brier": c.brier,
                    "mean_confidence": c.mean_confidence, "accuracy": c.accuracy}
            for model, c in stats.calibration.items()
        }  # fmt: skip
    if stats.calculator is not None:
        parts["calculator"] = {
            m.model: {"accuracy": m.accuracy, "ci_low": m.ci_low, "ci_high": m.ci_high,
                      "n_scored": m.n_scored}
            for m in stats.calculator.models
        }  # fmt: skip
    if any(c.cost is not None or c.reused for c in stats.cost):
        parts["cost"] = {
            c.model: {"usd": c.cost, "batched": c.batched, "reused": c.reused,
                      "saved_usd": c.saved, "reused_from": list(c.sources)}
            for c in stats.cost
        }  # fmt: skip
    return parts


def human_json(h: HumanSummary) -> dict[str, Any]:
    """People's verdicts: which kinds they count, per model and kind, and each verdict that
    counts now (one per reviewed reply)."""
    return {
        "grade_by": list(h.grade_by),
        "counted": h.counted,
        "rows": [{**asdict(r), "rules_agreement": r.rules_agreement} for r in h.rows],
        "verdicts": [asdict(g) for g in h.grades.values()],
        "agreement": None
        if h.drift is None
        else [
            {"who": r.who, "over": r.scope, **asdict(r.result), "share": r.result.share}
            for r in (*h.drift.self_agreement, *h.drift.inter_rater)
        ],
    }


def _estimate(e: Estimate) -> dict[str, Any]:
    return {"value": e.value, "low": e.low, "high": e.high, "n": e.n}


def _model(m: ModelMetrics, rank: int) -> dict[str, Any]:
    return {
        "model": m.model,
        "rank": rank,
        "accuracy": m.accuracy,
        "ci_low": m.ci_low,
        "ci_high": m.ci_high,
        "correct": m.correct,
        "n_scored": m.n_scored,
        "n_items": m.n_items,
        "tier": m.tier,
        "tier_label": m.tier_label,
        "format_compliance": m.format_compliance,
        "outcomes": dict(m.outcomes),
        "by_category": {key: _cell(c) for key, c in m.by_category.items()},
        "by_difficulty": {key: _cell(c) for key, c in m.by_difficulty.items()},
        "retries": m.retries,
        "mean_latency_s": m.mean_latency_s,
        "tokens": {
            "prompt": m.total_prompt_tokens,
            "completion": m.total_completion_tokens,
            "answers_with_unknown_counts": m.unknown_usage,
        },
    }


def _cell(c: Cell) -> dict[str, Any]:
    return {
        "accuracy": c.accuracy,
        "ci_low": c.ci_low,
        "ci_high": c.ci_high,
        "correct": c.correct,
        "n": c.n,
    }
