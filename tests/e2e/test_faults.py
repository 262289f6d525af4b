"""A 500-sample run against the stub with 20 % injected faults of every kind: the run completes,
every sample ends graded or `call_failed` with its reason, no failure is graded wrong, and the
retries are counted."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

from proctor.calling.retry import RetryPolicy
from proctor.runs.ask import RunPlan, execute
from proctor.runs.grade import grade_run
from proctor.runs.plan import Calling
from proctor.stats.metrics import summarize
from proctor.store import RunStore
from proctor.tasks.registry import get_task, load_for_run
from proctor.types import GenerationParams
from support.stub.config import FAULT_KINDS, StubConfig
from support.stub.server import run_stub


def plan_for(model: str, results: Path, n: int) -> RunPlan:
    task = get_task("arithmetic")
    data = load_for_run(task, n=n)
    return RunPlan(
        task=task,
        samples=data.samples,
        dataset_hash=data.content_hash,
        generator_version=data.generator_version,
        models=(model,),
        variant="B",
        lang="en",
        params=GenerationParams(max_tokens=64, timeout_s=1.0),
        results_dir=results,
        calling=Calling(
            concurrency=32,
            retry=RetryPolicy(max_attempts=4, base_delay_s=0.01, max_delay_s=0.05,
                              max_retry_after_s=0.05),
            breaker_threshold=50,
        ),
    )  # fmt: skip


def test_500_samples_with_20_percent_faults_of_every_kind(tmp_path: Path) -> None:
    config = StubConfig(seed=7, fault_rate=0.2, faults=FAULT_KINDS, hang_s=1.5)
    with run_stub(config) as stub:
        plan = plan_for(stub.model, tmp_path / "R", 500)
        outcome = asyncio.run(execute(plan))
        seen = stub.stats()

    assert outcome.asked == 500
    with RunStore.open(tmp_path / "R") as store:
        _, items = grade_run(store, outcome.run_id, plan.task)
        assert store.run_status(outcome.run_id) == "complete"
    assert len(items) == 500
    assert len({i.sample.id for i in items}) == 500

    outcomes = Counter(i.score.outcome for i in items)
    # The stub solves every question: any answer it gave must grade correct, so a fault that
    # slipped through as text would show up here as wrong or no_answer.
    assert set(outcomes) <= {"correct", "call_failed"}, outcomes
    for item in items:
        if item.score.outcome == "call_failed":
            assert item.record.status == "call_failed"
            assert item.record.error, "a failed call keeps its reason"
            assert item.record.attempts >= 1
        else:
            assert item.record.status == "ok"

    report = outcome.models[0]
    assert report.stats.retries > 50, "20 % faults must cost retries"
    # What the caller counted is what the store holds (timeouts under load may add retries
    # beyond the injected faults, so the stub's own count is only a lower bound).
    assert report.stats.attempts == sum(i.record.attempts for i in items)
    assert seen.requests >= sum(seen.faults.values())
    metrics = summarize(items).models[0]
    assert metrics.retries == sum(i.record.attempts - 1 for i in items) > 50
    # Every kind of fault was met at least once.
    kinds = {k for k, v in seen.faults.items() if v}
    assert kinds >= set(FAULT_KINDS), set(FAULT_KINDS) - kinds
