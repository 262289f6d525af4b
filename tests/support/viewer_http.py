"""A `proctor view` server on a free loopback port for the length of a block, and a GET of one of
its pages that must answer 200."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from proctor.viewer import HOST, ViewerServer


@contextmanager
def serving(results: Path) -> Iterator[ViewerServer]:
    viewer = ViewerServer(results, 0, quiet=True)
    thread = threading.Thread(target=viewer.serve_forever, daemon=True)
    thread.start()
    try:
        yield viewer
    finally:
        viewer.shutdown()
        viewer.server_close()
        thread.join(5)


def get(viewer: ViewerServer, path: str) -> str:
    """The page at `path`, which must answer 200."""
    conn = http.client.HTTPConnection(HOST, viewer.port, timeout=30)
    try:
        conn.request("GET", path, headers={"Host": f"{HOST}:{viewer.port}"})
        response = conn.getresponse()
        body = response.read().decode("utf-8")
        assert response.status == 200, (path, response.status, body[:300])
        return body
    finally:
        conn.close()
