"""The runner: one stored record per sample per model, resume, call failures, offline re-grading."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from pathlib import Path

import pytest

from proctor.calling.retry import RetryPolicy
from proctor.errors import AuthError, ConfigError, ProviderError
from proctor.providers.base import Provider
from proctor.providers.fake import FakeProvider, Reply
from proctor.runs import ask as runner
from proctor.runs.ask import RunPlan, execute, open_or_create_run
from proctor.runs.grade import grade_run
from proctor.runs.plan import Calling
from proctor.store import RunStore
from proctor.tasks.arithmetic import TASK
from proctor.types import (
    Completion,
    GenerationParams,
    Prompt,
    Record,
    Sample,
    Score,
    Usage,
)

N = 6
SAMPLES = tuple(
    Sample(
        id=f"q{i}",
        input=f"{i} + 100",
        target=str(i + 100),
        category=("add", "more")[i % 2],
        difficulty="easy",
    )
    for i in range(N)
)
BY_INPUT = {s.input: s for s in SAMPLES}
MODELS = ("fake/a", "fake/b")


def sample_of(prompt: Prompt) -> Sample:
    content = prompt.messages[-1].content
    found = [s for s in SAMPLES if content.endswith(f"Problem: {s.input}")]
    assert len(found) == 1, content
    return found[0]


def correct(prompt: Prompt) -> Reply:
    return f"Let me add.\nFinal answer: {sample_of(prompt).target}"


ONE_TRY = Calling(retry=RetryPolicy(max_attempts=1))
"""How these tests call: once, no retry."""
ONE_AT_A_TIME = dataclasses.replace(ONE_TRY, concurrency=1)


def plan_for(
    tmp_path: Path,
    *,
    models: tuple[str, ...] = MODELS,
    samples: tuple[Sample, ...] = SAMPLES,
    calling: Calling = ONE_TRY,
    **kwargs: object,
) -> RunPlan:
    fields: dict[str, object] = {
        "task": TASK,
        "samples": samples,
        "dataset_hash": "sha256:test-" + "-".join(s.id for s in samples),
        "generator_version": "test",
        "models": models,
        "variant": "B",
        "lang": "en",
        "params": GenerationParams(timeout_s=5.0),
        "results_dir": tmp_path / "results",
        "calling": calling,
    }
    fields.update(kwargs)
    return RunPlan(**fields)  # type: ignore[arg-type]


def fakes(script: object = correct, models: tuple[str, ...] = MODELS) -> dict[str, FakeProvider]:
    return {m: FakeProvider(m, script) for m in models}  # type: ignore[arg-type]


def raised(e: BaseException, kind: type[BaseException], text: str) -> bool:
    """`e` is (or groups) a `kind` whose message holds `text`: true before and after a fix that
    moves the runner to a TaskGroup (which wraps errors in an ExceptionGroup)."""
    if isinstance(e, BaseExceptionGroup):
        return any(raised(x, kind, text) for x in e.exceptions)
    return isinstance(e, kind) and text in str(e)


def records(plan: RunPlan, run_id: str) -> list[Record]:
    with RunStore.open(plan.results_dir) as store:
        return store.records(run_id)


def status(plan: RunPlan, run_id: str) -> str:
    with RunStore.open(plan.results_dir) as store:
        return store.run_status(run_id)


def record_of(plan: RunPlan, model: str, sample: Sample) -> Record:
    return Record(
        run_id="",
        model=model,
        sample_id=sample.id,
        status="ok",
        text=f"Final answer: {sample.target}",
        finish_reason="stop",
        usage=Usage(1, 1),
        latency_s=0.0,
        attempts=1,
        prompt_variant=plan.variant,
        lang=plan.lang,
    )


@pytest.fixture(autouse=True)
def no_real_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every provider a test needs is passed in; reaching the registry is a test failure."""

    def refuse(model: str, key: object = None) -> Provider:
        raise AssertionError(f"runner made a provider for {model!r}")

    monkeypatch.setattr(runner, "make_provider", refuse)


# -- a fresh run ---------------------------------------------------------------------------------


