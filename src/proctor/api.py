"""proctor from Python: evaluate a task on models, read a stored run back.

    import proctor

    run = proctor.evaluate("arithmetic", ["local"], limit=10)  # in a loop: await evaluate_async
    run.accuracy("local"), run.folder          # statistics; results.json, report.html...
    again = proctor.load_run(run.id)            # the stored records and grades, any time later

A run made here is a run of the run store like one `proctor run` makes: every raw reply is
committed before it is graded, the same call resumes a killed run (or `resume=RUN`), `proctor
score RUN` re-grades it, `proctor report RUN` and `proctor gate RUN` read it. Errors are the
CLI's: a `proctor.errors.ConfigError` (bad option, model string, key) before anything is
written; a failed call is a record with outcome `call_failed`, never an exception and never a
wrong answer."""

from __future__ import annotations

import asyncio
import functools
import warnings
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ParamSpec, TypeVar

from proctor._util.defaults import DEFAULT_RESULTS
from proctor._util.variants import split_variant
from proctor.calling.retry import RetryPolicy
from proctor.errors import ConfigError
from proctor.providers.base import Provider
from proctor.runs.ask import execute
from proctor.runs.plan import Asking, Calling, Matrix, Paper, matrix_plan
from proctor.runs.rereport import load_reported
from proctor.runs.stored import has_store
from proctor.stats.completeness import Completeness
from proctor.stats.metrics import ModelMetrics, RunMetrics
from proctor.tasks.base import Task
from proctor.tasks.registry import (
    get_task,
    is_file_reference,
    register_task,
)
from proctor.telemetry.settings import trace_settings
from proctor.types import GradedItem, Record, RunInfo, Score

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Run:
    """A stored run: what it was, every record with its grade, and its statistics."""

    id: str
    folder: Path
    """`<results>/runs/<id>`: results.json, samples.csv, summary.md, report.html."""
    results_dir: Path
    info: RunInfo
    task: Task
    items: tuple[GradedItem, ...]
    """One per stored record (failed calls included, as `call_failed`), in store order."""
    statistics: RunMetrics
    """Per model: accuracy with its 95 % Wilson interval, by category and difficulty, outcome
    counts, format compliance, tokens."""
    state: Completeness
    """What is missing or failed, per model."""

    @property
    def models(self) -> tuple[str, ...]:
        return self.info.models

    @property
    def records(self) -> tuple[Record, ...]:
        return tuple(i.record for i in self.items)

    @property
    def grades(self) -> tuple[Score, ...]:
        return tuple(i.score for i in self.items)

    @property
    def complete(self) -> bool:
        """Every answer asked and every call answered (what exit code 0 of `proctor run` says)."""
        return not (self.state.incomplete or self.state.calls_failed)

    def model(self, name: str | None = None) -> ModelMetrics:
        """One model's statistics (the only model's when the run has one)."""
        if name is None:
            if len(self.models) != 1:
                raise ConfigError(f"run {self.id} has {len(self.models)} models: name one")
            name = self.models[0]
        try:
            return self.statistics.model(name)
        except KeyError:
            raise ConfigError(f"model {name!r} is not in run {self.id}") from None

    def accuracy(self, model: str | None = None) -> float | None:
        """Share of scored replies graded correct; None when none was scored."""
        return self.model(model).accuracy


