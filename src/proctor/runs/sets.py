"""Eval sets: several tasks asked of the same models under one set id, each task a run of its
own (issue 29). A set is a plan over runs, asked here one task after the other through the same
`proctor.runs.ask.execute` a single run uses; the store remembers the set (`proctor.store.sets`)
so that the same command, or `--resume SET`, finishes it and `--retry-errors SET` re-asks only
the failed calls of its runs.

    SetPlan ──► open_or_create_set (store) ──► execute each task's RunPlan ──► SetOutcome
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proctor.errors import ConfigError
from proctor.runs.plan import (
    Asking,
    Calling,
    Matrix,
    OnPlan,
    OnResult,
    Paper,
    RunOutcome,
    RunPlan,
    check_models,
    fingerprint,
    matrix_plan,
)
from proctor.store import RunStore
from proctor.store import sets as sets_table
from proctor.tasks.base import Task
from proctor.tasks.registry import get_task

if TYPE_CHECKING:
    from proctor.executors.base import Executor

OnTask = Callable[[str, int, int, str], None]
"""Called before each task of a set is asked: set id, position (0-based), task count, task."""


@dataclass(frozen=True)
class SetTask:
    """One task of a set with its own paper and prompt settings, and what its run varies
    besides the model (`matrix`: each combination a variant of the one run)."""

    task: str
    paper: Paper = field(default_factory=Paper)
    asking: Asking = field(default_factory=Asking)
    matrix: Matrix = field(default_factory=Matrix)

    def to_json(self) -> dict[str, Any]:
        p, a = self.paper, self.asking
        doc: dict[str, Any] = {
            "task": self.task,
            "dataset": None if p.dataset is None else str(p.dataset),
            "seed": p.seed, "n": p.n, "limit": p.limit,
            "prompt": a.prompt, "lang": a.lang, "max_tokens": a.max_tokens,
            "temperature": a.temperature,
        }  # fmt: skip
        if self.matrix:
            doc["matrix"] = self.matrix.to_json()
        return doc

    @classmethod
    def from_json(cls, doc: Mapping[str, Any], command: Asking) -> SetTask:
        """The task as the set stored it; timeout and reply cap come from `command`."""
        dataset = doc.get("dataset")
        m = doc.get("matrix") or {}
        matrix = Matrix(
            tuple(str(x) for x in m.get("prompts", ())),
            tuple(str(x) for x in m.get("langs", ())),
            tuple(float(x) for x in m.get("temperatures", ())),
        )
        return cls(
            task=str(doc["task"]),
            paper=Paper(
                dataset=None if dataset is None else Path(str(dataset)),
                seed=doc.get("seed"), n=doc.get("n"), limit=doc.get("limit"),
            ),
            asking=replace(
                command,
                prompt=doc.get("prompt"), lang=str(doc.get("lang") or "en"),
                max_tokens=doc.get("max_tokens"),
                temperature=float(doc.get("temperature") or 0.0),
            ),
            matrix=matrix,
        )  # fmt: skip


@dataclass(frozen=True)
class SetPlan:
    """What a set asks: its tasks, the models each is asked of, how to call them."""

    tasks: tuple[SetTask, ...]
    models: tuple[str, ...]
    results_dir: Path
    calling: Calling = field(default_factory=Calling)
    name: str = ""
    task_of: Callable[[str], Task] = get_task
    """Builds a task by name (the CLI's adds the sandbox limits it was given)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "models": list(self.models),
            "epochs": self.calling.epochs,
            "tasks": [t.to_json() for t in self.tasks],
        }


@dataclass(frozen=True)
class SetOutcome:
    set_id: str
    name: str
    resumed: bool
    runs: tuple[RunOutcome, ...]
    tasks: tuple[str, ...]


def check_set(plan: SetPlan) -> None:
    """Refuse, before anything is written, a set that cannot be asked."""
    if not plan.tasks:
        raise ConfigError("a set needs at least one task")
    check_models(plan.models)
    seen: set[str] = set()
    for t in plan.tasks:
        key = json.dumps(t.to_json(), sort_keys=True)
        if key in seen:
            raise ConfigError(f"task {t.task!r} is named twice with the same options")
        seen.add(key)


