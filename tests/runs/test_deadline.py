"""Calling.deadline_s: stop asking when time is up, keep what was stored, finish later."""

from __future__ import annotations

from pathlib import Path

from proctor.calling.retry import RetryPolicy
from proctor.providers.fake import FakeProvider
from proctor.runs.ask import RunPlan, execute
from proctor.runs.plan import Calling
from proctor.store import RunStore
from proctor.tasks.arithmetic import TASK
from proctor.types import GenerationParams, Prompt, Sample

N = 30
SAMPLES = tuple(
    Sample(id=f"q{i:02d}", input=f"{i} + 100", target=str(i + 100), difficulty="easy")
    for i in range(N)
)
MODEL = "fake/slow"


def right(prompt: Prompt) -> str:
    text = prompt.messages[-1].content
    s = next(s for s in SAMPLES if text.endswith(f"Problem: {s.input}"))
    return f"Final answer: {s.target}"


def plan_for(tmp_path: Path, deadline_s: float | None) -> RunPlan:
    return RunPlan(
        task=TASK,
        samples=SAMPLES,
        dataset_hash="sha256:hardening-deadline",
        generator_version="test",
        models=(MODEL,),
        variant="B",
        lang="en",
        params=GenerationParams(timeout_s=5.0),
        results_dir=tmp_path / "results",
        calling=Calling(retry=RetryPolicy(max_attempts=1), concurrency=2, deadline_s=deadline_s),
    )


def stored(plan: RunPlan, run_id: str) -> tuple[list[str], str]:
    with RunStore.open(plan.results_dir) as store:
        ids = [r.sample_id for r in store.records(run_id)]
        return ids, store.run_status(run_id)


async def test_deadline_stops_keeps_and_resumes(tmp_path: Path) -> None:
    slow = FakeProvider(MODEL, right, delay_s=0.05, max_concurrency=2)
    plan = plan_for(tmp_path, deadline_s=0.3)
    first = await execute(plan, providers={MODEL: slow})
    assert first.deadline_hit is True
    assert first.resumed is False
    kept, status = stored(plan, first.run_id)
    assert status == "interrupted"
    assert 0 < len(kept) < N, len(kept)
    assert len(set(kept)) == len(kept)
    asked_first = slow.calls
    assert asked_first >= len(kept)  # in-flight calls cut by the deadline are not stored

    again = FakeProvider(MODEL, right, max_concurrency=4)
    second = await execute(plan_for(tmp_path, deadline_s=None), providers={MODEL: again})
    assert second.run_id == first.run_id
    assert second.resumed is True
    assert second.deadline_hit is False
    assert again.calls == N - len(kept)  # only the missing ones
    assert second.asked == N - len(kept)
    asked_prompts = {p.messages[-1].content for p in again.prompts}
    assert len(asked_prompts) == N - len(kept)
    ids, status = stored(plan, first.run_id)
    assert status == "complete"
    assert sorted(ids) == sorted(s.id for s in SAMPLES)
    with RunStore.open(plan.results_dir) as store:
        assert all(r.status == "ok" for r in store.records(first.run_id))


async def test_deadline_zero_asks_nothing_and_stays_resumable(tmp_path: Path) -> None:
    slow = FakeProvider(MODEL, right, delay_s=0.05)
    plan = plan_for(tmp_path, deadline_s=0.0)
    outcome = await execute(plan, providers={MODEL: slow})
    assert outcome.deadline_hit is True
    ids, status = stored(plan, outcome.run_id)
    assert (ids, status) == ([], "interrupted")
    again = FakeProvider(MODEL, right)
    done = await execute(plan_for(tmp_path, None), providers={MODEL: again})
    assert done.run_id == outcome.run_id and again.calls == N


async def test_generous_deadline_is_not_hit(tmp_path: Path) -> None:
    fast = FakeProvider(MODEL, right)
    plan = plan_for(tmp_path, deadline_s=30.0)
    outcome = await execute(plan, providers={MODEL: fast})
    assert outcome.deadline_hit is False
    ids, status = stored(plan, outcome.run_id)
    assert status == "complete" and len(ids) == N
