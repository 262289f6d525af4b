"""`python -m proctor.replay --replies FILE [--model NAME] [--port 0]`: serve until SIGINT or
SIGTERM. The first line on stdout is the base URL, printed once the server accepts requests."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType

from proctor.replay.replies import Replies, load_replies
from proctor.replay.server import serve_replies


def parse_args(argv: list[str] | None = None) -> tuple[Replies, str, int]:
    """The replies, the model name and the port; exit 2 with a usage line when they are bad."""
    p = argparse.ArgumentParser(
        prog="python -m proctor.replay",
        description="Replay recorded replies as an OpenAI-compatible server on 127.0.0.1.",
    )
    p.add_argument(
        "--replies",
        required=True,
        metavar="FILE",
        help="JSON file {marker: reply}: answer each prompt with the reply of the longest marker "
        "its last user message contains",
    )
    p.add_argument("--model", default="proctor-replay", help="model name in replies")
    p.add_argument("--port", type=int, default=0, help="port (0: any free one; default 0)")
    a = p.parse_args(argv)
    try:
        replies = load_replies(a.replies)
    except ValueError as e:
        p.error(str(e))
    return replies, str(a.model), int(a.port)


def main(argv: list[str] | None = None) -> None:
    replies, model, port = parse_args(argv)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    with serve_replies(replies, model, port) as server:
        print(server.base_url, flush=True)
        while not stop.wait(1.0):
            pass
    sys.stdout.flush()


if __name__ == "__main__":
    main()
