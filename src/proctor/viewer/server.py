"""The viewer's HTTP server: stdlib `ThreadingHTTPServer`, bound to 127.0.0.1 and nothing else.

Routes (GET and HEAD only):
    /                       the runs of the results folder, and a form to compare two
    /runs/<run>             a run's report (the same page as its report.html)
    /runs/<run>/samples     a run's sample browser alone
    /compare?a=<run>&b=<run>  two runs side by side
    /runs/<run>/items/<id>  every model's answer to one item, side by side, with grade and rule
    /runs/<run>/answers     a run's answers a page at a time, filtered on the server
                            (?model=&outcome=&q=&page=); the run page of a run over BIG_RUN
    /runs/<run>/progress    how far a run has got; reloads itself while the run is running
    /models/<model>         one model's scores across every run of the folder
    /review/<run>...        review: people grade replies (`proctor.viewer.review`); its POST
                            /review/<run>/verdict is the one request that changes anything
    /review/set/<set>       one review queue over a set's runs (`proctor.viewer.review_set`)
    /leaderboard            models × tasks (?set=SET, ?run=RUN…; 50 models a page)
    /runs/<run>/grid        one row per item, one column per model (?disagree=1)

Requests whose Host header is not this server's own loopback address are refused, so a web
page elsewhere cannot reach the viewer through DNS rebinding. A POST is also refused unless its
Origin is this server's own and it carries the session token made when the server started.
Every page carries the same Content-Security-Policy as report.html, also as a header.
"""

from __future__ import annotations

import contextlib
import secrets
import socket
import sys
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TypeVar
from urllib.parse import parse_qs, unquote, urlsplit

from proctor.errors import ProctorError, StoreError
from proctor.report.html import (
    Links,
    compare_html,
    content_security_policy,
    report_html,
    runs_html,
    samples_html,
)
from proctor.report.html.viewer_pages import error_html, run_href, samples_href
from proctor.stats.comparison import compare_run_items
from proctor.store import RunStore
from proctor.viewer import board, pages, review, review_set
from proctor.viewer.board_cache import BoardCache
from proctor.viewer.runs import LoadedRun, listing, load_run, state_key

T = TypeVar("T")
HOST = "127.0.0.1"
CACHED_RUNS = 4
CACHED_PAGES = 8
MAX_POST = 64 * 1024
BIG_RUN = 20_000
"""Above this many answers a run's page is its answers a page at a time, not the whole report
(which holds every answer in memory and in the page)."""


