"""A release policy file (`proctor gate --policy release.toml`), read and checked: every error
names the file, the line and the field (exit 2), before any run is read.

    # release.toml
    [policy]
    name = "v2 release"            # optional
    margin = "1pp"                 # optional: the default margin against --baseline

    [tasks.arithmetic]
    tier = "critical"              # critical | supporting | advisory (default: supporting)
    required = true                # missing → NO-GO (default: true for critical, else false)
    require = ["accuracy>=0.9"]    # absolute requirements, as `proctor gate --require`
    margin = "1pp"                 # relative: within this margin of the baseline's run

    [tasks.gsm8k]
    tier = "supporting"
    require = ["accuracy>=0.6"]

A task is matched to a run by the run's task name (a suite run: by the suite's name).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from proctor._util.untrusted import Refused, loads_toml_bounded, read_input_file
from proctor.errors import ConfigError
from proctor.stats.gates import parse_requirement
from proctor.stats.margin import parse_points

Tier = Literal["critical", "supporting", "advisory"]
TIERS: tuple[Tier, ...] = ("critical", "supporting", "advisory")
_TASK_KEYS = frozenset({"tier", "required", "require", "margin"})
_POLICY_KEYS = frozenset({"name", "margin"})
MAX_POLICY_BYTES = 1_000_000


@dataclass(frozen=True)
class TaskRule:
    task: str
    tier: Tier
    required: bool
    require: tuple[str, ...]
    margin: float | None
    """A share (0.01 for one point); None: no relative requirement."""


@dataclass(frozen=True)
class Policy:
    name: str
    path: Path
    tasks: tuple[TaskRule, ...]

    def summary(self) -> str:
        """Its tasks in one line: `arithmetic (critical, required), gsm8k (supporting)`."""
        return ", ".join(
            f"{r.task} ({r.tier}{', required' if r.required else ''}"
            f"{', ' + ', '.join(r.require) if r.require else ''}"
            f"{f', margin {r.margin * 100:g}pp' if r.margin is not None else ''})"
            for r in self.tasks
        )


def is_policy_file(path: Path) -> bool:
    """Whether `path` reads as a policy (a [policy] table, or [tasks.NAME] tables) rather than a
    set file (`models` and [[tasks]]); a file that cannot be read or parsed is judged by its
    table headers, and its reader then says what is wrong with it."""
    try:
        text = read_input_file(path, max_bytes=MAX_POLICY_BYTES).decode("utf-8-sig")
    except (Refused, OSError, UnicodeDecodeError):
        return False
    try:
        data = loads_toml_bounded(text)
    except (Refused, ValueError):
        return re.search(r"^\s*\[\s*(policy\s*\]|tasks\s*\.)", text, re.MULTILINE) is not None
    return "policy" in data or isinstance(data.get("tasks"), dict)


def load_policy(path: Path) -> Policy:
    """The policy in `path`; ConfigError naming file, line and field for anything wrong."""
    try:
        text = read_input_file(path, max_bytes=MAX_POLICY_BYTES).decode("utf-8-sig")
    except (Refused, OSError) as e:
        raise ConfigError(f"{path}: {e}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text (byte {e.start})") from None
    try:
        data = loads_toml_bounded(text)
    except Refused as e:
        raise ConfigError(f"{path}: refused: {e}") from None
    except ValueError as e:  # tomllib.TOMLDecodeError: its message names line and column
        raise ConfigError(f"{path}: bad TOML: {e}") from None
    where = _Where(path, text)
    unknown = sorted(set(data) - {"policy", "tasks"})
    if unknown:
        raise where.error(unknown[0], None, "unknown table: a policy has [policy] and [tasks.NAME]")
    head = data.get("policy", {})
    if not isinstance(head, dict):
        raise where.error("policy", None, "must be a table")
    for key in sorted(set(head) - _POLICY_KEYS):
        raise where.error(
            key, "policy", f"unknown field: known are {', '.join(sorted(_POLICY_KEYS))}"
        )
    default_margin = _margin(head.get("margin"), where, "policy")
    tasks = data.get("tasks")
    if not isinstance(tasks, dict) or not tasks:
        raise where.error("tasks", None, "no [tasks.NAME] table: a policy needs at least one task")
    rules = tuple(_task(name, body, where, default_margin) for name, body in tasks.items())
    name = head.get("name", path.stem)
    if not isinstance(name, str):
        raise where.error("name", "policy", "must be a string")
    return Policy(name, path, rules)


def _task(name: str, body: Any, where: _Where, default_margin: float | None) -> TaskRule:
    table = f"tasks.{name}"
    if not isinstance(body, dict):
        raise where.error(name, "tasks", "must be a table: [tasks.NAME]")
    for key in sorted(set(body) - _TASK_KEYS):
        raise where.error(key, table, f"unknown field: known are {', '.join(sorted(_TASK_KEYS))}")
    tier = body.get("tier", "supporting")
    if tier not in TIERS:
        raise where.error("tier", table, f"must be one of {', '.join(TIERS)}, got {tier!r}")
    required = body.get("required", tier == "critical")
    if not isinstance(required, bool):
        raise where.error("required", table, "must be true or false")
    require = body.get("require", [])
    if not isinstance(require, list) or not all(isinstance(r, str) for r in require):
        raise where.error(
            "require", table, 'must be a list of requirements, e.g. ["accuracy>=0.9"]'
        )
    for text in require:
        try:
            parse_requirement(text)
        except ConfigError as e:
            raise where.error("require", table, str(e)) from None
    margin = _margin(body.get("margin"), where, table) if "margin" in body else default_margin
    return TaskRule(name, tier, required, tuple(require), margin)


def _margin(value: Any, where: _Where, table: str) -> float | None:
    if value is None:
        return None
    try:
        return parse_points(str(value), "margin")
    except ConfigError as e:
        raise where.error("margin", table, str(e)) from None


class _Where:
    """Finds the line a field is on, for errors (tomllib gives values, not positions)."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def line_of(self, key: str, table: str | None) -> int | None:
        start = 0
        if table is not None:
            header = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]\s*(#.*)?$")
            found = [i for i, line in enumerate(self.lines) if header.match(line)]
            if found:
                start = found[0] + 1
        field = re.compile(rf"^\s*\"?{re.escape(key)}\"?\s*=|^\s*\[\s*(tasks\.)?{re.escape(key)}")
        for i in range(start, len(self.lines)):
            if field.match(self.lines[i]):
                return i + 1
            if table is not None and i > start and self.lines[i].lstrip().startswith("["):
                break
        return None

    def error(self, key: str, table: str | None, why: str) -> ConfigError:
        line = self.line_of(key, table)
        at = f", line {line}" if line is not None else ""
        name = f"{table}.{key}" if table else key
        return ConfigError(f"{self.path}{at}: {name}: {why}")


def task_of(config: Mapping[str, object], task: str) -> str:
    """The name a policy matches a run by: its suite's name for a suite run, else its task."""
    suite = config.get("suite")
    if isinstance(suite, dict) and isinstance(suite.get("name"), str):
        return str(suite["name"])
    return task
