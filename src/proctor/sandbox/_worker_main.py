"""The helper side of `BoundedWorker`: import the target, then answer one JSON line per request."""

from __future__ import annotations

import importlib
import json
import os
import sys


def main() -> None:
    module_name, _, function_name = sys.argv[1].partition(":")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    sys.stdout = sys.stderr  # whatever the target prints must not corrupt the replies
    function = getattr(importlib.import_module(module_name), function_name)
    replies.write("ready\n")
    for line in sys.stdin:
        try:
            reply = {"value": function(json.loads(line))}
        except Exception as e:
            reply = {"error": f"{type(e).__name__}: {e}"}
        replies.write(json.dumps(reply) + "\n")


if __name__ == "__main__":
    main()
