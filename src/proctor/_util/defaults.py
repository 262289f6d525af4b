"""Defaults that the CLI shows in its help and the rooms below use, in a module that imports
nothing: `proctor --help` reads them without importing the rooms (executors, calling, aiohttp)."""

from pathlib import Path

DEFAULT_RESULTS = Path("proctor-results")
"""Where every command keeps its run store and files unless `--results` says otherwise."""

DEFAULT_MAX_FAILURES = 25
"""Failed attempts in a row after which a model is stopped (`--max-failures`): the one default
of the CLI, `RunPlan` and `AskSettings` (the README says it; a test checks)."""

DEFAULT_MAX_REPLY_BYTES = 4 * 1024 * 1024
"""The largest reply accepted (compressed on the wire and decompressed): a chat reply of
max_tokens tokens is far smaller; a bigger one is a broken or hostile server."""
