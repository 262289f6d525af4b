"""`proctor view` over HTTP: its pages, its refusals, and that it only reads the store."""

from __future__ import annotations

import contextlib
import http.client
import socket
from pathlib import Path
from urllib.parse import quote

import pytest
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.errors import ProctorError
from proctor.report.html import content_security_policy
from proctor.store import RunStore
from proctor.viewer import HOST, ViewerServer

from .conftest import MODELS, N, Results


def get(
    server: ViewerServer, path: str, *, host: str | None = None, method: str = "GET"
) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection(HOST, server.port, timeout=30)
    try:
        conn.putrequest(method, path, skip_host=True)
        conn.putheader("Host", host or f"{HOST}:{server.port}")
        conn.endheaders()
        response = conn.getresponse()
        body = response.read().decode("utf-8")
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body
    finally:
        conn.close()


def test_binds_loopback_only(server: ViewerServer) -> None:
    assert server.server_address[0] == "127.0.0.1"
    assert server.url == f"http://127.0.0.1:{server.port}/"


def test_runs_list(server: ViewerServer, results: Results) -> None:
    status, headers, body = get(server, "/")
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["content-security-policy"] == content_security_policy()
    assert headers["x-content-type-options"] == "nosniff"
    for run_id in results.run_ids:
        assert f'href="/runs/{quote(run_id, safe="")}"' in body


@pytest.mark.parametrize("which", [0, 1])
def test_run_report_and_samples(server: ViewerServer, results: Results, which: int) -> None:
    run_id = results.run_ids[which]
    status, _, report = get(server, f"/runs/{quote(run_id, safe='')}")
    assert status == 200
    assert 'id="proctor-data"' in report and "chart-ranking" in report
    for model in MODELS:
        assert model in report
    # the prompt the run sent is rebuilt and shown with each sample
    assert "Problem: 0 + 100" in report
    assert "stored grades (arithmetic/" in report
    if which == 1:  # graded by older rules: shown as stored, never graded again on a read
        assert "stored grades (arithmetic/0); the current rules are arithmetic/" in report
    status, _, samples = get(server, f"/runs/{run_id[:-2]}/samples")  # a unique prefix works
    assert status == 200 and 'id="proctor-data"' in samples and "chart-" not in samples


def test_compare(server: ViewerServer, results: Results) -> None:
    a, b = results.run_ids
    status, _, body = get(server, f"/compare?a={quote(a)}&b={quote(b)}")
    assert status == 200
    assert "Run A vs run B" in body and "chart-grouped" in body
    assert "4 item(s) changed" in body
    # the paired verdict of `proctor compare`, per model
    assert "not distinguishable" in body or "better than" in body


def test_refusals(server: ViewerServer, results: Results) -> None:
    assert get(server, "/runs/no-such-run")[0] == 404
    assert get(server, "/nowhere")[0] == 404
    assert get(server, "/compare?a=x")[0] == 400
    status, _, body = get(server, "/", host="evil.example:80")
    assert status == 403 and "refused" in body
    assert get(server, "/", host=f"localhost:{server.port}")[0] == 200
    assert get(server, "/", method="POST")[0] == 501
    assert get(server, "/", method="HEAD")[0] == 200


def test_viewer_never_writes_the_store(server: ViewerServer, results: Results) -> None:
    _, older = results.run_ids
    with RunStore.open(results.path) as store:
        before = (store.grader_version(older), store.scores(older))
    assert get(server, f"/runs/{older}")[0] == 200
    assert get(server, f"/runs/{older}/samples")[0] == 200
    with RunStore.open(results.path) as store:
        assert (store.grader_version(older), store.scores(older)) == before
        assert before[0] == "arithmetic/0"
        assert sum(store.count_records(older).values()) == N * len(MODELS)


def _own_addresses() -> set[str]:
    """This host's non-loopback IPv4 addresses, found without sending anything."""
    found: set[str] = set()
    with contextlib.suppress(OSError):
        found |= {i[4][0] for i in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.255.255.255", 1))  # a UDP connect only picks a route
        found.add(probe.getsockname()[0])
    return {a for a in found if not a.startswith("127.") and a != "0.0.0.0"}


def test_not_reachable_on_other_addresses(server: ViewerServer) -> None:
    """Only the loopback address listens: the port is closed on this host's other addresses."""
    others = _own_addresses()
    if not others:
        pytest.skip("this host has no non-loopback IPv4 address")
    for address in others:
        with pytest.raises(OSError), socket.create_connection((address, server.port), timeout=2):
            pass


def test_cli_needs_a_results_folder(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["view", "-r", str(tmp_path), "--port", "0"])
    assert isinstance(result.exception, ProctorError)
    assert "no run store" in str(result.exception)


def test_closing_the_viewer_ends_the_connections_a_browser_keeps_open(results: Results) -> None:
    """A browser opens connections ahead of its requests (Chromium preconnects) and keeps them;
    once the viewer is closed no handler thread of it may be left waiting on one (it would
    hold the store, and a forked grading pool refuses to start while other threads run)."""
    import threading
    import time

    from .conftest import serve

    def handlers(srv: ViewerServer) -> list[threading.Thread]:
        def serving(t: threading.Thread) -> bool:  # a handler of srv's connections
            target = getattr(t, "_target", None)
            return getattr(target, "__self__", None) is srv and getattr(
                target, "__name__", ""
            ) == "process_request_thread"

        return [t for t in threading.enumerate() if serving(t)]

    with serve(results.path) as srv:
        preconnected = socket.create_connection((HOST, srv.port), timeout=10)
        for _ in range(1000):  # until the viewer has accepted it: a handler waits on it
            if handlers(srv):
                break
            time.sleep(0.01)
        assert handlers(srv), "the viewer never accepted the connection"
    with preconnected:
        assert handlers(srv) == []
        preconnected.settimeout(10)
        try:
            ended = preconnected.recv(1) == b""  # the viewer ended it...
        except ConnectionResetError:
            ended = True  # ...or reset it
        assert ended