def run_plans(plan: SetPlan) -> tuple[RunPlan, ...]:
    """Each task's run plan, built as a single run's is (`matrix_plan`: `build_plan` with the
    task's matrix, then the command's calling settings)."""
    return tuple(
        matrix_plan(
            plan.task_of(t.task), plan.models, t.matrix, t.paper, t.asking, plan.calling,
            plan.results_dir,
        )
        for t in plan.tasks
    )


def anchored(plan: SetPlan) -> SetPlan:
    """The set with each prompt file and dataset it names by its absolute path, as the store
    keeps it: `--resume SET` from another folder finds the files a relative path named where
    the set began. A task's own prompt variant stays its name; a path that names nothing is
    left as typed (reading it refuses it in words)."""
    from proctor.tasks.prompting import is_variant

    def where(path: Path) -> Path:
        found = path.expanduser()
        return found.resolve() if found.exists() else path

    def one(t: SetTask) -> SetTask:
        task = plan.task_of(t.task)

        def prompt(value: str) -> str:
            return value if is_variant(task, value) else str(where(Path(value)))

        dataset = t.paper.dataset
        return replace(
            _with_prompts(t, prompt),
            paper=replace(t.paper, dataset=None if dataset is None else where(dataset)),
        )

    return replace(plan, tasks=tuple(one(t) for t in plan.tasks))


def set_fingerprint(plans: Sequence[RunPlan]) -> str:
    """Same tasks, papers, models and prompts → same set: the same command finds it."""
    key = json.dumps([fingerprint(p) for p in plans])
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def plan_of_stored_set(store: RunStore, set_id: str, command: SetPlan) -> SetPlan:
    """The plan a stored set was started with; how to call comes from the resuming command."""
    stored = sets_table.read_set(store, set_id)
    doc = stored.plan
    asking = command.tasks[0].asking if command.tasks else Asking()
    epochs = doc.get("epochs", 1)
    runs = {m.position: m.run_id for m in stored.members if m.run_id}
    tasks = (SetTask.from_json(t, asking) for t in doc["tasks"])
    return replace(
        command,
        name=stored.name,
        models=tuple(str(m) for m in doc["models"]),
        tasks=tuple(_found_prompts(store, t, runs.get(i)) for i, t in enumerate(tasks)),
        calling=replace(command.calling, epochs=epochs if isinstance(epochs, int) else 1),
    )


def _found_prompts(store: RunStore, task: SetTask, run_id: str | None) -> SetTask:
    """A set stored before `anchored` holds its prompt paths as typed: a relative one that names
    nothing here is the file the task's run read (the run keeps its absolute path), so the set
    resumes from any folder. A path that exists here, or that no file of the run ends with, is
    left as it is."""
    from proctor.runs.plan import stored_prompt_files

    if run_id is None:
        return task
    files = stored_prompt_files(store.run_config(run_id), check=False)
    read = [Path(f.path) for f in files.values()]

    def found(value: str) -> str:
        parts = Path(value).parts
        if Path(value).is_absolute() or Path(value).exists() or not parts:
            return value
        hits = [str(f) for f in read if f.parts[-len(parts) :] == parts]
        return hits[0] if len(hits) == 1 else value

    return _with_prompts(task, found)


def _with_prompts(task: SetTask, how: Callable[[str], str]) -> SetTask:
    """`task` with each prompt it names (its own and its matrix's) rewritten by `how`."""
    first = task.asking.prompt
    return replace(
        task,
        asking=replace(task.asking, prompt=None if first is None else how(first)),
        matrix=replace(task.matrix, prompts=tuple(how(p) for p in task.matrix.prompts)),
    )


def find_set(results_dir: Path, ref: str) -> str | None:
    """The set `ref` names in the results folder, or None (it may name a run)."""
    if not (results_dir / "proctor.db").exists():
        return None
    with RunStore.open(results_dir) as store:
        return sets_table.resolve_set(store, ref)