async def test_one_record_per_sample_per_model(tmp_path: Path) -> None:
    plan = plan_for(tmp_path)
    providers = fakes()
    outcome = await execute(plan, providers=providers)
    assert outcome.resumed is False
    assert outcome.asked == N * len(MODELS)
    assert outcome.run_dir == plan.results_dir / "runs" / outcome.run_id
    assert outcome.run_dir.is_dir()
    stored = records(plan, outcome.run_id)
    keys = [(r.model, r.sample_id) for r in stored]
    assert sorted(keys) == sorted((m, s.id) for m in MODELS for s in SAMPLES)
    assert all(r.status == "ok" and r.attempts == 1 and r.run_id == outcome.run_id for r in stored)
    assert all(r.prompt_variant == "B" and r.lang == "en" for r in stored)
    assert {m: p.calls for m, p in providers.items()} == {m: N for m in MODELS}
    assert status(plan, outcome.run_id) == "complete"


async def test_prompts_come_from_the_task(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, models=("fake/a",), variant="A", lang="zh")
    providers = fakes(lambda p: sample_of_a_zh(p).target, ("fake/a",))
    await execute(plan, providers=providers)
    prompt = providers["fake/a"].prompts[0]
    assert (prompt.variant, prompt.lang) == ("A", "zh")
    assert len(prompt.messages) == 1 and prompt.messages[0].role == "user"


def sample_of_a_zh(prompt: Prompt) -> Sample:
    content = prompt.messages[-1].content
    return next(s for s in SAMPLES if content.endswith(s.input))


async def test_records_are_committed_before_grading(tmp_path: Path) -> None:
    plan = plan_for(tmp_path)
    seen: list[tuple[str, str]] = []
    reader = RunStore.open(plan.results_dir)

    def grade(record: Record, sample: Sample) -> Score:
        # another connection must already see the record when it is graded
        stored = reader.records(record.run_id, record.model)
        assert any(r.sample_id == sample.id and r.text == record.text for r in stored)
        seen.append((record.model, sample.id))
        return TASK.grade(record, sample)

    task = dataclasses.replace(TASK, grade=grade)
    try:
        await execute(
            dataclasses.replace(plan, task=task),
            providers=fakes(),
            on_result=lambda _m, _s: None,
        )
    finally:
        reader.close()
    assert len(seen) == N * len(MODELS)


async def test_record_survives_a_grading_crash(tmp_path: Path) -> None:
    def grade(record: Record, sample: Sample) -> Score:
        raise RuntimeError("grader bug")

    plan = plan_for(tmp_path, models=("fake/a",), calling=ONE_AT_A_TIME)
    plan = dataclasses.replace(plan, task=dataclasses.replace(TASK, grade=grade))
    with pytest.raises(BaseException) as info:
        await execute(plan, providers=fakes(models=("fake/a",)), on_result=lambda _m, _s: None)
    assert raised(info.value, RuntimeError, "grader bug")
    with RunStore.open(plan.results_dir) as store:
        (run,) = store.list_runs()
        assert run.status == "interrupted"
        assert run.n_records >= 1


async def test_no_model_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        await execute(plan_for(tmp_path, models=()), providers={})


# -- completed runs and resume -------------------------------------------------------------------


async def test_same_plan_after_completion_starts_a_new_run(tmp_path: Path) -> None:
    # the cache would answer all
    plan = plan_for(tmp_path, calling=dataclasses.replace(ONE_TRY, cache="off"))
    first = await execute(plan, providers=fakes())
    providers = fakes()
    second = await execute(plan, providers=providers)
    assert second.run_id != first.run_id
    assert second.resumed is False
    assert second.asked == N * len(MODELS)
    assert sum(p.calls for p in providers.values()) == N * len(MODELS)
    assert len(records(plan, first.run_id)) == N * len(MODELS)
    assert len(records(plan, second.run_id)) == N * len(MODELS)


async def test_unfinished_run_is_resumed_asking_only_what_is_missing(tmp_path: Path) -> None:
    plan = plan_for(tmp_path)
    with RunStore.open(plan.results_dir) as store:
        run_id, resumed = open_or_create_run(store, plan, None)
        assert resumed is False
        done = [
            dataclasses.replace(record_of(plan, "fake/a", s), run_id=run_id) for s in SAMPLES[:4]
        ] + [dataclasses.replace(record_of(plan, "fake/b", SAMPLES[5]), run_id=run_id)]
        store.add_records(done)
        assert store.run_status(run_id) == "running"

    plans: list[tuple[str, Mapping[str, tuple[int, int]]]] = []
    providers = fakes()
    outcome = await execute(
        plan, providers=providers, on_plan=lambda r, c: plans.append((r, dict(c)))
    )
    assert outcome.run_id == run_id
    assert outcome.resumed is True
    assert outcome.asked == 2 + 5
    assert plans == [(run_id, {"fake/a": (4, 2), "fake/b": (1, 5)})]
    assert [sample_of(p).id for p in providers["fake/a"].prompts] == ["q4", "q5"]
    assert sorted(sample_of(p).id for p in providers["fake/b"].prompts) == [
        "q0",
        "q1",
        "q2",
        "q3",
        "q4",
    ]
    assert len(records(plan, run_id)) == N * len(MODELS)
    assert status(plan, run_id) == "complete"


