"""Serving the stub with uvicorn on 127.0.0.1, in a background thread of the caller's process."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import uvicorn

from support.stub.app import StubApp, StubStats
from support.stub.config import StubConfig

__all__ = ["StubHandle", "fetch_stats", "run_stub"]

HOST = "127.0.0.1"
_STOP_WAIT_S = 5.0


@dataclass(frozen=True)
class StubHandle:
    """A running stub: where it listens and what it has seen."""

    config: StubConfig
    port: int
    app: StubApp

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, e.g. "http://127.0.0.1:PORT/v1"."""
        return f"http://{HOST}:{self.port}/v1"

    @property
    def model(self) -> str:
        """A model string for proctor: "openai-compat/stub@<base_url>"."""
        return f"openai-compat/stub@{self.base_url}"

    def stats(self) -> StubStats:
        return self.app.stats()

    def reset(self) -> None:
        self.app.reset()


def bind_loopback(port: int = 0) -> socket.socket:
    """A listening TCP socket on 127.0.0.1:`port` (0: a free port the OS picks)."""
    # proto IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP,
    # and without it each reply (headers, then body) waits ~40 ms on the client's delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((HOST, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


def uvicorn_config(app: StubApp) -> uvicorn.Config:
    """No access log, no per-request headers we do not need: the stub must not be the
    bottleneck of a benchmark."""
    return uvicorn.Config(
        app,
        interface="asgi3",
        lifespan="off",
        log_config=None,  # leave the host process's logging alone; warnings reach stderr anyway
        log_level="warning",
        access_log=False,
        server_header=False,
        date_header=False,
        proxy_headers=False,
        backlog=2048,
        timeout_keep_alive=30,
        timeout_graceful_shutdown=3,
    )


@contextmanager
def run_stub(
    config: StubConfig | None = None,
    *,
    port: int = 0,
    startup_timeout_s: float = 10.0,
    app: StubApp | None = None,
) -> Iterator[StubHandle]:
    """Serve a stub on 127.0.0.1:`port` from a daemon thread until the block ends.

    The socket is bound before the thread starts, so `handle.base_url` is known at once and
    connections made before uvicorn is up wait in the backlog; the block is entered only once
    uvicorn is serving. On exit hanging requests are dropped and the thread is joined. `app`:
    serve this app (e.g. a `BatchStubApp`) instead of a plain one made from `config`."""
    cfg = app.config if app is not None else config or StubConfig()
    app = app or StubApp(cfg)
    sock = bind_loopback(port)
    server = uvicorn.Server(uvicorn_config(app))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="proctor-stub", daemon=True
    )
    try:
        thread.start()
        deadline = time.monotonic() + startup_timeout_s
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the stub server stopped while starting")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the stub server did not start in {startup_timeout_s:g} s")
            time.sleep(0.005)
        yield StubHandle(cfg, sock.getsockname()[1], app)
    finally:
        app.close()
        server.should_exit = True
        thread.join(_STOP_WAIT_S)
        if thread.is_alive():
            server.force_exit = True
            thread.join(_STOP_WAIT_S)
        sock.close()


def fetch_stats(base_url: str, *, brief: bool = False, timeout_s: float = 5.0) -> StubStats:
    """`GET /stats` of a stub at `base_url` ("http://127.0.0.1:PORT/v1"), e.g. one started with
    `python -m support.stub` in another process; `brief` leaves by_body and by_prompt empty."""
    root = base_url.rstrip("/").removesuffix("/v1")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy
    with opener.open(f"{root}/stats{'?brief=1' if brief else ''}", timeout=timeout_s) as resp:
        data = json.loads(resp.read())
    return StubStats.from_dict(data)
