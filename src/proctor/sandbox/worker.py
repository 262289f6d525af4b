"""A helper process that answers calls one at a time, and is killed and replaced when a call runs
past its time.

For work that cannot be interrupted inside a thread: sympy through math-verify, whose own
timeout uses `signal.alarm` and so works only in a main thread. The caller's thread waits on a
pipe with a deadline instead, from any thread or from async code (via `asyncio.to_thread`), and
a call that overruns ends its process, not the caller. Requests and replies are JSON lines; the
target is named as "package.module:function" and imported by the helper.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import select
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import proctor

_SRC = str(Path(proctor.__file__).resolve().parent.parent)

CallStatus = Literal["ok", "timeout", "crashed"]


@dataclass(frozen=True)
class WorkerReply:
    status: CallStatus
    value: Any = None
    detail: str = ""


class _Helper:
    def __init__(self, target: str, startup_s: float) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_SRC, env.get("PYTHONPATH", "")) if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "proctor.sandbox._worker_main", target],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
        self._buffer = b""
        line = self.read_line(time.monotonic() + startup_s)
        if line != "ready":
            self.kill()
            raise RuntimeError(f"worker for {target} did not start: {line!r}")

    def read_line(self, deadline: float) -> str | None:
        """The next line, or None at the deadline or when the helper has gone."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode()

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, 9)
        with contextlib.suppress(Exception):
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.close()


class BoundedWorker:
    """Up to `size` helper processes running `target`; `call` blocks until one is free."""

    def __init__(self, target: str, *, size: int = 1, startup_s: float = 120.0) -> None:
        self._target = target
        self._size = max(1, size)
        self._startup_s = startup_s
        self._idle: queue.LifoQueue[_Helper] = queue.LifoQueue()
        self._lock = threading.Lock()
        self._alive = 0

    def _take(self) -> _Helper:
        with self._lock:
            try:
                return self._idle.get_nowait()
            except queue.Empty:
                pass
            if self._alive < self._size:
                self._alive += 1
                create = True
            else:
                create = False
        if not create:
            return self._idle.get()
        try:
            return _Helper(self._target, self._startup_s)
        except BaseException:
            with self._lock:
                self._alive -= 1
            raise

    def _lose(self, helper: _Helper) -> None:
        helper.kill()
        with self._lock:
            self._alive -= 1

    def call(self, request: Any, timeout_s: float) -> WorkerReply:
        """Send `request`; its reply within `timeout_s` seconds, else "timeout" (the helper is
        killed and a fresh one started for the next call), or "crashed"."""
        try:
            helper = self._take()
        except RuntimeError as e:
            return WorkerReply("crashed", detail=str(e))
        try:
            assert helper.proc.stdin is not None
            helper.proc.stdin.write((json.dumps(request) + "\n").encode())
            helper.proc.stdin.flush()
        except OSError as e:
            self._lose(helper)
            return WorkerReply("crashed", detail=f"could not send the request: {e}")
        line = helper.read_line(time.monotonic() + timeout_s)
        if line is None:
            alive = helper.proc.poll() is None
            self._lose(helper)
            if alive:
                return WorkerReply("timeout", detail=f"no answer within {timeout_s:g} s")
            return WorkerReply("crashed", detail="the helper process died")
        self._idle.put(helper)
        reply = json.loads(line)
        if "error" in reply:
            return WorkerReply("crashed", detail=str(reply["error"]))
        return WorkerReply("ok", reply["value"])

    def close(self) -> None:
        while True:
            try:
                helper = self._idle.get_nowait()
            except queue.Empty:
                return
            self._lose(helper)
