"""A generated results folder with one big, graded run, written through `RunStore` (shared by
the viewer's memory test and `bench/bench_viewer.py`)."""

from __future__ import annotations

from pathlib import Path

from proctor.store import RunStore
from proctor.types import GenerationParams, Record, RunInfo, Sample, Score, Usage

CHUNK = 10_000


def make_big_store(
    root: Path, n_items: int, models: tuple[str, ...], run_id: str, *, graded: bool = True
) -> None:
    """`n_items` arithmetic items × `models`, every answer stored and (unless not `graded`)
    graded, one in three wrong, in chunks so that the generator itself stays small."""
    samples = [
        Sample(id=f"i{i:06d}", input=f"{i} + 7", target=str(i + 7), category=("add", "big")[i % 2])
        for i in range(n_items)
    ]
    clock = (run_id[9:15] if run_id[:8].isdigit() else "").ljust(6, "0")  # an id's time of day
    info = RunInfo(
        run_id=run_id,
        task="arithmetic",
        models=models,
        dataset_hash="sha256:big",
        dataset_size=n_items,
        generator_version="test",
        prompt_variant="B",
        lang="en",
        created_at=f"2026-12-01T{clock[0:2]}:{clock[2:4]}:{clock[4:6]}+00:00",
        params=GenerationParams(),
        seed=None,
    )
    with RunStore.open(root) as store:
        store.create_run(info, samples, "fp-big", {})
        scores: list[tuple[str, str, int, Score]] = []
        for model in models:
            for start in range(0, n_items, CHUNK):
                records = []
                for s in samples[start : start + CHUNK]:
                    wrong = int(s.id[1:]) % 3 == 0
                    answer = int(s.target) + (1 if wrong else 0)
                    records.append(
                        Record(
                            run_id=run_id,
                            model=model,
                            sample_id=s.id,
                            status="ok",
                            text=f"Working it out step by step.\nFinal answer: {answer}",
                            finish_reason="stop",
                            usage=Usage(40, 12),
                            latency_s=0.2,
                            attempts=1,
                            prompt_variant="B",
                            lang="en",
                        )
                    )
                    scores.append(
                        (
                            model,
                            s.id,
                            0,
                            Score(
                                outcome="wrong" if wrong else "correct",
                                rule="final_answer_line+integer_equal",
                                explanation=f"'{answer}' vs the target {s.target}",
                                extracted=str(answer),
                                normalized=str(answer),
                                format_ok=True,
                            ),
                        )
                    )
                store.add_records(records)
        if graded:
            store.save_scores(run_id, scores, "arithmetic/2")
        store.set_status(run_id, "complete")
