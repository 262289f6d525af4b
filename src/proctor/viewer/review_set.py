"""Review over an eval set (issue 32 on issue 29's sets): one queue across the set's runs.

    GET /review/set/<set>?reviewer=&task=&kind=&model=&outcome=&unsure=1
                        the next reply this reviewer has not reviewed, over all the set's runs
                        in the set's order, with how much of each task's queue is reviewed

The item shown is one run's, built by `proctor.viewer.review` as on that run's own review page;
its form posts to that run's `/review/<run>/verdict` (the one write path, with all its checks)
and returns here. `/review/set/…` never collides with a run: run ids are never "set"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import quote, urlencode

from proctor.report.html.review_page import SetScope, SetTaskProgress, review_html, start_html
from proctor.runs.sets import set_runs
from proctor.store import RunStore
from proctor.types import GradedItem
from proctor.viewer.review import FILTERS, card_of, progress

SET_FILTERS = ("task", *FILTERS)


def set_review_href(set_id: str, **query: str) -> str:
    kept = {k: v for k, v in query.items() if v}
    base = "/review/set/" + quote(set_id, safe="")
    return base + (f"?{urlencode(kept)}" if kept else "")


def set_page(store: RunStore, ref: str, rest: Sequence[str], query: Mapping[str, list[str]],
             token: str) -> str:  # fmt: skip
    """The HTML of a set's review queue (`rest`: the path after /review/set/<set>, empty)."""
    if rest:
        raise LookupError(f"no set review page at {'/'.join(rest)}")
    set_id, runs = set_runs(store, ref)
    reviewer = (query.get("reviewer") or [""])[0].strip()
    if not reviewer:
        return start_html(set_id, set_review_href(set_id), scope="set")
    filters = {name: (query.get(name) or [""])[0].strip() for name in SET_FILTERS}
    rows: list[SetTaskProgress] = []
    shown: tuple[str, str, GradedItem] | None = None
    reviewed = total = 0
    for task, run_id in runs:
        items, pending = progress(store, run_id, reviewer, filters)
        href = set_review_href(set_id, reviewer=reviewer, **{**filters, "task": task})
        rows.append(SetTaskProgress(task, run_id, len(items) - len(pending), len(items), href))
        if filters["task"] and task != filters["task"]:
            continue
        reviewed, total = reviewed + len(items) - len(pending), total + len(items)
        if shown is None and pending:
            shown = (task, run_id, pending[0])
    back = set_review_href(set_id, reviewer=reviewer, **filters)
    scope = SetScope(set_id, shown[0] if shown else "", tuple(rows))
    return review_html(
        shown[1] if shown else "", reviewer, card_of(shown[2]) if shown else None, token=token,
        back=back, reviewed=reviewed, total=total, filters=filters, blind=False, in_set=scope,
    )  # fmt: skip
