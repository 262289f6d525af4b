"""Run by test_nonroot.py as an unprivileged user (nobody), with a system Python: what
the sandbox gives without root. Prints one JSON document."""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, sys.argv[1])

from proctor.sandbox import Limits, detect, isolation_report, run_python

TREE_BOMB = """
import os, time
for _ in range(4):
    if os.fork() == 0:
        block = bytearray(400 << 20)
        for i in range(0, len(block), 4096):
            block[i] = 1
        time.sleep(30)
        os._exit(0)
time.sleep(30)
"""
FORK_BOMB = (
    "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
)

limits = Limits(wall_s=8.0)
report = isolation_report()
runs = {}
for name, source in (
    ("plain", "print('hello')"),
    ("tree_bomb", TREE_BOMB),
    ("fork_bomb", FORK_BOMB),
):
    r = run_python(source, limits)
    runs[name] = {"status": r.status, "detail": r.detail, "peak": r.peak_memory_bytes}
print(
    json.dumps(
        {
            "uid": os.getuid(),
            "mode": detect().mode,
            "facts": report.facts,
            "lines": report.lines(),
            "cgroups": report.cgroups,
            "runs": runs,
        }
    )
)
