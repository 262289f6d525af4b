"""A set written down in a file (`proctor run --config evals.toml`, `proctor validate FILE`):
its name, models and tasks, each task with its own options; defaults at the top apply to every
task that does not set its own; `seeds` (and `prompts`) at either level make a run per seed (and
per prompt). Unknown keys are errors; every error names the file, the line and the field.

    name = "weekly"
    models = ["openai/gpt-4o-mini", "anthropic/claude-3-5-haiku-latest"]
    limit = 50

    [[tasks]]
    task = "arithmetic"
    seeds = [1, 2]

    [[tasks]]
    task = "gsm8k"
    prompt = "B"

A prompt may be a prompt file's path, relative to the set file (`prompt = ["concise.txt",
"steps.txt"]`: a matrix of two files in one run; `proctor.prompts.files`).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from proctor._util.untrusted import Refused, loads_toml_bounded, read_input_file
from proctor.errors import ConfigError, ProctorError
from proctor.runs.plan import Asking, Matrix, Paper, RunPlan
from proctor.runs.sets import SetTask

MAX_CONFIG_BYTES = 1024 * 1024


MATRIX_KEYS = ("prompt", "lang", "temperature")
"""The settings a list of makes a matrix: each value a variant of the task's one run."""
_Temperature = Annotated[float, Field(ge=0, le=2)]


class _Options(BaseModel):
    """What a task may set, and the top level as every task's default."""

    model_config = ConfigDict(extra="forbid", strict=True)

    dataset: str | None = None
    seed: int | None = None
    seeds: list[int] | None = Field(default=None, min_length=1)
    n: int | None = Field(default=None, ge=1)
    limit: int | None = Field(default=None, ge=1)
    prompt: list[str] | None = Field(default=None, min_length=1)
    prompts: list[str] | None = Field(default=None, min_length=1)
    lang: list[str] | None = Field(default=None, min_length=1)
    max_tokens: int | None = Field(default=None, ge=1)
    temperature: list[_Temperature] | None = Field(default=None, min_length=1)

    @field_validator(*MATRIX_KEYS, mode="before")
    @classmethod
    def _one_or_a_list(cls, value: Any) -> Any:
        return value if value is None or isinstance(value, list) else [value]

    @field_validator("dataset", "seed", "n", "limit", "max_tokens", mode="before")
    @classmethod
    def _not_a_list(cls, value: Any) -> Any:
        if isinstance(value, list):
            raise ValueError(
                "cannot be a list: only prompt, lang and temperature make a matrix "
                "(and seeds a run per seed)"
            )
        return value


class _TaskEntry(_Options):
    task: str = Field(min_length=1)


class _SetFile(_Options):
    name: str = ""
    models: list[str] = Field(min_length=1)
    tasks: list[_TaskEntry] = Field(min_length=1)
    samples: int | None = Field(default=None, ge=1)


@dataclass(frozen=True)
class SetFile:
    """A set file read and expanded: one SetTask per task × seed × prompt."""

    path: Path
    name: str
    models: tuple[str, ...]
    tasks: tuple[SetTask, ...]
    samples: int | None
    """Replies per item, when the file says (else the command's `--samples`)."""
    text: str = ""
    origins: tuple[int, ...] = ()
    """Per task, the index of the [[tasks]] table it comes from (for messages)."""


