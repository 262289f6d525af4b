"""Whether a process still runs: how a leftover file or folder named after its writer's pid is
told apart from one a live process still uses."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """Whether process `pid` exists (it may be another user's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True
