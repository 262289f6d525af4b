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
    check_template(path, user, user_line)
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
    front, nodes = _front_matter(path, lines[1:end])
    for key, (key_node, _) in nodes.items():
        line = _FRONT_LINE + key_node.start_mark.line
        if key not in FRONT_KEYS:
            raise ConfigError(
                f"{path}:{line}: unknown front matter key {key!r}: use {' or '.join(FRONT_KEYS)}"
            )
        if not isinstance(front.get(key), str):
            raise ConfigError(f"{path}:{line}: {key} must be text")
    system = nodes["system"][1] if "system" in nodes else None
    if system is not None and front["system"]:
        # A template error in the system part is placed in its text as written (a block
        # scalar's lines start below its key; a folded one is no longer its lines).
        written = "".join(lines[1:end])[system.start_mark.index : system.end_mark.index]
        check_template(path, front["system"], _FRONT_LINE + system.start_mark.line, written)
    return front, "".join(lines[end + 1 :]), end + 2


_FRONT_LINE = 2
"""The file's line of the front matter's first line (the one after the opening '---')."""


def _front_matter(path: Path, lines: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The front matter's values, and each key's (key node, value node) by the key as
    written: YAML's marks say where each is. ConfigError naming the line of a YAML error."""
    yaml = importlib.import_module("yaml")  # a dependency of proctor; untyped
    loader = yaml.SafeLoader("".join(lines))
    try:
        node = loader.get_single_node()
        front = loader.construct_document(node) if node is not None else {}
    except yaml.YAMLError as e:
        line = _FRONT_LINE + _error_line(e, lines)
        raise ConfigError(f"{path}:{line}: bad front matter: {_yaml_problem(e)}") from None
    finally:
        loader.dispose()
    if node is None:
        return {}, {}
    if not isinstance(front, dict) or not isinstance(node, yaml.MappingNode):
        raise ConfigError(f"{path}:{_FRONT_LINE}: the front matter must be 'key: value' lines")
    return front, {_key_name(k): (k, v) for k, v in node.value}


def _key_name(node: Any) -> str:
    """A front matter key as written (a key that is not one word names no key)."""
    return node.value if isinstance(node.value, str) else "?"


def _error_line(error: Exception, lines: list[str]) -> int:
    """The front matter's line (0-based) a YAML error is about. At the end of the text (an
    unclosed quote or bracket on the last line) YAML marks the line after it, the closing
    '---': the line where what is unclosed starts (the error's context), else the last written
    line, is the one to name."""
    mark = getattr(error, "problem_mark", None)
    line = 0 if mark is None else int(mark.line)
    if line < len(lines) and lines[line].strip():
        return line
    context = getattr(error, "context_mark", None)
    if context is not None and context.line < line:
        line = int(context.line)
    while line > 0 and (line >= len(lines) or not lines[line].strip()):
        line -= 1
    return line


def _yaml_problem(error: Exception) -> str:
    problem, context = getattr(error, "problem", None), getattr(error, "context", None)
    if not problem:
        return _first_line(error)
    return f"{problem} ({context})" if context else str(problem)


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def check_template(path: Path, source: str, first_line: int, written: str | None = None) -> None:
    """Refuse a template with a syntax error or a name not in `NAMES`, naming the line.
    `written` is the template as the file writes it from `first_line` on, when that is not
    `source` itself (a YAML value: its block indicator, indentation, folded lines)."""
    from jinja2 import TemplateSyntaxError, meta

    env = _environment()
    shown = source if written is None else written
    try:
        parsed = env.parse(source)
    except TemplateSyntaxError as e:
        lineno = e.lineno or 1
        if written is not None:
            try:  # the same error in the text as written says its line there
                env.parse(written)
                lineno = 1
            except TemplateSyntaxError as there:
                lineno = there.lineno or 1
        line = first_line + lineno - 1
        raise ConfigError(f"{path}:{line}: template error: {e.message}") from None
    unknown = sorted(meta.find_undeclared_variables(parsed) - set(NAMES))
    if unknown:
        name = unknown[0]  # its line: the first tag that names it (the text may say it too)
        found = re.search(rf"(?:\{{\{{|\{{%)[^}}]*?\b{re.escape(name)}\b", shown)
        offset = shown[: found.start()].count("\n") if found else 0
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
