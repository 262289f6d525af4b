"""The judge phase: a judge model grades a run's stored answers, and every raw verdict is stored.

    stored answers → judge prompt (quoted data) → call (any provider) → store (raw replies)
                                                                        ↑ `proctor score` reads
                                                                          them again, no call

It asks only for verdicts the store does not hold yet (a judge call that failed is asked again),
so a judge phase killed at any moment and started again loses nothing and asks nothing twice.
A reply without a valid verdict is asked again with the error, at most `parse_retries` times,
and then stored as "unscored" with the reason — never given a default score.

Pointwise: each answer alone, on the 1–10 rubric of `proctor.prompts.judge`. Pairwise: two answers
to the same case (the run's two models, or one model against the case's standard answer),
asked in both orders so that position bias cancels out.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from proctor.calling.caller import CallFailure, CallStats, ModelCaller
from proctor.calling.retry import RetryPolicy
from proctor.errors import ConfigError
from proctor.extract.judge_verdict import JudgeReading, read_pairwise, read_pointwise
from proctor.prompts.judge import RUBRIC_VERSION, pairwise_prompt, pointwise_prompt, retry_prompt
from proctor.providers.base import Provider
from proctor.providers.keys import KeySource
from proctor.providers.registry import make_provider
from proctor.store import RunStore
from proctor.store.run_store import Judgement, JudgementStatus
from proctor.types import GenerationParams, Prompt, Record, Sample, Score, Usage

REFERENCE = "reference"
"""The pairwise side that is the case's standard answer rather than a model."""
SINGLE = "single"

OnJudged = Callable[[Judgement], None]


@dataclass(frozen=True)
class JudgePlan:
    judge: str
    """The judge's model string (any provider, `local` included)."""
    params: GenerationParams = field(
        default_factory=lambda: GenerationParams(temperature=0.0, max_tokens=256, timeout_s=120.0)
    )
    parse_retries: int = 2
    """How many times a reply without a valid verdict is asked again before "unscored"."""
    kinds: tuple[str, ...] | None = None
    """Case kinds (a sample's category) to judge; None: every one."""
    undecided: bool = True
    """Also judge, whatever its kind, every reply the task's rules left unscored (a hedged
    summary point, a refusal that speculates): the judge is told why the rules could not."""
    pairwise: bool = False
    pair: tuple[str, str] | None = None
    """The two sides of a pairwise verdict; None: the run's two models, or its one model against
    the standard answer (`REFERENCE`)."""
    concurrency: int | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    key: KeySource | None = None
    """Where the judge's key comes from (`registry.key_sources`); None: the judge alone."""
    label: str = ""
    """The name the verdicts are stored under (default: `judge`): a repeat of the same judge
    (`proctor judge --repeats`) is stored as JUDGE#2, JUDGE#3, …"""

    @property
    def stored_as(self) -> str:
        return self.label or self.judge


@dataclass(frozen=True)
class JudgeOutcome:
    run_id: str
    judge: str
    stored: int
    """Verdicts already in the store before this phase."""
    asked: int
    ok: int
    unscored: int
    failed: int
    skipped: int
    """Answers not judged because their own call had failed (nothing to judge)."""
    stats: CallStats


@dataclass(frozen=True)
class _Job:
    model: str
    sample: Sample
    epoch: int
    ordering: str
    prompt: Prompt

    @property
    def pairwise(self) -> bool:
        return self.ordering != SINGLE


def pair_name(a: str, b: str) -> str:
    return f"{a} vs {b}"


def _reader(pairwise: bool) -> Callable[[str], JudgeReading]:
    return read_pairwise if pairwise else read_pointwise


def _kind(sample: Sample) -> str:
    return sample.metadata.get("kind") or sample.category


Grades = Mapping[tuple[str, str, int], Score]
"""The run's stored grades by (model, sample id, epoch)."""


def _pointwise_jobs(
    samples: dict[str, Sample], records: Sequence[Record], plan: JudgePlan, grades: Grades | None
) -> tuple[list[_Job], int]:
    jobs: list[_Job] = []
    skipped = 0
    for r in records:
        sample = samples[r.sample_id]
        undecided = ""
        score = None if grades is None else grades.get((r.model, r.sample_id, r.epoch))
        if score is not None and r.status == "ok" and score.rule != "not_graded":
            undecided = score.explanation if score.outcome == "unscored" else ""
        if plan.kinds is not None and _kind(sample) not in plan.kinds and not undecided:
            continue
        if r.status != "ok":
            skipped += 1
            continue
        prompt = pointwise_prompt(sample, r.text, undecided=undecided)
        jobs.append(_Job(r.model, sample, r.epoch, SINGLE, prompt))
    return jobs, skipped


def _sides(models: Sequence[str], plan: JudgePlan) -> tuple[str, str]:
    if plan.pair is not None:
        a, b = plan.pair
        for side in (a, b):
            if side != REFERENCE and side not in models:
                raise ConfigError(f"model {side!r} is not in this run: {', '.join(models)}")
        if a == b:
            raise ConfigError("pairwise judging needs two different sides")
        return a, b
    if len(models) == 1:
        return models[0], REFERENCE
    if len(models) == 2:
        return models[0], models[1]
    raise ConfigError(
        f"the run has {len(models)} models: name the two to compare (--models A B; "
        f"'{REFERENCE}' is the standard answer)"
    )


