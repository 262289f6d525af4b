"""results.json: what the run was and every model's metrics, for machines (gates, comparisons)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from proctor.stats.metrics import Cell, ModelMetrics, RunMetrics, ranked
from proctor.stats.tiers import TIERS
from proctor.types import RunInfo

SCHEMA = "proctor.results/1"
CONFIDENCE = 0.95


def results_json(info: RunInfo, metrics: RunMetrics) -> str:
    return json.dumps(results_document(info, metrics), ensure_ascii=False, indent=2) + "\n"


def results_document(info: RunInfo, metrics: RunMetrics) -> dict[str, Any]:
    """Models are listed in input order; each carries its rank."""
    rank = {m.model: position for position, m in enumerate(ranked(metrics), start=1)}
    return {
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
        "interval": {"method": "wilson", "confidence": CONFIDENCE},
        "tiers": [
            {"tier": t.name, "min_accuracy": t.min_accuracy, "label": t.label} for t in TIERS
        ],
        "models": [_model(m, rank[m.model]) for m in metrics.models],
    }


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