def set_runs(store: RunStore, ref: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The set `ref` names and its (task, run id) pairs, in the set's order, of the tasks that
    have a run; LookupError when `ref` names no set."""
    set_id = sets_table.resolve_set(store, ref)
    if set_id is None:
        raise LookupError(f"no set '{ref}' in {store.db_path}")
    members = sets_table.read_set(store, set_id).members
    return set_id, tuple((m.task, m.run_id) for m in members if m.run_id)


async def execute_set(
    plan: SetPlan,
    *,
    resume: str | None = None,
    retry_errors: bool = False,
    executor: Executor | None = None,
    on_task: OnTask | None = None,
    on_plan: OnPlan | None = None,
    on_result: OnResult | None = None,
) -> SetOutcome:
    """Ask every task of the set that is not finished, one after the other; a task whose run
    exists is resumed (with `retry_errors`, its failed calls asked again too)."""
    from proctor.runs.ask import execute

    if resume is not None:
        with RunStore.open(plan.results_dir) as store:
            set_id = _require_set(store, resume)
            plan = plan_of_stored_set(store, set_id, plan)
    else:
        plan = anchored(plan)
    check_set(plan)
    plans = run_plans(plan)
    await _check_askable(plans[0], executor)  # before anything is written
    with RunStore.open(plan.results_dir) as store:
        if resume is None:
            set_id, resumed = _open_or_create(store, plan, plans)
        else:
            resumed = True
        members = {m.position: m.run_id for m in sets_table.read_set(store, set_id).members}
    outcomes: list[RunOutcome] = []
    for position, run_plan in enumerate(plans):
        run_id = members.get(position) or None
        if on_task is not None:
            on_task(set_id, position, len(plans), run_plan.task.name)
        outcomes.append(
            await execute(
                run_plan,
                resume=run_id,
                retry_errors=retry_errors and run_id is not None,
                on_plan=_noting(plan.results_dir, set_id, position, run_id, on_plan),
                on_result=on_result,
                executor=executor,
            )
        )
    with RunStore.open(plan.results_dir) as store:
        if all(store.run_status(o.run_id) == "complete" for o in outcomes):
            sets_table.set_set_status(store, set_id, "complete")
        name = sets_table.read_set(store, set_id).name
    return SetOutcome(
        set_id, name, resumed, tuple(outcomes), tuple(p.task.name for p in plans)
    )


async def _check_askable(plan: RunPlan, executor: Executor | None) -> None:
    """Build (and close) each model's provider, as a single run does before its store is
    opened: a bad model string, a missing key or a model that cannot do the run is refused
    before the set is written."""
    from proctor.providers.registry import make_provider
    from proctor.runs.ask import run_keys
    from proctor.runs.plan import check_batchable, check_capabilities

    here = executor is None or executor.asks_here
    keys = run_keys(plan, {}, check_set=here)
    if not here:
        return
    built = {}
    try:
        for m in plan.models:
            built[m] = make_provider(m, keys[m])
        check_capabilities(built)
        if plan.calling.batch is not None:
            check_batchable(built)
    finally:
        for provider in built.values():
            await provider.aclose()


def _require_set(store: RunStore, ref: str) -> str:
    found = sets_table.resolve_set(store, ref)
    if found is None:
        raise ConfigError(f"no set '{ref}' in {store.db_path}")
    return found


def _open_or_create(store: RunStore, plan: SetPlan, plans: Sequence[RunPlan]) -> tuple[str, bool]:
    fp = set_fingerprint(plans)
    found = sets_table.find_resumable_set(store, fp)
    if found is not None:
        return found, True
    tasks = [p.task.name for p in plans]
    return sets_table.create_set(store, plan.name, fp, plan.to_json(), tasks), False


def _noting(
    results_dir: Path, set_id: str, position: int, known: str | None, then: OnPlan | None
) -> OnPlan:
    """on_plan that gives the set's task its run as soon as the run exists."""

    def note(run_id: str, counts: Mapping[str, tuple[int, int]]) -> None:
        if run_id != known:
            with RunStore.open(results_dir) as store:
                sets_table.set_member_run(store, set_id, position, run_id)
        if then is not None:
            then(run_id, counts)

    return note