def _pairwise_jobs(
    samples: dict[str, Sample], records: Sequence[Record], models: Sequence[str], plan: JudgePlan
) -> tuple[list[_Job], int]:
    a, b = _sides(models, plan)
    replies: dict[tuple[str, str, int], Record] = {
        (r.model, r.sample_id, r.epoch): r for r in records
    }
    jobs: list[_Job] = []
    skipped = 0
    for (model, sample_id, epoch), record in replies.items():
        if model != a:
            continue
        sample = samples[sample_id]
        if plan.kinds is not None and _kind(sample) not in plan.kinds:
            continue
        if b == REFERENCE:
            # A suite case's target may be a checklist, not an answer: only its reference counts.
            suite_case = "kind" in sample.metadata
            other_text = sample.metadata.get("reference", "") if suite_case else sample.target
            other_ok = bool(other_text)
        else:
            other = replies.get((b, sample_id, epoch))
            other_text = other.text if other is not None else ""
            other_ok = other is not None and other.status == "ok"
        if record.status != "ok" or not other_ok:
            skipped += 1
            continue
        name = pair_name(a, b)
        jobs.append(
            _Job(name, sample, epoch, "ab", pairwise_prompt(sample, record.text, other_text))
        )
        jobs.append(
            _Job(name, sample, epoch, "ba", pairwise_prompt(sample, other_text, record.text))
        )
    return jobs, skipped


def _prompt_json(prompt: Prompt) -> str:
    return json.dumps(
        [{"role": m.role, "content": m.content} for m in prompt.messages], ensure_ascii=False
    )


async def _ask(caller: ModelCaller, run_id: str, job: _Job, plan: JudgePlan) -> Judgement:
    read = _reader(job.pairwise)
    prompt = job.prompt
    replies: list[str] = []
    calls = 0
    usage = Usage()
    latency = 0.0
    error = ""
    status: JudgementStatus = "unscored"
    for _ in range(1 + plan.parse_retries):
        result = await caller.call(prompt, plan.params)
        if isinstance(result, CallFailure):
            calls += result.attempts
            failure = f"{result.error_type}: {result.error}"
            error = failure if not error else f"{failure} (after: {error})"
            status = "call_failed"
            break
        completion = result.completion
        calls += result.attempts
        usage = usage.plus(completion.usage)
        latency += completion.latency_s
        replies.append(completion.text)
        reading = read(completion.text)
        if reading.ok:
            status, error = "ok", ""
            break
        error = reading.error
        prompt = retry_prompt(prompt, completion.text, reading.error, pairwise=job.pairwise)
    else:
        error = f"no valid verdict in {len(replies)} replies; last: {error}"
    return Judgement(
        run_id=run_id,
        model=job.model,
        sample_id=job.sample.id,
        epoch=job.epoch,
        judge=plan.stored_as,
        ordering=job.ordering,
        status=status,
        reply=replies[-1] if replies else "",
        replies=tuple(replies),
        prompt=_prompt_json(job.prompt),
        rubric=job.prompt.variant,
        attempts=calls,
        error=error,
        usage=usage,
        latency_s=latency,
    )


async def judge_run(
    results_dir: Path,
    run_ref: str,
    plan: JudgePlan,
    *,
    provider: Provider | None = None,
    on_judged: OnJudged | None = None,
) -> JudgeOutcome:
    """Ask `plan.judge` for every verdict of the run that is not stored yet, storing each."""
    if plan.parse_retries < 0:
        raise ConfigError("parse retries must be 0 or more")
    own = provider is None
    judge_provider = provider or make_provider(plan.judge, plan.key)
    try:
        with RunStore.open(results_dir) as store:
            run_id = store.resolve(run_ref)
            info = store.run_info(run_id)
            samples = {s.id: s for s in store.samples(run_id)}
            records = store.records(run_id)
            if plan.pairwise:
                jobs, skipped = _pairwise_jobs(samples, records, info.models, plan)
            else:
                grades = store.scores(run_id) if plan.undecided else None
                jobs, skipped = _pointwise_jobs(samples, records, plan, grades)
            have = {
                (j.model, j.sample_id, j.epoch, j.ordering)
                for j in store.judgements(run_id, plan.stored_as)
                if j.status != "call_failed"
            }
            todo = [j for j in jobs if (j.model, j.sample.id, j.epoch, j.ordering) not in have]
            caller = ModelCaller(judge_provider, concurrency=plan.concurrency, policy=plan.retry)
            counts = {"ok": 0, "unscored": 0, "call_failed": 0}

            async def one(job: _Job) -> None:
                judgement = await _ask(caller, run_id, job, plan)
                store.add_judgements([judgement])
                counts[judgement.status] += 1
                if on_judged is not None:
                    on_judged(judgement)

            async with asyncio.TaskGroup() as group:
                for job in todo:
                    group.create_task(one(job))
            return JudgeOutcome(
                run_id=run_id,
                judge=plan.stored_as,
                stored=len(jobs) - len(todo),
                asked=len(todo),
                ok=counts["ok"],
                unscored=counts["unscored"],
                failed=counts["call_failed"],
                skipped=skipped,
                stats=caller.stats,
            )
    finally:
        if own:
            await judge_provider.aclose()


__all__ = ["REFERENCE", "RUBRIC_VERSION", "JudgeOutcome", "JudgePlan", "judge_run", "pair_name"]
