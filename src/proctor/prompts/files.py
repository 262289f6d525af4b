"""Prompt files: the user's own wording of a task's question, a jinja2 template
(`proctor run TASK --prompt concise.txt`; docs/sets.md, "Prompt files").

    ---
    system: You are a careful calculator.
    grade_as: A
    ---
    {{ question }}
    Reply with the number only.

The text after the optional front matter (YAML between two `---` lines, keys `system` and
`grade_as` only) is the user message. Names a template may use are `NAMES`, the same for every
task; the item's answer, and its metadata (which holds solutions), are never among them.

A file is read once, checked whole (UTF-8, not empty, at most `MAX_PROMPT_BYTES`, front matter,
template syntax, names) and kept as text with its sha256: the run stores it, so a resume asks
with the text it started with. Rendering is sandboxed (`ImmutableSandboxedEnvironment`) and
strict: a name that is not there is an error, never an empty string.
"""

from __future__ import annotations

import hashlib
import importlib
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from proctor._util.untrusted import Refused, read_input_file
from proctor.errors import ConfigError
from proctor.types import Message

MAX_PROMPT_BYTES = 64 * 1024
"""Largest prompt file read: a long few-shot prompt is a few kilobytes."""

NAMES: Mapping[str, str] = {
    "question": "the item's question, as its dataset holds it",
    "task_prompt": "the task's own user message for the item (its grading variant's wording)",
    "id": "the item's id",
    "category": "the item's category (may be empty)",
    "difficulty": "the item's difficulty (may be empty)",
    "answer_type": "integer, decimal, fraction, comparison or text",
    "decimals": "the decimal places a decimal answer must have (empty when none)",
    "lang": "the run's language (en or zh)",
}
"""What a template may name, with what each holds (the docs list the same)."""

FRONT_KEYS = ("system", "grade_as")
_FENCE = "---"
_UNSAFE_NAME = re.compile(r"[,#=\s]")


@dataclass(frozen=True)
class PromptFile:
    """A prompt file as read: where it was, its text and sha256, and its parts. Picklable (a
    Ray worker renders it); `key` names its variant in model strings (`MODEL#prompt=KEY`)."""

    path: str
    sha256: str
    text: str
    system: str
    user: str
    user_line: int
    """The file's line the user template starts on (for messages)."""
    grade_as: str | None
    """The task variant whose extractor grades its replies (None: the task's default)."""

    @property
    def name(self) -> str:
        return Path(self.path).name

    @property
    def key(self) -> str:
        return f"{self.name}@{self.sha256[:8]}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> PromptFile:
        grade_as = doc.get("grade_as")
        return cls(
            path=str(doc["path"]), sha256=str(doc["sha256"]), text=str(doc["text"]),
            system=str(doc["system"]), user=str(doc["user"]), user_line=int(doc["user_line"]),
            grade_as=None if grade_as is None else str(grade_as),
        )  # fmt: skip


def read_prompt_file(path: Path) -> PromptFile:
    """The prompt file at `path`, checked whole; ConfigError naming the file (and the line)
    when it cannot be one. Nothing is asked before every file of a run has been read."""
    if _UNSAFE_NAME.search(path.name):
        raise ConfigError(
            f"prompt file {path}: its name may not hold a comma, '#', '=' or a space (it names "
            "a variant in model strings); rename it"
        )
    try:
        data = read_input_file(path, max_bytes=MAX_PROMPT_BYTES)
    except Refused as e:
        raise ConfigError(f"prompt file {path}: {e}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}: not UTF-8 text (byte {e.start})") from None
    if not text.strip():
        raise ConfigError(f"prompt file {path} is empty: write the question's template")
    front, user, user_line = _split(path, text)
    system = str(front.get("system") or "")
    grade_as = front.get("grade_as")
    if not user.strip():
        raise ConfigError(f"{path}:{user_line}: no user message after the front matter")
    for part, first_line in ((system, _line_of_key(text, "system")), (user, user_line)):
        if part:
            check_template(path, part, first_line)
    return PromptFile(
        path=str(path.resolve()), sha256=hashlib.sha256(data).hexdigest(), text=text,
        system=system, user=user, user_line=user_line,
        grade_as=None if grade_as is None else str(grade_as),
    )  # fmt: skip


def _split(path: Path, text: str) -> tuple[dict[str, Any], str, int]:
    """(front matter, user template, its first line)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != _FENCE:
        return {}, text, 1
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == _FENCE), None)
    if end is None:
        raise ConfigError(f"{path}:1: the front matter's '---' is never closed by another '---'")
    yaml = importlib.import_module("yaml")  # a dependency of proctor; untyped
    try:
        front = yaml.safe_load("".join(lines[1:end])) or {}
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = 2 + (mark.line if mark is not None else 0)
        raise ConfigError(f"{path}:{line}: bad front matter: {_first_line(e)}") from None
    if not isinstance(front, dict):
        raise ConfigError(f"{path}:2: the front matter must be 'key: value' lines")
    for key, value in front.items():
        line = _line_of_key(text, str(key))
        if key not in FRONT_KEYS:
            raise ConfigError(
                f"{path}:{line}: unknown front matter key {key!r}: use {' or '.join(FRONT_KEYS)}"
            )
        if not isinstance(value, str):
            raise ConfigError(f"{path}:{line}: {key} must be text")
    return front, "".join(lines[end + 1 :]), end + 2


def _line_of_key(text: str, key: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(f"{key}:"):
            return number
    return 1


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def check_template(path: Path, source: str, first_line: int) -> None:
    """Refuse a template with a syntax error or a name not in `NAMES`, naming the line."""
    from jinja2 import TemplateSyntaxError, meta

    env = _environment()
    try:
        parsed = env.parse(source)
    except TemplateSyntaxError as e:
        line = first_line + (e.lineno or 1) - 1
        raise ConfigError(f"{path}:{line}: template error: {e.message}") from None
    unknown = sorted(meta.find_undeclared_variables(parsed) - set(NAMES))
    if unknown:
        name = unknown[0]  # its line: the first tag that names it (the text may say it too)
        found = re.search(rf"(?:\{{\{{|\{{%)[^}}]*?\b{re.escape(name)}\b", source)
        offset = source[: found.start()].count("\n") if found else 0
        raise ConfigError(
            f"{path}:{first_line + offset}: unknown name {name!r} in the template: a prompt "
            f"file may name {', '.join(NAMES)} (never the answer)"
        )


@lru_cache(maxsize=1)
def _environment() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    return ImmutableSandboxedEnvironment(
        undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False
    )


@lru_cache(maxsize=64)
def _compiled(source: str) -> Any:
    return _environment().from_string(source)


def render_messages(prompt: PromptFile, names: Mapping[str, str]) -> tuple[Message, ...]:
    """The messages a prompt file asks one item with: its system part (when it has one) and
    its user message, each rendered with `names`; ConfigError naming the file when rendering
    fails (a template can still fail on one item's values, e.g. a filter on an empty field)."""
    from jinja2 import TemplateError

    out: list[Message] = []
    try:
        if prompt.system:
            out.append(Message("system", _compiled(prompt.system).render(**names)))
        out.append(Message("user", _compiled(prompt.user).render(**names)))
    except TemplateError as e:
        raise ConfigError(f"prompt file {prompt.path}: cannot render: {e}") from None
    except (ArithmeticError, LookupError, TypeError, ValueError) as e:  # `{{ 1 / 0 }}` …
        said = f"{type(e).__name__}: {e}"
        raise ConfigError(f"prompt file {prompt.path}: cannot render: {said}") from None
    return tuple(out)
