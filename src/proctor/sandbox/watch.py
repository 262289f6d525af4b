"""The parent's watch over one launcher: feed it its job, drain its pipes (keeping the first
`kept_output` bytes of stdout and stderr), read its status and verdict lines, and keep the clocks
(`setup_s` until the harness says "started", `wall_s` from then), killing the solution at a limit.
What it saw is a `State`; `process._classify` says what it means."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from proctor.sandbox import cgroups

if TYPE_CHECKING:
    from proctor.sandbox.process import Limits

DRAIN_S = 1.0
"""How long the pipes are drained once the launcher has exited or was killed."""
EXIT_S = 2.0
"""How long the harness has after its verdict to exit and print its diagnostics."""


class Kept:
    """The head of a stream, and how much there was."""

    def __init__(self, keep: int) -> None:
        self.keep, self.head, self.total = keep, bytearray(), 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]

    def text(self) -> str:
        text = self.head.decode("utf-8", errors="replace")
        if self.total > len(self.head):
            text += f"\n… [{self.total - len(self.head)} more bytes not kept]"
        return text


class _Lines:
    """Complete lines of a pipe; a line longer than `cap` is dropped whole."""

    def __init__(self, cap: int = 8192) -> None:
        self.cap, self.partial, self.junk = cap, b"", False

    def feed(self, chunk: bytes) -> list[str]:
        data = self.partial + chunk
        *lines, self.partial = data.split(b"\n")
        out = []
        for line in lines:
            if not self.junk and len(line) <= self.cap:
                out.append(line.decode("utf-8", errors="replace"))
            self.junk = False
        if len(self.partial) > self.cap:
            self.partial, self.junk = b"", True
        return out


@dataclass
class State:
    ready: bool = False
    setup_failed: str | None = None
    child: int | None = None
    exit_code: int | None = None
    memory_over: bool = False
    peak: int | None = None
    started: float | None = None
    ended: float | None = None
    verdict: tuple[int, str, str] | None = None
    kill_reason: str | None = None


def _on_status(state: State, line: str) -> None:
    word, _, rest = line.partition(" ")
    with contextlib.suppress(ValueError):
        if word == "ready":
            state.ready = True
        elif word == "setup-failed":
            state.setup_failed = state.setup_failed or rest
        elif word == "child":
            state.child = int(rest)
        elif word == "exit":
            state.exit_code = int(rest)
        elif word == "memory-limit":
            state.memory_over = True
        elif word == "peak":
            state.peak = int(rest)


def _on_verdict(state: State, line: str, token: str) -> None:
    if line == "started" and state.started is None:
        state.started = time.monotonic()
        return
    parts = line.split(" ", 4)
    if state.verdict is None and len(parts) == 5 and parts[0] == "verdict" and parts[1] == token:
        with contextlib.suppress(ValueError):
            reason = json.loads(parts[4])
            state.verdict = (int(parts[2]), parts[3], str(reason))
            state.ended = time.monotonic()


def kill(proc: subprocess.Popen[bytes], group: cgroups.SolutionGroup | None) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    if group is not None:
        group.kill()


def drive(
    proc: subprocess.Popen[bytes],
    feed: bytes,
    pipes: dict[int, str],
    limits: Limits,
    token: str,
    group: cgroups.SolutionGroup | None,
) -> tuple[State, Kept, Kept]:
    """Feed the launcher, drain its pipes and keep the clocks, until it is done."""
    watch = _Watch(proc, feed, limits, token, group)
    watch.register(pipes)
    start = time.monotonic()
    while watch.sel.get_map():
        wait = watch.keep_clocks(start, time.monotonic())
        if wait is None:
            break
        for key, _ in watch.sel.select(max(0.0, min(wait, 0.1))):
            watch.ready(int(key.fd), key.data)
    watch.sel.close()
    watch.reap()
    return watch.state, watch.out, watch.err


class _Watch:
    """One launcher watched: what it was fed, what it said, and when its pipes stop counting."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        feed: bytes,
        limits: Limits,
        token: str,
        group: cgroups.SolutionGroup | None,
    ) -> None:
        assert proc.stdin is not None
        self.proc, self.stdin, self.feed = proc, proc.stdin, feed
        self.limits, self.token, self.group = limits, token, group
        self.state = State()
        self.out, self.err = Kept(limits.kept_output), Kept(limits.kept_output)
        self.lines = {"status": _Lines(), "verdict": _Lines()}
        self.sel = selectors.DefaultSelector()
        self.drain_until: float | None = None

    def register(self, pipes: dict[int, str]) -> None:
        stdin_fd = self.stdin.fileno()
        os.set_blocking(stdin_fd, False)
        self.sel.register(stdin_fd, selectors.EVENT_WRITE, "in")
        for fd, name in pipes.items():
            os.set_blocking(fd, False)
            self.sel.register(fd, selectors.EVENT_READ, name)

    def stop(self, now: float) -> None:
        """Kill the solution; its pipes are drained for `DRAIN_S` more."""
        kill(self.proc, self.group)
        self.drain_until = now + DRAIN_S

    def keep_clocks(self, start: float, now: float) -> float | None:
        """Enforce the clocks and the memory limit at `now`; how long to wait for the pipes,
        or None when the drain is over."""
        state = self.state
        if state.verdict is not None:
            deadline = (state.ended or now) + EXIT_S
        elif state.started is not None:
            deadline = state.started + self.limits.wall_s
        else:
            deadline = start + self.limits.setup_s
        if self.drain_until is None:
            if self.proc.poll() is not None:
                self.drain_until = now + DRAIN_S
            elif now >= deadline:
                if state.verdict is None:
                    state.kill_reason = "timeout" if state.started is not None else "setup"
                self.stop(now)
        if self.drain_until is not None and now >= self.drain_until:
            return None
        if self.drain_until is None and self.group is not None and self.group.oom_kills() > 0:
            # one process of the tree met the memory limit: the solution is over
            state.memory_over = True
            self.stop(now)
        return (self.drain_until or deadline) - now

    def ready(self, fd: int, name: str) -> None:
        """One pipe is ready: feed the launcher, or read what it wrote."""
        if name == "in":
            self._write(fd)
            return
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.sel.unregister(fd)
            return
        self._take(name, chunk)
        cap = self.limits.output_bytes
        total = self.out.total + self.err.total
        if cap is not None and total > cap and self.state.kill_reason is None:
            self.state.kill_reason = "output"
            self.stop(time.monotonic())

    def _write(self, fd: int) -> None:
        try:
            sent = os.write(fd, self.feed)
        except (BrokenPipeError, BlockingIOError, OSError):
            sent = len(self.feed)
        self.feed = self.feed[sent:]
        if not self.feed:
            self.sel.unregister(fd)
            self.stdin.close()

    def _take(self, name: str, chunk: bytes) -> None:
        if name == "stdout":
            self.out.add(chunk)
        elif name == "stderr":
            self.err.add(chunk)
        elif name == "status":
            for line in self.lines["status"].feed(chunk):
                _on_status(self.state, line)
        else:
            for line in self.lines["verdict"].feed(chunk):
                _on_verdict(self.state, line, self.token)

    def reap(self) -> None:
        """Close its stdin and wait for the launcher (killed if it does not exit in 5 s)."""
        with contextlib.suppress(OSError):
            self.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            kill(self.proc, self.group)
            self.proc.wait()
