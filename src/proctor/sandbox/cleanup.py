"""Removing what a program left on the host, whatever it built: no recursion (a reply that nests
3,000 folders broke `shutil.rmtree`), one open folder at a time (descriptors, not paths, so depth
is no limit), permissions and immutable/append-only flags cleared where they stop us. And the
sweep, at start, of the folders of proctor processes that were killed before they could clean.

With namespaces the program's files live in a tmpfs that vanishes with its mount namespace;
only the mode without namespaces leaves a work folder on the host.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import stat
import struct
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from proctor._util.processes import alive

PREFIX = "proctor-sandbox-"
_OURS = re.compile(rf"^{PREFIX}(\d+)-")
_FS_IOC_GETFLAGS, _FS_IOC_SETFLAGS = 0x80086601, 0x40086602
_IMMUTABLE, _APPEND = 0x10, 0x20
_LEGACY_AGE_S = 3600.0
"""A folder of the old naming (no pid in it) is stale once this old: no run lasts an hour."""


def _clear_flags(dir_fd: int, name: str | None) -> None:
    """Clear the immutable and append-only flags of `name` in `dir_fd` (or of the folder)."""
    fd = -1
    try:
        if name is None:
            fd = os.dup(dir_fd)
        else:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
        buf = fcntl.ioctl(fd, _FS_IOC_GETFLAGS, struct.pack("l", 0))
        flags = struct.unpack("l", buf)[0]
        if flags & (_IMMUTABLE | _APPEND):
            fcntl.ioctl(fd, _FS_IOC_SETFLAGS, struct.pack("l", flags & ~(_IMMUTABLE | _APPEND)))
    except OSError:
        pass
    finally:
        if fd >= 0:
            os.close(fd)


def _unlocked(dir_fd: int, name: str) -> None:
    """What stops removing `name` from `dir_fd`: the flags of both, the folder's permissions."""
    _clear_flags(dir_fd, None)
    _clear_flags(dir_fd, name)
    with contextlib.suppress(OSError):
        os.chmod(dir_fd, stat.S_IRWXU)


def _remove(remove: Callable[..., None], dir_fd: int, name: str) -> None:
    """`remove` (os.unlink or os.rmdir) `name` from `dir_fd`; one already gone is fine; one
    refused is tried once more after what stops it is cleared (`_unlocked`)."""
    try:
        remove(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return
    except PermissionError:
        _unlocked(dir_fd, name)
        with contextlib.suppress(FileNotFoundError):
            remove(name, dir_fd=dir_fd)


def _unlink(dir_fd: int, name: str) -> None:
    _remove(os.unlink, dir_fd, name)


def _open_dir(name: str, dir_fd: int) -> int:
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    try:
        return os.open(name, flags, dir_fd=dir_fd)
    except PermissionError:
        _clear_flags(dir_fd, name)
        os.chmod(name, stat.S_IRWXU, dir_fd=dir_fd, follow_symlinks=False)
        return os.open(name, flags, dir_fd=dir_fd)


def remove_tree(path: str | os.PathLike[str]) -> None:
    """Remove `path` and everything under it; a missing `path` is fine. Raises OSError only
    for what cannot be removed even after permissions and flags are cleared."""
    path = os.fspath(path)
    parent_path, top = os.path.split(os.path.abspath(path))
    try:
        parent = os.open(parent_path, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return
    try:
        if not os.path.lexists(path):
            return
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            _unlink(parent, top)
            return
        _remove_below(parent, top)
    finally:
        os.close(parent)


def _remove_below(parent: int, top: str) -> None:
    names = [top]  # the path from `parent` to the current folder, as names
    current = _open_dir(top, parent)
    try:
        while True:
            with contextlib.suppress(OSError):
                os.chmod(current, stat.S_IRWXU)
            child = None
            with os.scandir(current) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        child = entry.name
                        break
                    _unlink(current, entry.name)
            if child is not None:
                below = _open_dir(child, current)
                os.close(current)
                current, names = below, [*names, child]
                continue
            # the folder is empty: go up one and remove it
            if len(names) == 1:
                os.close(current)
                current = -1
                _rmdir(parent, top)
                return
            up = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=current)
            os.close(current)
            current = up
            _rmdir(current, names[-1])
            names = names[:-1]
    finally:
        if current >= 0:
            os.close(current)


def _rmdir(dir_fd: int, name: str) -> None:
    try:
        _remove(os.rmdir, dir_fd, name)
    except OSError as e:
        if e.errno != errno.ENOTEMPTY:
            raise
        _remove_below(dir_fd, name)  # something appeared meanwhile: once more


def sweep_stale_folders(base: str | None = None) -> list[str]:
    """Remove `proctor-sandbox-*` folders in the temporary folder that no live proctor process
    owns (named with a pid that is gone, or of the old naming and over an hour old) and that
    belong to us; returns what was removed."""
    folder = Path(base or tempfile.gettempdir())
    removed: list[str] = []
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(PREFIX):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if info.st_uid != os.geteuid() or not stat.S_ISDIR(info.st_mode):
            continue
        m = _OURS.match(entry.name)
        stale = not alive(int(m.group(1))) if m else now - info.st_mtime > _LEGACY_AGE_S
        if stale:
            with contextlib.suppress(OSError):
                remove_tree(entry.path)
                removed.append(entry.path)
    return removed
