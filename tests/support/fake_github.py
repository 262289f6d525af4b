"""A loopback fake of the part of GitHub's REST API that a sticky pull-request comment uses:
list an issue's comments (paged), create one, edit one. Every request is recorded."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


@dataclass
class FakeGitHub:
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    """PR number → its comments ({"id", "body", "user"})."""
    requests: list[tuple[str, str, str]] = field(default_factory=list)
    """(method, path, Authorization header) of every request."""
    refuse: int | None = None
    """Answer every request with this HTTP status (e.g. 403)."""
    next_id: int = 1000
    url: str = ""


@contextmanager
def fake_github() -> Iterator[FakeGitHub]:
    state = FakeGitHub()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: object) -> None:
            raw = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _handle(self, method: str) -> None:
            url = urlparse(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            payload = json.loads(self.rfile.read(length)) if length else None
            with lock:
                state.requests.append((method, url.path, self.headers.get("Authorization", "")))
                if state.refuse is not None:
                    self._send(state.refuse, {"message": "Resource not accessible by integration"})
                    return
                listing = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/(\d+)/comments", url.path)
                edit = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/comments/(\d+)", url.path)
                if listing and method == "GET":
                    query = parse_qs(url.query)
                    per, page = int(query["per_page"][0]), int(query["page"][0])
                    found = state.comments.get(int(listing[1]), [])
                    self._send(200, found[(page - 1) * per : page * per])
                elif listing and method == "POST":
                    state.next_id += 1
                    made = {"id": state.next_id, "body": payload["body"]}
                    state.comments.setdefault(int(listing[1]), []).append(made)
                    self._send(201, made)
                elif edit and method == "PATCH":
                    for comments in state.comments.values():
                        for c in comments:
                            if c["id"] == int(edit[1]):
                                c["body"] = payload["body"]
                                self._send(200, c)
                                return
                    self._send(404, {"message": "Not Found"})
                else:
                    self._send(404, {"message": "Not Found"})

        def do_GET(self) -> None:
            self._handle("GET")

        def do_POST(self) -> None:
            self._handle("POST")

        def do_PATCH(self) -> None:
            self._handle("PATCH")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
