"""Tasks in the user's own Python files: `proctor run path/to/tasks.py:my_task`.

The file is imported as a module of its own (its folder is not put on sys.path, so it cannot
shadow a package); NAME is a Task in it, or a function of no arguments that returns one. The
task is stored under its reference with the file's absolute path (`/abs/tasks.py:my_task`), so
`proctor score RUN`, `proctor report RUN` and a resume find the same task from any folder. What
the file raises while it is imported is a usage error naming the file, never a traceback."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

from proctor.errors import ConfigError
from proctor.tasks.base import Task, checked_task

_LOADED: dict[str, Task] = {}


def load_task_file(reference: str) -> Task:
    """The task PATH.py:NAME names, named by its absolute reference; loaded once a process."""
    where, _, attr = reference.rpartition(":")
    path = Path(where).expanduser().resolve()
    absolute = f"{path}:{attr}"
    if absolute in _LOADED:
        return _LOADED[absolute]
    if not path.is_file():
        raise ConfigError(f"task file {where!r} not found (in {reference!r})")
    module = _import(path)
    if not hasattr(module, attr):
        found = sorted(n for n, v in vars(module).items() if isinstance(v, Task))
        known = ", ".join(found) or "none"
        raise ConfigError(f"{where}: no task named {attr!r} (tasks in the file: {known})")
    value = getattr(module, attr)
    try:
        made = value() if callable(value) and not isinstance(value, Task) else value
    except Exception as e:  # the user's code: one line that names it
        raise ConfigError(f"{where}:{attr} failed: {type(e).__name__}: {_line(e)}") from None
    if not isinstance(made, Task):
        raise ConfigError(
            f"{where}:{attr} is {type(made).__name__}, not a proctor Task "
            "(make one with proctor.define_task)"
        )
    try:
        task = replace(checked_task(made), name=absolute)
    except ValueError as e:
        raise ConfigError(f"{where}:{attr}: {e}") from None
    _LOADED[absolute] = task
    return task


def _import(path: Path) -> ModuleType:
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    name = f"proctor_user_tasks_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"task file {str(path)!r} cannot be imported (not a Python file?)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look a module up by its name
    try:
        spec.loader.exec_module(module)
    # Importing the file runs the user's code: whatever it raises (SystemExit too) is one line.
    except (Exception, SystemExit) as e:
        del sys.modules[name]
        where = _frame_line(e, path)
        raise ConfigError(
            f"task file {str(path)!r}{where} failed to load: {type(e).__name__}: {_line(e)}"
        ) from None
    return module


def _frame_line(error: BaseException, path: Path) -> str:
    """ ":LINE" of the deepest frame of the error inside the file, if any."""
    line = ""
    tb = error.__traceback__
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename) == path:
            line = f":{tb.tb_lineno}"
        tb = tb.tb_next
    if isinstance(error, SyntaxError) and error.lineno:
        line = f":{error.lineno}"
    return line


def _line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text[:300] + ("…" if len(text) > 300 else "")
