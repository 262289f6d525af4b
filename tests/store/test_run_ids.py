from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from proctor.store import new_run_id


def test_run_id_reads_and_sorts_by_utc_time() -> None:
    later = datetime(2026, 11, 29, 22, 15, 0, tzinfo=timezone(timedelta(hours=1)))
    rid = new_run_id("Arithmetic", later)
    assert re.fullmatch(r"20261129-211500-arithmetic-[0-9a-f]{6}", rid)
    earlier = new_run_id("zzz", datetime(2026, 11, 29, 21, 14, 59, tzinfo=UTC))
    assert earlier < rid
    assert new_run_id("x", later) != new_run_id("x", later)


def test_task_becomes_a_slug() -> None:
    naive = datetime(2026, 1, 2, 3, 4, 5)
    assert new_run_id("MATH-500 / level 5", naive).startswith("20260102-030405-math-500-level-5-")
    assert new_run_id("算术", naive).startswith("20260102-030405-run-")
    assert re.fullmatch(r"\d{8}-\d{6}-[a-z0-9-]+-[0-9a-f]{6}", new_run_id("t"))