class StopsAfter:
    """Answers the first `k` calls, then hangs (signalling `stuck`) until cancelled."""

    def __init__(self, name: str, k: int) -> None:
        self._name = name
        self.k = k
        self.calls = 0
        self.stuck = asyncio.Event()

    @property
    def name(self) -> str:
        return self._name

    @property
    def max_concurrency(self) -> int:
        return 1

    async def complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        self.calls += 1
        if self.calls > self.k:
            self.stuck.set()
            await asyncio.Event().wait()
        return Completion(correct(prompt), "stop", Usage(), self._name, 0.0)  # type: ignore[arg-type]

    async def aclose(self) -> None:
        return None


async def test_interrupted_run_is_resumed(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, models=("fake/a",), calling=ONE_AT_A_TIME)
    k = 2
    stops = StopsAfter("fake/a", k)
    running = asyncio.create_task(execute(plan, providers={"fake/a": stops}))
    await asyncio.wait_for(stops.stuck.wait(), timeout=5)
    running.cancel()  # what asyncio.run does on Ctrl-C
    with pytest.raises(asyncio.CancelledError):
        await running
    with RunStore.open(plan.results_dir) as store:
        (run,) = store.list_runs()
        assert run.status == "interrupted"
        assert run.n_records == k

    again = fakes(models=("fake/a",))
    outcome = await execute(plan, providers=again)
    assert outcome.run_id == run.run_id
    assert outcome.resumed is True
    assert outcome.asked == N - k
    assert again["fake/a"].calls == N - k
    assert sorted(sample_of(p).id for p in again["fake/a"].prompts) == [s.id for s in SAMPLES[k:]]
    assert len(records(plan, run.run_id)) == N
    assert status(plan, run.run_id) == "complete"


async def test_resume_by_id_and_prefix_uses_the_stored_plan(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, models=("fake/a",))
    with RunStore.open(plan.results_dir) as store:
        run_id, _ = open_or_create_run(store, plan, None)
        store.add_records(
            [dataclasses.replace(record_of(plan, "fake/a", SAMPLES[0]), run_id=run_id)]
        )
        store.set_status(run_id, "interrupted")

    # a different plan (other samples, other prompt): --resume asks the stored run's paper
    other = plan_for(tmp_path, models=("fake/a",), samples=SAMPLES[:1], variant="A")
    providers = fakes(models=("fake/a",))
    outcome = await execute(other, resume=run_id[:-2], providers=providers)
    assert outcome.run_id == run_id
    assert outcome.resumed is True
    assert outcome.asked == N - 1
    assert all(p.variant == "B" for p in providers["fake/a"].prompts)

    nothing = fakes(models=("fake/a",))
    outcome = await execute(other, resume=run_id, providers=nothing)
    assert (outcome.run_id, outcome.resumed, outcome.asked) == (run_id, True, 0)
    assert nothing["fake/a"].calls == 0


async def test_resumed_run_keeps_the_commands_concurrency_and_retry(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, models=("fake/a",), calling=ONE_AT_A_TIME)
    with RunStore.open(plan.results_dir) as store:
        run_id, _ = open_or_create_run(store, plan, None)

    gate = GatedProvider("fake/a")
    task = asyncio.create_task(execute(plan, providers={"fake/a": gate}))
    for _ in range(50):
        await asyncio.sleep(0)
    gate.gate.set()
    outcome = await asyncio.wait_for(task, timeout=5)
    assert outcome.run_id == run_id and outcome.resumed
    assert gate.max_in_flight == 1


class GatedProvider:
    def __init__(self, name: str) -> None:
        self._name = name
        self.gate = asyncio.Event()
        self.in_flight = 0
        self.max_in_flight = 0

    @property
    def name(self) -> str:
        return self._name

    @property
    def max_concurrency(self) -> int:
        return 8

    async def complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await self.gate.wait()
        finally:
            self.in_flight -= 1
        return Completion(correct(prompt), "stop", Usage(), self._name, 0.0)  # type: ignore[arg-type]

    async def aclose(self) -> None:
        return None


