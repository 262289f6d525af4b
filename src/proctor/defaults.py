"""Defaults that the CLI shows in its help and the rooms below use, in a module that imports
nothing: `proctor --help` reads them without importing the rooms (executors, calling, aiohttp)."""

DEFAULT_MAX_FAILURES = 25
"""Failed attempts in a row after which a model is stopped (`--max-failures`): the one default
of the CLI, `RunPlan` and `AskSettings` (the README says it; a test checks)."""
