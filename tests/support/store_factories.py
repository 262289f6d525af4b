"""Builders of the shared value types for the store's tests (and their child processes)."""

from __future__ import annotations

from proctor.types import GenerationParams, Record, RunInfo, Sample, Usage


def make_info(
    run_id: str,
    *,
    task: str = "arithmetic",
    models: tuple[str, ...] = ("fake/a", "fake/b"),
    created_at: str = "2026-11-29T21:15:00+00:00",
    size: int = 3,
) -> RunInfo:
    return RunInfo(
        run_id=run_id,
        task=task,
        models=models,
        dataset_hash="sha256:abc",
        dataset_size=size,
        generator_version="gen-1",
        prompt_variant="plain",
        lang="en",
        created_at=created_at,
        params=GenerationParams(temperature=0.5, max_tokens=64, timeout_s=12.5, seed=7),
        seed=42,
    )


def make_samples(n: int, prefix: str = "s") -> list[Sample]:
    return [
        Sample(
            id=f"{prefix}{i:05d}",
            input=f"{i} + {i} = ?",
            target=str(2 * i),
            category="integer",
            difficulty="easy",
        )
        for i in range(n)
    ]


def make_record(
    run_id: str,
    sample_id: str,
    *,
    model: str = "fake/a",
    status: str = "ok",
    text: str = "Final answer: 2",
    epoch: int = 0,
    attempts: int = 1,
    error: str = "",
) -> Record:
    return Record(
        run_id=run_id,
        model=model,
        sample_id=sample_id,
        status=status,  # type: ignore[arg-type]
        text=text,
        finish_reason="stop",
        usage=Usage(prompt_tokens=10, completion_tokens=3),
        latency_s=0.25,
        attempts=attempts,
        prompt_variant="plain",
        lang="en",
        reported_model=model,
        error=error,
        epoch=epoch,
    )
