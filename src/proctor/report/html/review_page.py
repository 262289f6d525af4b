"""The review pages of `proctor view` (issue 32): one reply to grade, several replies blind side
by side, and reviewers' agreement. Pure: plain values in, HTML out; every model text is escaped.
Each form carries the session token and the content hash of the reply it shows; the keys c, w,
s and n (correct, wrong, skip, note) are the page script's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from markupsafe import Markup

from proctor.report.html.page import render
from proctor.report.sections import agreement_text
from proctor.stats.drift import Drift

_DATA = Markup('{"review": true}')
_REFERRER = "same-origin"
"""Not the other pages' no-referrer: under it a browser posts a form with `Origin: null`, and
the viewer takes a verdict only from its own Origin."""
"""The page script is included with a data block; review pages need none but this mark."""


@dataclass(frozen=True)
class Card:
    """One reply as a reviewer sees it."""

    model: str
    """"" when shown blind."""
    slot: int | None
    """Its place in a blind side-by-side (1, 2, …); None when shown alone."""
    sample_id: str
    epoch: int
    kind: str
    material: str
    question: str
    reference: str
    reply: str
    reply_hash: str
    outcome: str
    rule: str
    explanation: str


@dataclass(frozen=True)
class SetTaskProgress:
    """One task of a set under review: its run and how much of its queue is reviewed."""

    task: str
    run_id: str
    reviewed: int
    total: int
    href: str
    """The set's queue narrowed to this task."""


@dataclass(frozen=True)
class SetScope:
    """A review page shown as part of a set's queue (the card is still one run's item)."""

    set_id: str
    task: str
    """The shown item's task ("" when the queue is done)."""
    tasks: tuple[SetTaskProgress, ...]


def start_html(run_id: str, action: str, scope: str = "run") -> str:
    """Asks the reviewer's name (a GET form: it changes nothing)."""
    return render("review_start.html.j2", title=f"proctor · review {run_id}", viewer=True,
                  run_id=run_id, action=action, scope=scope)  # fmt: skip


def review_html(
    run_id: str,
    reviewer: str,
    card: Card | None,
    *,
    token: str,
    back: str,
    reviewed: int,
    total: int,
    filters: Mapping[str, str],
    blind: bool,
    in_set: SetScope | None = None,
) -> str:
    """One reply to grade (None: the queue is done), with the queue's progress; `in_set`: the
    queue is a set's, over its runs (`run_id` is the shown item's run, its verdict's address)."""
    return render(
        "review.html.j2", title=f"proctor · review {in_set.set_id if in_set else run_id}",
        viewer=True, data=_DATA, referrer=_REFERRER,
        run_id=run_id, reviewer=reviewer, card=card, token=token, back=back, reviewed=reviewed,
        total=total, filters=filters, blind=blind, in_set=in_set,
    )  # fmt: skip


def side_html(
    run_id: str,
    reviewer: str,
    cards: Sequence[Card],
    given: Sequence[str],
    *,
    token: str,
    back: str,
) -> str:
    """Several models' replies to one item, names hidden, each with its own verdict form."""
    return render(
        "review_side.html.j2", title=f"proctor · blind review {run_id}", viewer=True,
        referrer=_REFERRER,
        run_id=run_id, reviewer=reviewer, cards=list(zip(cards, given, strict=True)),
        first=cards[0], token=token, back=back,
    )  # fmt: skip


def drift_html(run_id: str, drift: Drift) -> str:
    """Each reviewer's agreement with their own blind re-grades; each pair's with each other."""
    rows = [
        {"who": r.who, "scope": r.scope, "n": r.result.n, "text": agreement_text(r.result),
         "kind": kind}
        for kind, group in (("self", drift.self_agreement), ("inter", drift.inter_rater))
        for r in group
    ]  # fmt: skip
    return render("review_drift.html.j2", title=f"proctor · drift {run_id}", viewer=True,
                  run_id=run_id, rows=rows)  # fmt: skip