def read_set_file(path: Path, command: Asking | None = None) -> SetFile:
    """The set in `path`; ConfigError naming file, line and field when it is not one.
    `command` gives what a file does not set (timeout, reply cap)."""
    text = _text(path)
    try:
        data = loads_toml_bounded(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: bad TOML: {e}") from None
    except Refused as e:
        raise ConfigError(f"{path}: refused: {e}") from None
    try:
        doc = _SetFile.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = tuple(err["loc"])
        line = line_of(text, loc)
        where = f"{path}:{line}" if line else str(path)
        what = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        raise ConfigError(f"{where}: field '{_dotted(loc)}': {what}") from None
    for loc, level in [((), doc), *((("tasks", i), t) for i, t in enumerate(doc.tasks))]:
        _check_prompts(path, text, loc, level)
    base = command or Asking()
    expanded = [(i, t) for i, e in enumerate(doc.tasks) for t in _expand(e, doc, base, path.parent)]
    return SetFile(
        path, doc.name, tuple(doc.models), tuple(t for _, t in expanded), doc.samples, text,
        tuple(i for i, _ in expanded),
    )  # fmt: skip


def check_set_file(path: Path, results_dir: Path) -> tuple[SetFile, tuple[RunPlan, ...]]:
    """Everything `proctor run --config FILE` would check before calling anything: the file,
    each model string, each task by name with its paper loaded and its prompt resolved. Calls
    nothing and writes nothing; ConfigError naming file, line and field."""
    from proctor.providers.registry import parse_model
    from proctor.runs.sets import SetPlan, check_set, run_plans

    written = read_set_file(path)
    plans: list[RunPlan] = []
    loc: tuple[Any, ...] = ()
    try:
        for j, model in enumerate(written.models):
            loc = ("models", j)
            parse_model(model)
        for task, origin in zip(written.tasks, written.origins, strict=True):
            loc = ("tasks", origin, "task")
            plans.extend(run_plans(SetPlan((task,), written.models, results_dir)))
        loc = ("tasks",)
        check_set(SetPlan(written.tasks, written.models, results_dir, name=written.name))
    except ProctorError as e:
        line = line_of(written.text, loc)
        where = f"{written.path}:{line}" if line else str(written.path)
        raise ConfigError(f"{where}: field '{_dotted(loc)}': {e}") from None
    return written, tuple(plans)


def _text(path: Path) -> str:
    try:
        return read_input_file(path, max_bytes=MAX_CONFIG_BYTES).decode("utf-8-sig")
    except Refused as e:
        raise ConfigError(f"{path}: {e}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text (byte {e.start})") from None


def _check_prompts(path: Path, text: str, loc: tuple[Any, ...], level: _Options) -> None:
    """One kind of prompt list per level (a prompt file's own checks come with the task's
    plan: `proctor.tasks.prompting.read_task_prompt`)."""
    if level.prompts is not None and level.prompt is not None and len(level.prompt) > 1:
        where = f"{path}:{line_of(text, (*loc, 'prompt'))}"
        raise ConfigError(
            f"{where}: field '{_dotted((*loc, 'prompt'))}': prompt = [...] is a matrix in one "
            "run, prompts = [...] a run per prompt: use one of them"
        )


def _prompt_value(value: str, here: Path) -> str:
    """A prompt as a set file writes it: a path (holding '/' or '.', or naming a file beside
    the set file) is relative to the set file; anything else names a task's own variant."""
    if Path(value).expanduser().is_absolute():
        return value
    if "/" in value or "." in value or (here / value).is_file():
        return str(here / value)
    return value


def _expand(entry: _TaskEntry, top: _SetFile, base: Asking, here: Path) -> list[SetTask]:
    def pick(key: str) -> Any:
        own = getattr(entry, key)
        return own if own is not None else getattr(top, key)

    seeds: Sequence[int | None] = entry.seeds or (
        [entry.seed] if entry.seed is not None else top.seeds or [top.seed]
    )
    runs_of_prompts: Sequence[tuple[str, ...]] = [
        (p,) for p in entry.prompts or ()
    ] or _axis(entry.prompt, [(p,) for p in top.prompts or ()] or _axis(top.prompt, [()]))
    runs_of_prompts = [tuple(_prompt_value(p, here) for p in ps) for ps in runs_of_prompts]
    dataset = pick("dataset")
    langs, temperatures = tuple(pick("lang") or ()), tuple(pick("temperature") or ())
    asking = Asking(
        prompt=None, lang=langs[0] if langs else base.lang, max_tokens=pick("max_tokens"),
        temperature=float(temperatures[0]) if temperatures else base.temperature,
        timeout_s=base.timeout_s, max_reply_bytes=base.max_reply_bytes,
    )  # fmt: skip
    path = None if dataset is None else here / str(dataset)
    n, limit = pick("n"), pick("limit")
    return [
        SetTask(
            entry.task,
            Paper(path, seed, n, limit),
            replace(asking, prompt=prompts[0] if prompts else None),
            Matrix(prompts, langs, tuple(float(t) for t in temperatures)),
        )
        for seed in seeds
        for prompts in runs_of_prompts
    ]


def _axis(
    given: list[str] | None, otherwise: Sequence[tuple[str, ...]]
) -> Sequence[tuple[str, ...]]:
    """A level's `prompt` (one, or a list: a matrix in one run), else what is below it."""
    return [tuple(given)] if given is not None else otherwise


def _dotted(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\"-]+)\s*\]\]?")


def line_of(text: str, loc: tuple[Any, ...]) -> int | None:
    """The line (1-based) of the field `loc` names in a TOML text: the key's own line when it
    is written there, else the line of the table it belongs to; None when it cannot be found."""
    if not loc:
        return None
    section: tuple[str, int] | None = None
    counts: dict[str, int] = {}
    want_table = (str(loc[0]), int(loc[1])) if len(loc) > 1 and isinstance(loc[1], int) else None
    key = str(loc[2] if want_table and len(loc) > 2 else loc[0])
    table_line = None
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            name = header.group(1)
            counts[name] = counts.get(name, -1) + 1
            section = (name, counts[name])
            if section == want_table:
                table_line = number
            continue
        if section == want_table and re.match(rf"^\s*\"?{re.escape(key)}\"?\s*=", line):
            return number
    if table_line is not None:
        return table_line
    if want_table:  # an inline array of tables: the line that starts it
        return line_of(text, (loc[0],))
    return None