class PageError(Exception):
    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class ViewerServer(ThreadingHTTPServer):
    """`ViewerServer(results_dir, port)`: port 0 picks a free one (see `url`)."""

    daemon_threads = True

    def __init__(self, results_dir: Path, port: int = 0, *, quiet: bool = False) -> None:
        self.results_dir = Path(results_dir)
        self.quiet = quiet
        self._lock = threading.Lock()
        self._runs: OrderedDict[tuple[object, ...], LoadedRun] = OrderedDict()
        self._pages: OrderedDict[tuple[object, ...], bytes] = OrderedDict()
        self.boards = BoardCache(self.results_dir)
        """Leaderboards read once per state of the store (`read_ahead` starts the folder's)."""
        self._open_lock = threading.Lock()
        self._open: set[socket.socket] = set()
        """Connections a handler still serves (`server_close` ends them)."""
        self.token = secrets.token_urlsafe(32)
        """The session token every review form carries; a POST without it is refused."""
        super().__init__((HOST, port), _Handler)

    def process_request(self, request: socket.socket, client_address: object) -> None:  # type: ignore[override]
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: socket.socket) -> None:  # type: ignore[override]
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def server_close(self) -> None:
        """Stop listening and end the connections still open: a browser keeps its connection
        alive between pages, and each would hold a handler thread (and the store it reads)
        after the viewer stopped. Waits up to 2 s for those handlers to finish."""
        super().server_close()
        with self._open_lock:
            still = list(self._open)
        for request in still:
            with contextlib.suppress(OSError):  # closed meanwhile
                request.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            with self._open_lock:
                if not self._open:
                    return
            time.sleep(0.01)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/"

    def allowed_hosts(self) -> set[str]:
        return {f"{HOST}:{self.port}", f"localhost:{self.port}"}

    def allowed_origins(self) -> set[str]:
        return {f"http://{host}" for host in self.allowed_hosts()}

    # -- pages --------------------------------------------------------------------------------

    def page(self, path: str, query: dict[str, list[str]]) -> bytes:
        parts = [unquote(p) for p in path.split("/") if p]
        if not parts:
            with RunStore.open(self.results_dir) as store:
                runs = listing(store)
                scores = pages.run_headlines(store, [r.run_id for r in runs])
            return runs_html(runs, str(self.results_dir), scores).encode("utf-8")
        if parts[0] == "review" and len(parts) >= 3 and parts[1] == "set":
            return self._read(
                lambda store: review_set.set_page(store, parts[2], parts[3:], query, self.token)
            )
        if parts[0] == "review" and len(parts) >= 2:
            return self._read(
                lambda store: review.page(
                    store, self._resolve(store, parts[1]), parts[2:], query, self.token
                )
            )
        if parts == ["leaderboard"]:
            return board.leaderboard_page(self.results_dir, query, self.boards).encode("utf-8")
        if parts[0] == "runs" and len(parts) == 3 and parts[2] == "grid":
            return self._read(
                lambda store: board.grid_page(store, self._resolve(store, parts[1]), query)
            )
        if parts[0] == "models" and len(parts) == 2:
            return self._read(lambda store: pages.model_page(store, parts[1]))
        if parts[0] == "runs" and len(parts) == 4 and parts[2] == "items":
            return self._read(
                lambda store: pages.item_page(store, self._resolve(store, parts[1]), parts[3])
            )
        if parts[0] == "runs" and len(parts) == 3 and parts[2] == "answers":
            return self._read(
                lambda store: pages.answers_page(store, self._resolve(store, parts[1]), query)
            )
        if parts[0] == "runs" and len(parts) == 3 and parts[2] == "progress":
            return self._read(
                lambda store: pages.progress_page(store, self._resolve(store, parts[1]))
            )
        whole = "report" if len(parts) == 2 else "samples" if parts[2:] == ["samples"] else None
        if parts[0] == "runs" and whole is not None:
            if self._read_value(lambda store: self._is_big(store, parts[1])):
                note = f"a run of over {BIG_RUN:,} answers is shown a page at a time"
                return self._read(
                    lambda store: pages.answers_page(
                        store, self._resolve(store, parts[1]), query, note=note
                    )
                )
            return self._run_page(parts[1], whole)
        if parts == ["compare"]:
            a, b = (query.get(k, [""])[0] for k in ("a", "b"))
            if not a or not b:
                raise PageError(HTTPStatus.BAD_REQUEST, "compare needs two runs: ?a=RUN&b=RUN")
            return self._compare_page(a, b)
        raise PageError(HTTPStatus.NOT_FOUND, f"no page at {path}")

    def _read(self, build: Callable[[RunStore], str]) -> bytes:
        """A page read from the store at this request (no cache: a running run changes)."""
        return self._read_value(build).encode("utf-8")

    def _read_value(self, read: Callable[[RunStore], T]) -> T:
        with RunStore.open(self.results_dir) as store:
            try:
                return read(store)
            except (pages.NotFound, LookupError) as e:
                raise PageError(HTTPStatus.NOT_FOUND, str(e)) from e
            except ValueError as e:
                raise PageError(HTTPStatus.BAD_REQUEST, str(e)) from e

    @staticmethod
    def _resolve(store: RunStore, ref: str) -> str:
        try:
            return store.resolve(ref)
        except StoreError as e:
            raise PageError(HTTPStatus.NOT_FOUND, str(e)) from e

    def _is_big(self, store: RunStore, ref: str) -> bool:
        return sum(store.count_records(self._resolve(store, ref)).values()) > BIG_RUN

    def _run_page(self, ref: str, kind: str) -> bytes:
        run = self._load(ref)
        links = Links(
            report=run_href(run.info.run_id),
            samples=samples_href(run.info.run_id),
            note=f"graded with {run.graded_by}",
            review=review.review_href(run.info.run_id),
        )

        def build() -> bytes:
            if kind == "samples":
                html = samples_html(run.stats, links=links)
            else:
                html = report_html(run.stats, links=links)
            return html.encode("utf-8")

        return self._cached_page((kind, *run.key), build)

    def _compare_page(self, ref_a: str, ref_b: str) -> bytes:
        a, b = self._load(ref_a), self._load(ref_b)
        return self._cached_page(
            ("compare", a.key, b.key),
            lambda: compare_html(
                compare_run_items(a.info, a.items, b.info, b.items)
            ).encode("utf-8"),
        )

    def _load(self, ref: str) -> LoadedRun:
        """A graded run, from the cache while its answers and grading are unchanged."""
        with RunStore.open(self.results_dir) as store:
            try:
                run_id = store.resolve(ref)
            except StoreError as e:
                raise PageError(HTTPStatus.NOT_FOUND, str(e)) from e
            key = state_key(store, run_id)
            with self._lock:
                found = self._runs.get(key)
                if found is not None:
                    self._runs.move_to_end(key)
                    return found
            run = load_run(store, run_id)
        with self._lock:
            self._runs[run.key] = run
            while len(self._runs) > CACHED_RUNS:
                self._runs.popitem(last=False)
        return run

    def _cached_page(self, key: tuple[object, ...], build: Callable[[], bytes]) -> bytes:
        with self._lock:
            found = self._pages.get(key)
            if found is not None:
                self._pages.move_to_end(key)
                return found
        body = build()
        with self._lock:
            self._pages[key] = body
            while len(self._pages) > CACHED_PAGES:
                self._pages.popitem(last=False)
        return body