class OneCrashes:
    """q0 crashes with a non-provider error at once; the others wait; counts cancellations."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.cancelled = 0
        self.finished = 0

    @property
    def name(self) -> str:
        return "fake/a"

    @property
    def max_concurrency(self) -> int:
        return 8

    async def complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        if sample_of(prompt).id == "q0":
            await asyncio.sleep(0)
            raise RuntimeError("adapter bug")
        try:
            await self.gate.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        self.finished += 1
        return Completion(correct(prompt), "stop", Usage(), "fake/a", 0.0)  # type: ignore[arg-type]

    async def aclose(self) -> None:
        return None


async def test_a_crashing_call_cancels_its_siblings(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, models=("fake/a",))
    provider = OneCrashes()
    with pytest.raises(BaseException) as info:
        await execute(plan, providers={"fake/a": provider})
    assert raised(info.value, RuntimeError, "adapter bug")
    try:
        await asyncio.sleep(0.01)
        assert provider.cancelled == N - 1
    finally:
        provider.gate.set()  # release any orphan so the test leaves nothing pending
        await asyncio.sleep(0.01)


# -- failed calls --------------------------------------------------------------------------------


async def test_call_failures_are_stored_and_graded_call_failed(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, models=("fake/a", "fake/b"))

    def fails_on_q1(prompt: Prompt) -> Reply:
        if sample_of(prompt).id == "q1":
            return AuthError("HTTP 401: authentication failed: nope", status=401)
        return correct(prompt)

    providers = {"fake/a": FakeProvider("fake/a", fails_on_q1), "fake/b": fakes()["fake/b"]}
    results: list[tuple[str, Score]] = []
    outcome = await execute(
        plan, providers=providers, on_result=lambda m, s: results.append((m, s))
    )
    stored = {(r.model, r.sample_id): r for r in records(plan, outcome.run_id)}
    failed = stored[("fake/a", "q1")]
    assert failed.status == "call_failed"
    assert failed.text == ""
    assert failed.attempts == 1
    assert failed.error == "AuthError: HTTP 401: authentication failed: nope"
    assert all(r.status == "ok" for k, r in stored.items() if k != ("fake/a", "q1"))

    outcomes = sorted((m, s.outcome) for m, s in results)
    assert outcomes.count(("fake/a", "call_failed")) == 1
    assert outcomes.count(("fake/a", "correct")) == N - 1
    assert outcomes.count(("fake/b", "correct")) == N
    assert not any(o == "wrong" for _, o in outcomes)

    with RunStore.open(plan.results_dir) as store:
        _, items = grade_run(store, outcome.run_id, TASK)
    graded = {(i.record.model, i.sample.id): i.score for i in items}
    assert graded[("fake/a", "q1")].outcome == "call_failed"
    assert "nope" in graded[("fake/a", "q1")].explanation


async def test_retries_are_recorded_as_attempts(tmp_path: Path) -> None:
    from proctor.errors import Transient

    plan = plan_for(
        tmp_path,
        models=("fake/a",),
        samples=SAMPLES[:1],
        calling=Calling(retry=RetryPolicy(max_attempts=3, base_delay_s=0.001, max_delay_s=0.001)),
    )
    provider = FakeProvider("fake/a", [Transient("503"), Transient("503"), "Final answer: 100"])
    outcome = await execute(plan, providers={"fake/a": provider})
    (record,) = records(plan, outcome.run_id)
    assert (record.status, record.attempts, record.text) == ("ok", 3, "Final answer: 100")


async def test_a_failed_call_is_not_asked_again_on_resume(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, models=("fake/a",), samples=SAMPLES[:2])
    with RunStore.open(plan.results_dir) as store:
        run_id, _ = open_or_create_run(store, plan, None)
        failed = dataclasses.replace(
            record_of(plan, "fake/a", SAMPLES[0]),
            run_id=run_id,
            status="call_failed",
            text="",
            error="Transient: 503",
        )
        store.add_records([failed])
    providers = fakes(models=("fake/a",))
    outcome = await execute(plan, providers=providers)
    assert outcome.run_id == run_id
    assert [sample_of(p).id for p in providers["fake/a"].prompts] == ["q1"]


# -- grading from the store ----------------------------------------------------------------------


async def test_grade_run_regrades_from_the_store_without_a_provider(tmp_path: Path) -> None:
    plan = plan_for(tmp_path)

    def a_is_wrong_on_q0(prompt: Prompt) -> Reply:
        return "Final answer: 7" if sample_of(prompt).id == "q0" else correct(prompt)

    providers = {"fake/a": FakeProvider("fake/a", a_is_wrong_on_q0), "fake/b": fakes()["fake/b"]}
    outcome = await execute(plan, providers=providers)
    calls_before = {m: p.calls for m, p in providers.items()}

    with RunStore.open(plan.results_dir) as store:
        info, items = grade_run(store, outcome.run_id, TASK)
        scores = store.scores(outcome.run_id)
        assert store.grader_version(outcome.run_id) == f"{TASK.name}/{TASK.version}"
        assert len(store.records(outcome.run_id)) == N * len(MODELS)

    assert {m: p.calls for m, p in providers.items()} == calls_before
    assert info.run_id == outcome.run_id and info.models == MODELS
    assert len(items) == N * len(MODELS)
    wrong = [(i.record.model, i.sample.id) for i in items if i.score.outcome == "wrong"]
    assert wrong == [("fake/a", "q0")]
    assert sum(i.score.outcome == "correct" for i in items) == N * len(MODELS) - 1
    assert len(scores) == N * len(MODELS)
    assert scores[("fake/a", "q0", 0)].outcome == "wrong"


async def test_grade_run_applies_the_current_rules(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, models=("fake/a",))
    outcome = await execute(plan, providers=fakes(models=("fake/a",)))

    def strict(record: Record, sample: Sample) -> Score:
        return Score("unscored", "test_rule", "new rules")

    with RunStore.open(plan.results_dir) as store:
        _, items = grade_run(store, outcome.run_id, dataclasses.replace(TASK, grade=strict))
        assert {s.outcome for s in store.scores(outcome.run_id).values()} == {"unscored"}
    assert {i.score.outcome for i in items} == {"unscored"}


# -- callbacks -----------------------------------------------------------------------------------


async def test_callbacks_receive_the_right_counts(tmp_path: Path) -> None:
    plan = plan_for(tmp_path)
    plans: list[tuple[str, dict[str, tuple[int, int]]]] = []
    results: list[tuple[str, Score]] = []
    outcome = await execute(
        plan,
        providers=fakes(),
        on_plan=lambda r, c: plans.append((r, dict(c))),
        on_result=lambda m, s: results.append((m, s)),
    )
    assert plans == [(outcome.run_id, {m: (0, N) for m in MODELS})]
    assert sorted(m for m, _ in results) == sorted(m for m in MODELS for _ in range(N))
    assert all(s.outcome == "correct" for _, s in results)


async def test_callbacks_on_a_run_with_nothing_left(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, models=("fake/a",))
    first = await execute(plan, providers=fakes(models=("fake/a",)))
    plans: list[tuple[str, dict[str, tuple[int, int]]]] = []
    results: list[tuple[str, Score]] = []
    outcome = await execute(
        plan,
        resume=first.run_id,
        providers=fakes(models=("fake/a",)),
        on_plan=lambda r, c: plans.append((r, dict(c))),
        on_result=lambda m, s: results.append((m, s)),
    )
    assert outcome.asked == 0
    assert plans == [(first.run_id, {"fake/a": (N, 0)})]
    assert results == []


def test_provider_error_is_a_base_for_failures() -> None:
    # the runner relies on the caller turning every ProviderError into a CallFailure
    assert issubclass(AuthError, ProviderError)


async def test_a_model_named_twice_is_asked_once(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, models=("fake/a", "fake/a"))
    provider = FakeProvider("fake/a", correct)
    try:
        outcome = await execute(plan, providers={"fake/a": provider})
    except ConfigError:
        return  # rejecting the duplicate is as good as asking once
    assert provider.calls == N
    assert outcome.asked == N


async def test_repeated_samples_get_distinct_seeds(tmp_path: Path) -> None:
    seen: list[int | None] = []

    class SeedRecorder(FakeProvider):
        async def complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
            seen.append(params.seed)
            return await super().complete(prompt, params)

    plan = plan_for(
        tmp_path,
        models=("fake/a",),
        calling=dataclasses.replace(ONE_TRY, epochs=3),
        params=GenerationParams(timeout_s=5.0, temperature=0.8, seed=10),
    )
    await execute(plan, providers={"fake/a": SeedRecorder("fake/a", correct)})
    assert len(seen) == 3 * len(SAMPLES)
    assert sorted(set(seen)) == [10, 11, 12]
    assert seen.count(10) == seen.count(11) == seen.count(12) == len(SAMPLES)
