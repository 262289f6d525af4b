"""An OpenAI-compatible stub server of our own, for integration tests and benchmarks.

    with run_stub(StubConfig(latency_s=0.05, fault_rate=0.2)) as stub:
        ...  # point proctor at stub.base_url ("http://127.0.0.1:PORT/v1")
        stub.stats().requests

or, in another process: `python -m support.stub --port 0 --fault-rate 0.2` with tests/ on
PYTHONPATH (`stub_command` and `stub_env`; it prints the base URL on its first line). It
answers arithmetic prompts exactly (or wrongly, or by echo, on request) and injects faults
deterministically from a seed: 429, 5xx, connection resets, hangs and malformed bodies (see
`FaultKind`), and, asked by name, the hostile replies of `ReplyFault` (lone surrogates, absurd
token counts, bodies nested 100,000 deep, 100 MiB bodies, gzip bombs, endless bodies, markup
and terminal escapes, echoed keys). It listens on 127.0.0.1
only.

A test server, no part of the product: it lives in tests/support (issue 28), nothing in proctor
imports it, and it needs uvicorn (the dev extra). Users replay recorded replies with
`python -m proctor.replay`.
"""

from support.stub.app import (
    NO_CREDENTIAL,
    StubApp,
    StubStats,
    body_key,
    credential_key,
    fault_for,
    prompt_key,
)
from support.stub.config import (
    ALL_FAULTS,
    DEFAULT_FAULTS,
    FAULT_KINDS,
    REPLY_FAULTS,
    AnyFault,
    FaultKind,
    ReplyFault,
    StubConfig,
)
from support.stub.process import stub_command, stub_env
from support.stub.server import StubHandle, fetch_stats, run_stub

__all__ = [
    "ALL_FAULTS",
    "DEFAULT_FAULTS",
    "FAULT_KINDS",
    "NO_CREDENTIAL",
    "REPLY_FAULTS",
    "AnyFault",
    "FaultKind",
    "ReplyFault",
    "StubApp",
    "StubConfig",
    "StubHandle",
    "StubStats",
    "body_key",
    "credential_key",
    "fault_for",
    "fetch_stats",
    "prompt_key",
    "run_stub",
    "stub_command",
    "stub_env",
]
