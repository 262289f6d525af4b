"""Run ids that sort by time and read like what they are: `20261129-211500-arithmetic-3fa9c2`."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime

_NOT_SLUG = re.compile(r"[^a-z0-9]+")
_MAX_SLUG = 40


def task_slug(task: str) -> str:
    if ".py:" in task:  # a task in the user's file, PATH.py:NAME: its NAME says what it is
        task = task.rpartition(":")[2]
    slug = _NOT_SLUG.sub("-", task.lower()).strip("-")[:_MAX_SLUG].strip("-")
    return slug or "run"


def new_run_id(task: str, now: datetime | None = None) -> str:
    """A fresh run id: UTC time to the second, the task as a slug, and 6 random hex digits.

    A naive `now` is taken to be UTC already.
    """
    moment = datetime.now(UTC) if now is None else now
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return f"{moment:%Y%m%d-%H%M%S}-{task_slug(task)}-{secrets.token_hex(3)}"
