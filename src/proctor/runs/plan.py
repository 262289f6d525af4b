"""A run's plan and its outcome: what `proctor run` (and `proctor.api.evaluate`) asks, built the
same way for both; the run it opens or resumes in the store (its fingerprint), and the checks a
plan must pass before any call (models, capabilities, batching).

    RunPlan ──► open_or_create_run (store) ──► `proctor.runs.ask.execute` ──► RunOutcome
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from proctor._util.untrusted import repair_text
from proctor._util.variants import split_variant, variant_model
from proctor.calling.cache_key import CachePolicy
from proctor.calling.caller import CallStats
from proctor.calling.rate_limit import RateLimits
from proctor.calling.retry import RetryPolicy
from proctor.errors import ConfigError
from proctor.executors import DEFAULT_MAX_FAILURES, ShardFailure
from proctor.prompts.files import PromptFile
from proctor.providers.base import Provider, supports_tools
from proctor.providers.keys import KeySource
from proctor.providers.registry import bare_model, with_calculator
from proctor.store import RunStore, new_run_id
from proctor.tasks.base import Task
from proctor.tasks.registry import get_task
from proctor.types import GenerationParams, RunInfo, Sample, Score

if TYPE_CHECKING:
    from proctor.calling.batching import BatchPolicy
    from proctor.telemetry.settings import TraceSettings

_T = TypeVar("_T")

OnResult = Callable[[str, Score], None]
"""Called after each stored answer with the model and its provisional grade (for progress)."""
OnPlan = Callable[[str, Mapping[str, tuple[int, int]]], None]
"""Called once a run is known: run id and, per model, (already stored, still to ask)."""


@dataclass(frozen=True)
class Calling:
    """How every model is called, the same for each run a command asks (one task, or each task
    of a set): what `proctor run` sets on the plan `build_plan` returns."""

    concurrency: int | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    epochs: int = 1
    """Samples per item (repeated sampling for pass@k, majority vote, stability)."""
    limits: RateLimits = field(default_factory=RateLimits)
    breaker_threshold: int = DEFAULT_MAX_FAILURES
    deadline_s: float | None = None
    """Wall-clock budget for the whole run; what is not asked by then stays missing (resumable)."""
    cache: CachePolicy = "deterministic"
    """When an answer stored in the results folder's response cache stands for a call
    (`proctor.calling.cache_key`); every answer asked is remembered unless "off"."""
    cache_share_keys: bool = False
    """Reuse answers paid with another API key too (by default each key's owner has its own)."""
    batch: BatchPolicy | None = None
    """Ask through the providers' batch APIs (half price, hours not seconds); None: live calls."""
    api_key_env: Mapping[str, str] = field(default_factory=dict)
    """`--api-key-env`: model string or name → the variable its key is read from (names only)."""
    also_calls: tuple[str, ...] = ()
    """Other models the same command calls (a judge): their hosts count in the key rule."""
    traces: TraceSettings | None = None
    """`--otel-endpoint`: where the run's spans go (`proctor.telemetry`); None: nowhere."""


@dataclass(frozen=True)
class RunPlan:
    task: Task
    samples: tuple[Sample, ...]
    dataset_hash: str
    generator_version: str
    models: tuple[str, ...]
    variant: str
    lang: str
    params: GenerationParams
    results_dir: Path
    seed: int | None = None
    source: str = ""
    calling: Calling = field(default_factory=Calling)
    """How every model is called (`Calling`): the command's settings, never the stored run's,
    except `epochs`, which a resume takes from the run it resumes."""
    prompt_files: Mapping[str, PromptFile] = field(default_factory=dict)
    """The run's prompt files by key (`MODEL#prompt=KEY`): stored with the run, so a resume
    asks with the text it started with."""


@dataclass(frozen=True)
class ModelReport:
    """How calling one model went in this session."""

    model: str
    stats: CallStats
    stopped: str | None
    lowest_concurrency: int
    shard_failures: tuple[ShardFailure, ...] = ()
    """Shards a worker failed (Ray): where, why, re-run or left missing."""

    @property
    def left_missing(self) -> int:
        return sum(f.unanswered for f in self.shard_failures if not f.rerun)


@dataclass(frozen=True)
class RunOutcome:
    run_id: str
    run_dir: Path
    resumed: bool
    asked: int
    models: tuple[ModelReport, ...] = ()
    deadline_hit: bool = False
    keys: Mapping[str, KeySource] = field(default_factory=dict)
    """Where each model's key came from (a judge's included): names, never values."""
    reused: Mapping[str, int] = field(default_factory=dict)
    """Per model, answers taken from the response cache in this session instead of asked."""
    warnings: tuple[str, ...] = ()
    """What the session must say once that changes nothing of the run (spans not sent)."""


@dataclass(frozen=True)
class Paper:
    """Which samples a run asks: a dataset file, or the task's own paper (`seed`, `n`); `limit`
    takes a balanced prefix of either."""

    dataset: Path | None = None
    seed: int | None = None
    n: int | None = None
    limit: int | None = None


@dataclass(frozen=True)
class Asking:
    """How each model is asked: the prompt variant (None: the task's default), its language and
    the generation settings (`max_tokens` None: the task's default for the variant)."""

    prompt: str | None = None
    lang: str = "en"
    max_tokens: int | None = None
    temperature: float = 0.0
    timeout_s: float = 120.0
    max_reply_bytes: int | None = None


def build_plan(
    task: Task, models: Sequence[str], paper: Paper, asking: Asking, results_dir: Path
) -> RunPlan:
    """The one builder of a run's plan, for `proctor run` and `proctor.api.evaluate`: the paper
    loaded (hashed), the prompt variant resolved, the generation settings with the task's
    defaults. Settings only the CLI offers (rate limits, the breaker, a deadline, the cache,
    batches) are set on the plan it returns (`dataclasses.replace`)."""
    from proctor.tasks.registry import default_max_tokens, load_for_run, resolve_variant

    data = load_for_run(task, dataset=paper.dataset, seed=paper.seed, n=paper.n, limit=paper.limit)
    variant = resolve_variant(task, asking.prompt)
    params = GenerationParams(
        temperature=asking.temperature,
        max_tokens=asking.max_tokens or default_max_tokens(task, variant),
        timeout_s=asking.timeout_s,
    )
    if asking.max_reply_bytes is not None:
        params = replace(params, max_reply_bytes=asking.max_reply_bytes)
    return RunPlan(
        task=task,
        samples=data.samples,
        dataset_hash=data.content_hash,
        generator_version=data.generator_version,
        models=tuple(models),
        variant=variant,
        lang=asking.lang,
        params=params,
        results_dir=results_dir,
        seed=paper.seed,
        source=data.source,
    )


@dataclass(frozen=True)
class Matrix:
    """What a matrix run varies besides the model: prompts, languages and temperatures as
    given (one value, or none, varies nothing: it is the run's own setting)."""

    prompts: tuple[str, ...] = ()
    langs: tuple[str, ...] = ()
    temperatures: tuple[float, ...] = ()

    def __bool__(self) -> bool:
        return any(len(axis) > 1 for axis in (self.prompts, self.langs, self.temperatures))

    def to_json(self) -> dict[str, list[str] | list[float]]:
        return {
            "prompts": list(self.prompts), "langs": list(self.langs),
            "temperatures": list(self.temperatures),
        }  # fmt: skip


def matrix_models(
    task: Task, models: Sequence[str], matrix: Matrix
) -> tuple[tuple[str, ...], str | None, str, dict[str, PromptFile]]:
    """A matrix: several prompts, languages or temperatures × models, each combination a
    variant (`MODEL#prompt=B,lang=zh,temperature=0.7`, `proctor._util.variants`) answered on
    the same items in one run and compared paired like models. Returns the models to ask, the
    run's own prompt variant and language (the first given) and its prompt files by key; a
    prompt file is always named in the model strings (`MODEL#prompt=concise.txt@1a2b3c4d`),
    even alone. Without a matrix, the models as given."""
    from proctor.prompts.arithmetic import check_lang
    from proctor.tasks.prompting import grading_variant, read_task_prompt

    chosen = [read_task_prompt(task, p) for p in matrix.prompts]
    files = {c.key: c for c in chosen if isinstance(c, PromptFile)}
    variants = [c.key if isinstance(c, PromptFile) else c for c in chosen]
    languages = [check_lang(la) for la in matrix.langs]
    temperatures = [_temperature(t) for t in matrix.temperatures]
    paths = [c.path for c in chosen if isinstance(c, PromptFile)]
    if len(set(paths)) != len(paths):
        raise ConfigError(f"--prompt names the same file twice: {', '.join(paths)}")
    for what, given in (("--prompt", variants), ("--lang", languages),
                        ("--temperature", [repr(t) for t in temperatures])):  # fmt: skip
        if len(set(given)) != len(given):
            raise ConfigError(f"{what} names the same value twice: {', '.join(given)}")
    first = chosen[0] if chosen else None
    first_prompt = grading_variant(task, first) if isinstance(first, PromptFile) else first
    first_lang = languages[0] if languages else "en"
    if not matrix and not files:
        return tuple(models), first_prompt, first_lang, files
    prompts: Sequence[str | None] = variants if len(variants) > 1 or files else [None]
    return (
        tuple(
            variant_model(m, p, la, t)
            for m in models
            for p in prompts
            for la in _varied(languages)
            for t in _varied(temperatures)
        ),
        first_prompt,
        first_lang,
        files,
    )


def _varied(axis: Sequence[_T]) -> Sequence[_T | None]:
    """An axis's values when it varies, else one "not varied"."""
    return list(axis) if len(axis) > 1 else [None]


def _temperature(t: float) -> float:
    if not 0.0 <= t <= 2.0:
        raise ConfigError(f"temperature {t:g} is out of range: use 0 to 2")
    return float(t)


def matrix_max_tokens(
    task: Task, prompts: Sequence[str], asked: int | None, files: bool = False
) -> int | None:
    """The reply length of a prompt matrix's run: the one asked, else the longest of its
    variants' defaults (an answer-only prompt's 32 tokens would cut a reasoning prompt's reply);
    with a prompt file, the longest of the task's defaults (a file may ask for reasoning)."""
    from proctor.tasks.prompting import longest_max_tokens
    from proctor.tasks.registry import default_max_tokens, resolve_variant

    if asked is not None:
        return asked
    if files:
        return longest_max_tokens(task)
    if len(prompts) < 2:
        return asked
    return max(default_max_tokens(task, resolve_variant(task, p)) for p in prompts)


def matrix_plan(
    task: Task,
    models: Sequence[str],
    matrix: Matrix,
    paper: Paper,
    asking: Asking,
    calling: Calling,
    results_dir: Path,
) -> RunPlan:
    """The plan of one task's run, with its matrix (what it varies besides the model) and the
    command's calling settings; `asking` holds the run's own prompt, language and temperature
    (each the first of its axis). A single prompt (`asking.prompt`) may be a prompt file."""
    if not matrix.prompts and asking.prompt is not None:
        matrix = replace(matrix, prompts=(asking.prompt,))
    asked, first_prompt, _, files = matrix_models(task, models, matrix)
    asking = replace(
        asking, prompt=first_prompt,
        max_tokens=matrix_max_tokens(task, matrix.prompts, asking.max_tokens, bool(files)),
    )  # fmt: skip
    plan = build_plan(task, asked, paper, asking, results_dir)
    from proctor.tasks.prompting import check_asks

    variants = (split_variant(m) for m in plan.models)
    check_asks(task, files, ((p or plan.variant, la or plan.lang) for _, p, la in variants),
               plan.samples)  # fmt: skip
    return replace(plan, calling=calling, prompt_files=files)


def fingerprint(plan: RunPlan) -> str:
    """Identity of a run: same task, paper, models, prompt and sampling → same fingerprint, so
    the same command finds an unfinished run and resumes it."""
    key = {
        "task": plan.task.name,
        "dataset_hash": plan.dataset_hash,
        "models": list(plan.models),
        "variant": plan.variant,
        "lang": plan.lang,
        "temperature": plan.params.temperature,
        "max_tokens": plan.params.max_tokens,
        "seed": plan.params.seed,
        "epochs": plan.calling.epochs,
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:32]


def _run_info(plan: RunPlan, run_id: str) -> RunInfo:
    return RunInfo(
        run_id=run_id,
        task=plan.task.name,
        models=plan.models,
        dataset_hash=plan.dataset_hash,
        dataset_size=len(plan.samples),
        generator_version=plan.generator_version,
        prompt_variant=plan.variant,
        lang=plan.lang,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        params=plan.params,
        seed=plan.seed,
    )


def plan_from_store(store: RunStore, run_id: str, command: RunPlan) -> RunPlan:
    """The plan of a stored run, so a resume asks exactly the paper, models, prompt and sampling
    it started with; how to call (concurrency, retries, limits, timeout, reply cap, deadline)
    comes from the command that resumes it."""
    info = store.run_info(run_id)
    config = store.run_config(run_id)
    epochs = config.get("epochs", 1)
    task = command.task if command.task.name == info.task else get_task(info.task)
    return replace(
        command,
        task=task,
        samples=tuple(store.samples(run_id)),
        dataset_hash=info.dataset_hash,
        generator_version=info.generator_version,
        models=info.models,
        variant=info.prompt_variant,
        lang=info.lang,
        params=replace(
            info.params,
            timeout_s=command.params.timeout_s,
            max_reply_bytes=command.params.max_reply_bytes,
        ),
        seed=info.seed,
        calling=replace(command.calling, epochs=epochs if isinstance(epochs, int) else 1),
        source=command.source or str(config.get("source") or ""),
        prompt_files=stored_prompt_files(config),
    )


def stored_prompt_files(
    config: Mapping[str, object], *, check: bool = True
) -> dict[str, PromptFile]:
    """A stored run's prompt files (its config's "prompt_files"); with `check`, refused
    (ConfigError, exit 2) when a file is still where the run read it but its text changed
    since: a resume asks with the text the run started with, and says so rather than mixing
    two prompts in one variant. A file that is gone is no obstacle (its text is stored)."""
    from proctor._util.untrusted import Refused, read_input_file
    from proctor.prompts.files import MAX_PROMPT_BYTES

    docs = config.get("prompt_files")
    files = (
        [PromptFile.from_json(d) for d in docs if isinstance(d, Mapping)]
        if isinstance(docs, list)
        else []
    )
    for f in files if check else ():
        if not Path(f.path).exists():
            continue
        try:
            now = hashlib.sha256(read_input_file(Path(f.path), max_bytes=MAX_PROMPT_BYTES))
            digest = now.hexdigest()
        except Refused:
            digest = "unreadable"
        if digest != f.sha256:
            raise ConfigError(
                f"prompt file {f.path} changed since the run started (sha256 {f.sha256[:12]} "
                f"then, {digest[:12]} now): the run asks with the text it started with; put "
                "that text back to resume it, or start a new run"
            )
    return {f.key: f for f in files}


def open_or_create_run(store: RunStore, plan: RunPlan, resume: str | None) -> tuple[str, bool]:
    if resume is not None:
        return store.resolve(resume), True
    fp = fingerprint(plan)
    found = store.find_resumable(fp)
    if found is not None:
        return found, True
    run_id = new_run_id(plan.task.name)
    config: dict[str, object] = {
        "task_version": plan.task.version,
        "source": plan.source,
        "concurrency": plan.calling.concurrency,
        "retry": asdict(plan.calling.retry),
        "params": asdict(plan.params),
        "epochs": plan.calling.epochs,
    }
    if plan.prompt_files:
        config["prompt_files"] = [f.to_json() for f in plan.prompt_files.values()]
    store.create_run(_run_info(plan, run_id), plan.samples, fp, config)
    return run_id, False


def check_batchable(providers: Mapping[str, Provider]) -> None:
    """Refuse --batch, before any call, for a model whose provider has no batch API."""
    from proctor.providers.batch import BatchProvider

    for model, provider in providers.items():
        if with_calculator(model) or not isinstance(provider, BatchProvider):
            raise ConfigError(
                f"model {model!r} cannot be asked in batches: --batch needs openai/, "
                "openai-compat/ (a server with the OpenAI Batch API) or anthropic/ models, "
                "without tools"
            )


def check_capabilities(providers: Mapping[str, Provider]) -> None:
    """Refuse, before the first call, a model that cannot do what the run asks of it."""
    for model, provider in providers.items():
        if with_calculator(model) and not supports_tools(provider):
            raise ConfigError(
                f"model {model!r}: {bare_model(model)!r} cannot be offered tools (no function "
                "calling); use an openai-compat/ or openai/ model for +calculator"
            )


def check_models(models: Sequence[str]) -> None:
    if not models:
        raise ConfigError("no model to evaluate")
    seen: set[str] = set()
    for m in models:
        if repair_text(m)[1]:  # argv bytes the locale could not decode: no store can hold them
            raise ConfigError(
                f"model string {repair_text(m)[0]!r} is not valid UTF-8 text; write it again"
            )
        if m in seen:
            raise ConfigError(f"model {m!r} is named twice")
        seen.add(m)
