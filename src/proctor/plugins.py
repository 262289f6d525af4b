"""Named extensions of one kind (providers, tasks, scorers): the built-in ones registered in
code, the rest found through installed packages' entry points, each loaded the first time its
name is asked for.

A package extends proctor by declaring entry points in its own pyproject.toml:

    [project.entry-points."proctor.providers"]
    acme = "acme_eval.provider:make"       # model strings acme/NAME or acme/NAME@URL
    [project.entry-points."proctor.tasks"]
    acme-support = "acme_eval.tasks:support"
    [project.entry-points."proctor.scorers"]
    acme-exact = "acme_eval.scorers:exact"

Nothing is imported until its name is used, so an installed plugin costs `import proctor` and
`proctor --help` nothing, and one that is broken only fails a command that names it: with
"plugin X failed to load: ...", a usage error (exit 2), never a traceback. A leaf: it imports
nothing of proctor but its errors."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from proctor.errors import ConfigError

PROVIDER_GROUP = "proctor.providers"
TASK_GROUP = "proctor.tasks"
SCORER_GROUP = "proctor.scorers"

T = TypeVar("T")


@dataclass
class PluginTable(Generic[T]):
    """One kind of extension by name. `check` turns what an entry point loaded into a T, or
    raises TypeError/ValueError saying what it should have been."""

    group: str
    what: str
    """In words, for messages: "provider", "task", "scorer"."""
    check: Callable[[object], T]
    _builtin: dict[str, Callable[[], T]] = field(default_factory=dict)
    _loaded: dict[str, T] = field(default_factory=dict)

    def register(self, name: str, load: Callable[[], T]) -> None:
        """A built-in (or a process's own) entry, made by `load` when first asked for."""
        self._builtin[name] = load
        self._loaded.pop(name, None)

    def get(self, name: str) -> T | None:
        """The entry named `name`, loaded now if it was not; None when nothing has that name.
        ConfigError "plugin NAME failed to load: ..." when its package's code fails."""
        if name in self._loaded:
            return self._loaded[name]
        if name in self._builtin:
            found = self._builtin[name]()
        else:
            point = self._entry_point(name)
            if point is None:
                return None
            found = self._load(name, point)
        self._loaded[name] = found
        return found

    def names(self) -> list[str]:
        """Every name: built-in first, then those installed packages declare (none loaded)."""
        installed = [p.name for p in importlib.metadata.entry_points(group=self.group)]
        return [*self._builtin, *sorted(n for n in set(installed) if n not in self._builtin)]

    def origin(self, name: str) -> str:
        """Where an entry comes from, in words: "built-in" or "DIST (module:attr)"."""
        if name in self._builtin:
            return "built-in"
        point = self._entry_point(name)
        if point is None:
            return "unknown"
        return f"{_dist_name(point)} ({point.value})"

    def _entry_point(self, name: str) -> importlib.metadata.EntryPoint | None:
        points = [p for p in importlib.metadata.entry_points(group=self.group) if p.name == name]
        if len({p.value for p in points}) > 1:
            where = ", ".join(f"{_dist_name(p)} ({p.value})" for p in points)
            raise ConfigError(
                f"plugin {name!r}: two installed packages declare a {self.what} of that name "
                f"({where}); uninstall one"
            )
        return points[0] if points else None

    def _load(self, name: str, point: importlib.metadata.EntryPoint) -> T:
        where = f"{_dist_name(point)}, {point.value}"
        try:
            loaded = point.load()
        # A plugin is other people's code: whatever it raises while importing (SystemExit
        # included) is reported as that plugin's failure, in one line, never a traceback.
        except (Exception, SystemExit) as e:
            raise ConfigError(
                f"plugin {name!r} failed to load ({where}): {type(e).__name__}: {_one_line(e)}"
            ) from None
        try:
            return self.check(loaded)
        except (TypeError, ValueError) as e:
            raise ConfigError(
                f"plugin {name!r} failed to load ({where}): not a {self.what}: {_one_line(e)}"
            ) from None


def _dist_name(point: importlib.metadata.EntryPoint) -> str:
    dist = point.dist
    return dist.metadata["Name"] if dist is not None else "unknown package"


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text[:300] + ("…" if len(text) > 300 else "")
