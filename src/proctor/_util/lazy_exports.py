"""Package roots that name their exports without importing them: a submodule is imported the
first time one of its names is asked for (PEP 562), so that `proctor --help` and the start of a
run do not pay for every room's modules. Type checkers read the `TYPE_CHECKING` imports beside
each use; this module only routes the names at run time."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package` that finds `name` in module `exports[name]` (a path
    relative to `package`, e.g. ".files", or absolute) and keeps it in the package's namespace."""

    def __getattr__(name: str) -> Any:
        where = exports.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(where, package)
        value = getattr(module, name)
        vars(importlib.import_module(package))[name] = value
        return value

    return __getattr__
