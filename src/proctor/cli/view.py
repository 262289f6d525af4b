"""`proctor view`: serve the results folder's runs to a browser on this machine only."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from proctor.cli.options import ResultsDir

DEFAULT_PORT = 8765


def view(
    results_dir: ResultsDir = Path("proctor-results"),
    port: Annotated[
        int, typer.Option(help="Port on 127.0.0.1 (0 picks a free one).", min=0, max=65535)
    ] = DEFAULT_PORT,
    open_browser: Annotated[
        bool, typer.Option("--open/--no-open", help="Open the viewer in your web browser.")
    ] = False,
) -> None:
    """Browse runs in a local web viewer: runs list, reports, samples, comparisons.

    It listens on 127.0.0.1 only; the one thing it writes to the run store is the verdicts people
    give in its review pages (/review/RUN), each a POST checked for this viewer's Host, Origin
    and session token. Ctrl-C stops it.
    """
    import webbrowser

    from proctor.cli.console import SafeConsole
    from proctor.errors import ProctorError
    from proctor.viewer import ViewerServer

    if not (results_dir / "proctor.db").exists():
        raise ProctorError(f"no run store in {results_dir} (use --results-dir)")
    try:
        server = ViewerServer(results_dir, port)
    except OSError as e:
        raise ProctorError(f"cannot listen on 127.0.0.1:{port}: {e.strerror or e}") from e
    console = SafeConsole()
    console.print(f"proctor view: {server.url}  (results {results_dir}; Ctrl-C stops)")
    if open_browser:
        webbrowser.open(server.url)
    server.boards.read_ahead()  # the folder's leaderboard, read before anyone asks for it
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        console.print("proctor view: stopped")
    finally:
        server.server_close()