async def evaluate_async(
    task: Task | str,
    models: Sequence[str | Provider] | str = ("local",),
    *,
    results_dir: str | Path = DEFAULT_RESULTS,
    dataset: str | Path | None = None,
    limit: int | None = None,
    seed: int | None = None,
    n: int | None = None,
    prompt: str | None = None,
    lang: str = "en",
    max_tokens: int | None = None,
    temperature: float = 0.0,
    timeout_s: float = 120.0,
    samples: int = 1,
    concurrency: int | None = None,
    max_attempts: int = 4,
    api_key_env: Mapping[str, str] | None = None,
    resume: str | None = None,
    otel_endpoint: str | None = None,
    otel_content: bool = False,
) -> Run:
    """Ask `models` the task's samples (or `dataset`'s), store every reply, grade, write the
    report files, and return the run. The same call again finds an unfinished run and asks only
    what is missing. `task`: a Task (`proctor.define_task`), a built-in task's name, PATH.py:NAME
    or an installed plugin's task; `models`: model strings, or Provider objects of your own (the
    run names each by its `name`); `api_key_env`: model → the name of the variable its key is in
    (the key rule of `proctor list models` holds, exactly as in the CLI); `prompt`: one of the
    task's variants or a prompt file's path (`proctor.prompts.files`); `otel_endpoint`: an
    OTLP/HTTP collector the run's spans go to (spans not sent are a RuntimeWarning, never an
    error). Its keyword arguments are the options of `proctor run` a script needs, one each,
    hence their number."""
    chosen = _task(task)
    names, given = _models((models,) if isinstance(models, str) else models)
    if samples < 1:
        raise ConfigError("samples must be at least 1")
    plan = matrix_plan(
        chosen,
        names,
        Matrix(),
        Paper(Path(dataset) if dataset else None, seed, n, limit),
        Asking(prompt, lang, max_tokens, temperature, timeout_s),
        Calling(
            concurrency=concurrency,
            retry=RetryPolicy(max_attempts=max_attempts),
            epochs=samples,
            api_key_env=dict(api_key_env or {}),
            traces=trace_settings(otel_endpoint, otel_content),
        ),
        Path(results_dir),
    )
    # a prompt file names its variant in the model string: each asks the provider given
    asked = {m: given[split_variant(m)[0]] for m in plan.models if split_variant(m)[0] in given}
    outcome = await execute(plan, resume=resume, providers=asked)
    for said in outcome.warnings:
        warnings.warn(said, RuntimeWarning, stacklevel=2)
    return _graded(Path(results_dir), outcome.run_id, chosen, save=True)


def _blocking(run: Callable[P, Coroutine[object, object, R]]) -> Callable[P, R]:
    """`run` for code that has no event loop of its own (one copy of the path, two doors)."""

    @functools.wraps(run)
    def blocking(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(run(*args, **kwargs))
        raise ConfigError(
            "proctor.evaluate was called inside a running event loop (a notebook, an async "
            "app): use `await proctor.evaluate_async(...)` there"
        )

    return blocking


evaluate = _blocking(evaluate_async)
"""`evaluate_async` for code without an event loop (scripts, tests): the same arguments."""


def load_run(
    run: str | Path, *, results_dir: str | Path | None = None, task: Task | None = None
) -> Run:
    """A stored run (an id, a unique prefix of one, or its folder) with its records, grades and
    statistics; calls no model and changes nothing. Grades are the stored ones, as `proctor
    report` shows them (`proctor score RUN` grades again with the current rules).
    `task`: the Task of a run made from Python whose task is not findable by name."""
    folder = Path(run)
    where = Path(results_dir) if results_dir is not None else DEFAULT_RESULTS
    if results_dir is None and folder.is_dir() and folder.parent.name == "runs":
        where = folder.parent.parent
    if not has_store(where):
        raise ConfigError(f"no run store in {where} (give results_dir=)")
    return _graded(where, str(run), task, save=False)


def _graded(results_dir: Path, ref: str, task: Task | None, *, save: bool) -> Run:
    """The run with its stored grades and statistics (`proctor.runs.rereport.load_reported`);
    with `save`, its files written."""
    chosen, reported = load_reported(results_dir, ref, task, save=save)
    stats = reported.stats
    return Run(
        id=reported.run_id,
        folder=reported.run_dir,
        results_dir=results_dir,
        info=stats.info,
        task=chosen,
        items=tuple(stats.items),
        statistics=stats.metrics,
        state=stats.completeness,
    )


def _models(models: Sequence[str | Provider]) -> tuple[list[str], dict[str, Provider]]:
    """Model strings, and the user's own Provider objects by name (held to the provider
    contract as a plugin's are: what else they raise is a failed call, never a traceback)."""
    from proctor.providers.plugin import PluginProvider

    names: list[str] = []
    given: dict[str, Provider] = {}
    for m in models:
        if isinstance(m, str):
            names.append(m)
            continue
        name = str(getattr(m, "name", ""))
        if not name.strip():
            raise ConfigError(f"a provider object ({type(m).__name__}) needs a name")
        names.append(name)
        given[name] = PluginProvider(f"provider {name!r}", m)
    return names, given


def _task(task: Task | str) -> Task:
    if isinstance(task, str):
        return get_task(task)
    if not isinstance(task, Task):
        raise ConfigError(
            f"task must be a proctor Task or a task's name, not {type(task).__name__}"
        )
    if not is_file_reference(task.name):
        register_task(task)  # so this process finds it again by the name its runs store
    return task
