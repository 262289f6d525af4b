"""Write a file so that a reader sees the old one or the new one, never half of one.

The temporary file sits beside the target as `.<name>.<pid>.<random>.tmp`: a process killed
while writing (SIGKILL runs no cleanup) leaves one behind, and the next write into the same
folder removes it once no process of that id is alive (`remove_stale_temp_files`)."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from proctor._util.processes import alive
from proctor.errors import StoreError

_TEMP = re.compile(r"^\..+?\.(?:(?P<pid>[0-9]+)\.)?[A-Za-z0-9_]+\.tmp$")
LEGACY_TEMP_AGE_S = 3600.0
"""A temporary file without a process id (written by an older proctor) is stale after this."""


def write_text_atomic(path: Path, text: str) -> Path:
    """Write `text` as UTF-8 (no BOM, no newline translation) through a temp file + os.replace."""
    return write_atomic(path, lambda handle: handle.write(text))


def write_atomic(path: Path, write: Callable[[TextIO], object]) -> Path:
    """Like `write_text_atomic`, with `write` streaming into the file: a big file (samples.csv of
    100,000 answers) is never held whole in memory. A full disk (or any OS error) is a
    StoreError naming the file; the temporary file is removed and the old file stays."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temp_files(path.parent)
        fd, temp_name = tempfile.mkstemp(
            prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent
        )
    except OSError as e:
        raise StoreError(f"cannot write {path}: {e.strerror or e}") from e
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except BaseException as e:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        if isinstance(e, OSError):
            raise StoreError(f"cannot write {path}: {e.strerror or e}") from e
        raise
    return path


def remove_stale_temp_files(folder: Path) -> list[Path]:
    """Remove the temporary files in `folder` left by writers that are gone; return them."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        m = _TEMP.match(entry.name)
        if m is None or not entry.is_file(follow_symlinks=False):
            continue
        pid = m.group("pid")
        if pid is not None:
            # ours (a write may be under way on another thread) or a live writer's: kept
            if int(pid) == os.getpid() or alive(int(pid)):
                continue
        else:
            with contextlib.suppress(OSError):
                if time.time() - entry.stat().st_mtime < LEGACY_TEMP_AGE_S:
                    continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed
