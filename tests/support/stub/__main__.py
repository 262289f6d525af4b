"""`python -m support.stub` (tests/ on PYTHONPATH): serve a stub until SIGINT or SIGTERM.

The first line on stdout is the base URL ("http://127.0.0.1:PORT/v1"), printed once the server
accepts requests, so a parent process can read it and go."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from support.stub.batches import BatchFaults, BatchStubApp
from support.stub.config import ALL_FAULTS, ANSWER_MODES, DEFAULT_FAULTS, AnyFault, StubConfig
from support.stub.server import run_stub


def parse_args(argv: list[str] | None = None) -> tuple[StubConfig, int]:
    config, port, _ = parse_all(argv)
    return config, port


def parse_all(argv: list[str] | None = None) -> tuple[StubConfig, int, BatchFaults | None]:
    """The stub's config, its port, and its batch APIs' faults (None: no batch APIs)."""
    p = argparse.ArgumentParser(
        prog="python -m support.stub",
        description="An OpenAI-compatible stub server on 127.0.0.1 for tests and benchmarks.",
    )
    p.add_argument("--port", type=int, default=0, help="port (0: any free one; default 0)")
    p.add_argument("--seed", type=int, default=0, help="seed of every decision (default 0)")
    p.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    p.add_argument(
        "--mode",
        default="correct",
        help=f"answer mode: {', '.join(ANSWER_MODES)} (default correct)",
    )
    p.add_argument("--correct-rate", type=float, default=1.0, help="share answered correctly")
    p.add_argument("--fault-rate", type=float, default=0.0, help="share of requests faulted")
    p.add_argument(
        "--faults",
        default=",".join(DEFAULT_FAULTS),
        help=f"comma-separated fault kinds of {', '.join(ALL_FAULTS)} (default: the transport "
        "faults but hang)",
    )
    p.add_argument("--hang", type=float, default=30.0, help="seconds a 'hang' fault lasts")
    p.add_argument("--max-faults-per-body", type=int, default=None)
    p.add_argument(
        "--refuse-tools", action="store_true", help="answer requests offering tools with 400"
    )
    p.add_argument("--huge-bytes", type=int, default=100 * 1024 * 1024, help="size of 'huge'")
    p.add_argument(
        "--bomb-bytes", type=int, default=512 * 1024 * 1024, help="inflated size of 'gzip_bomb'"
    )
    p.add_argument("--model", default="proctor-stub", help="model name in replies")
    p.add_argument(
        "--api-key-env",
        default=None,
        metavar="VAR",
        help="answer 401 to requests without the key held in this environment variable",
    )
    p.add_argument(
        "--replies",
        default=None,
        help="JSON file {marker: reply}: answer each prompt with the reply of the longest marker "
        "its last user message contains (sets --mode script)",
    )
    p.add_argument(
        "--batches",
        action="store_true",
        help="serve OpenAI's Batch API and Anthropic's Message Batches too (support.stub.batches)",
    )
    p.add_argument("--batch-end-after", type=float, default=0.5, help="seconds a batch takes")
    p.add_argument(
        "--batch-error-rate", type=float, default=0.0, help="share of batch requests errored"
    )
    p.add_argument("--batch-expire", action="store_true", help="batches expire half done")
    a = p.parse_args(argv)
    kinds = [k.strip() for k in a.faults.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in ALL_FAULTS]
    if unknown:
        p.error(f"unknown fault kinds {unknown}: use {', '.join(ALL_FAULTS)}")
    by_name: dict[str, AnyFault] = {k: k for k in ALL_FAULTS}
    faults = tuple(dict.fromkeys(by_name[k] for k in kinds))  # order matters: it is seeded
    try:
        config = StubConfig(
            seed=a.seed,
            latency_s=a.latency,
            answer_mode="script" if a.replies else a.mode,
            correct_rate=a.correct_rate,
            fault_rate=a.fault_rate,
            faults=faults,
            model=a.model,
            hang_s=a.hang,
            max_faults_per_body=a.max_faults_per_body,
            api_key=_key_from(p, a.api_key_env),
            huge_bytes=a.huge_bytes,
            bomb_bytes=a.bomb_bytes,
            refuse_tools=a.refuse_tools,
            replies=_replies(a.replies) if a.replies else (),
        )
    except ValueError as e:
        p.error(str(e))
    batches = None
    if a.batches:
        batches = BatchFaults(a.batch_end_after, a.batch_error_rate, a.batch_expire)
    return config, int(a.port), batches


def _key_from(p: argparse.ArgumentParser, var: str | None) -> str | None:
    """The key to require, read from an environment variable: a key on a command line is seen
    by every process on the machine."""
    if var is None:
        return None
    value = os.environ.get(var)
    if not value:
        p.error(f"--api-key-env {var}: {var} is not set")
    return value


def _replies(path: str) -> tuple[tuple[str, str], ...]:
    try:
        table = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"--replies {path}: {e}") from None
    if not isinstance(table, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in table.items()
    ):
        raise ValueError(f"--replies {path}: must be a JSON object of strings")
    return tuple(table.items())


def main(argv: list[str] | None = None) -> None:
    config, port, batches = parse_all(argv)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    app = None if batches is None else BatchStubApp(config, batches)
    with run_stub(config, port=port, app=app) as stub:
        print(stub.base_url, flush=True)
        while not stop.wait(1.0):
            pass
    sys.stdout.flush()


if __name__ == "__main__":
    main()