class _Handler(BaseHTTPRequestHandler):
    server: ViewerServer
    server_version = "proctor-view"
    sys_version = ""

    def do_GET(self) -> None:
        self._serve(send_body=True)

    def do_HEAD(self) -> None:
        self._serve(send_body=False)

    def _serve(self, *, send_body: bool) -> None:
        host = self.headers.get("Host", "")
        if host not in self.server.allowed_hosts():
            self._send(HTTPStatus.FORBIDDEN, _error(403, f"refused: host {host!r}"), send_body)
            return
        url = urlsplit(self.path)
        try:
            body = self.server.page(url.path, parse_qs(url.query))
            status = HTTPStatus.OK
        except PageError as e:
            status, body = e.status, _error(e.status.value, e.message)
        except ProctorError as e:
            status, body = HTTPStatus.BAD_REQUEST, _error(400, str(e))
        except Exception:  # one broken page must not take the viewer down
            traceback.print_exc(file=sys.stderr)
            status = HTTPStatus.INTERNAL_SERVER_ERROR
            body = _error(500, "the page could not be built; see the viewer's log")
        self._send(status, body, send_body)

    def do_POST(self) -> None:
        """Only /review/<run>/verdict; refused (nothing read, nothing stored) from another Host
        or Origin, or without the session token."""
        try:
            location = self._take_post()
        except review.Refused as e:
            self._send(HTTPStatus(e.status), _error(e.status, str(e)), True)
            return
        except PageError as e:
            self._send(e.status, _error(e.status.value, e.message), True)
            return
        self.send_response(HTTPStatus.SEE_OTHER)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()

    def _take_post(self) -> str:
        parts = [unquote(p) for p in urlsplit(self.path).path.split("/") if p]
        if len(parts) != 3 or parts[0] != "review" or parts[2] != "verdict":
            raise review.Refused(501, "only a review verdict is posted")
        host = self.headers.get("Host", "")
        if host not in self.server.allowed_hosts():
            raise review.Refused(403, f"refused: host {host!r}")
        origin = self.headers.get("Origin", "")
        if origin not in self.server.allowed_origins():
            raise review.Refused(403, f"refused: origin {origin!r} is not this viewer's")
        kind = self.headers.get("Content-Type", "").split(";")[0].strip()
        if kind != "application/x-www-form-urlencoded":
            raise review.Refused(415, "a verdict is posted as a form")
        length = self.headers.get("Content-Length", "")
        if not length.isdigit() or int(length) > MAX_POST:
            raise review.Refused(413, f"a verdict form is at most {MAX_POST} bytes")
        body = self.rfile.read(int(length)).decode("utf-8", errors="replace")
        form = review.Form({k: v[0] for k, v in parse_qs(body, keep_blank_values=True).items()})
        with RunStore.open(self.server.results_dir) as store:
            run_id = self.server._resolve(store, parts[1])
            return review.take_verdict(store, run_id, form, self.server.token)

    def _send(self, status: HTTPStatus, body: bytes, send_body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", content_security_policy())
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        # A review page's form must carry its Origin (sent as "null" under no-referrer)
        own = self.path.startswith("/review/")
        self.send_header("Referrer-Policy", "same-origin" if own else "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        if not self.server.quiet:
            super().log_message(format, *args)


def _error(status: int, message: str) -> bytes:
    return error_html(status, message).encode("utf-8")
