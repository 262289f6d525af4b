"""Review in the viewer: people grade a run's replies where they see them (issue 32).

    GET  /review/<run>?reviewer=&kind=&model=&outcome=&unsure=1
                                  the next reply of the queue this reviewer has not reviewed
    GET  /review/<run>/regrade?reviewer=&n=5&seed=0
                                  a seeded sample of the reviewer's old items, blind to the
                                  verdict they gave (drift)
    GET  /review/<run>/side/<id>?reviewer=
                                  every model's reply to one item, names hidden, in an order
                                  shuffled per reviewer (seeded)
    GET  /review/<run>/drift      reviewers' agreement with their own re-grades and each other
    POST /review/<run>/verdict    one verdict (the only state change the viewer makes)

A POST is taken only with the server's session token and from its own origin (the server checks
Host and Origin before it reads a POST); the verdict is stored only when the content hash it
carries is the stored reply's (checked again in the writing transaction), so a verdict is never
given on a reply its reviewer was not shown. Nothing else here writes."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote, urlencode

from proctor.errors import StoreError
from proctor.report.html.review_page import (
    Card,
    drift_html,
    review_html,
    side_html,
    start_html,
)
from proctor.runs.grade import stored_items
from proctor.runs.report import human_verdicts
from proctor.stats.drift import drift
from proctor.store import RunStore
from proctor.store.human_verdicts import HUMAN_VERDICTS, HumanVerdict, reply_hash
from proctor.store.tables import now
from proctor.types import GradedItem

FILTERS = ("kind", "model", "outcome", "unsure")
MAX_NOTE = 4000
MAX_REVIEWER = 80


class Refused(Exception):
    """A POST that is not taken: its HTTP status and why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Form:
    """A POST's fields, first value of each."""

    fields: Mapping[str, str]

    def get(self, name: str, default: str = "") -> str:
        return self.fields.get(name, default)


def review_href(run_id: str, tail: str = "", **query: str | int) -> str:
    kept = {k: v for k, v in query.items() if v not in ("", None)}
    base = "/review/" + quote(run_id, safe="") + (f"/{tail}" if tail else "")
    return base + (f"?{urlencode(kept)}" if kept else "")


def _one(query: Mapping[str, list[str]], name: str) -> str:
    return (query.get(name) or [""])[0].strip()


def _unsure(store: RunStore, run_id: str) -> set[tuple[str, str, int]]:
    """Replies a judge left undecided (no valid verdict)."""
    return {
        (j.model, j.sample_id, j.epoch)
        for j in store.judgements(run_id)
        if j.status == "unscored" and j.ordering == "single"
    }


def _key(item: GradedItem) -> tuple[str, str, int]:
    return (item.record.model, item.sample.id, item.record.epoch)


def queue(store: RunStore, run_id: str, filters: Mapping[str, str]) -> list[GradedItem]:
    """The run's answered replies that pass the filters, in the run's order."""
    items = [i for i in stored_items(store, run_id) if i.record.status == "ok"]
    unsure = _unsure(store, run_id) if filters.get("unsure") else set()
    out = []
    for item in items:
        if filters.get("kind") and item.sample.category != filters["kind"]:
            continue
        if filters.get("model") and item.record.model != filters["model"]:
            continue
        if filters.get("outcome") and item.score.outcome != filters["outcome"]:
            continue
        if filters.get("unsure") and not (item.score.outcome == "unscored" or _key(item) in unsure):
            continue
        out.append(item)
    return out


def progress(
    store: RunStore, run_id: str, reviewer: str, filters: Mapping[str, str]
) -> tuple[list[GradedItem], list[GradedItem]]:
    """The run's queue under the filters, and the part of it `reviewer` has not reviewed."""
    items = queue(store, run_id, filters)
    done = {v.key for v in store.human_verdicts(run_id) if v.reviewer == reviewer and not v.blind}
    return items, [i for i in items if _key(i) not in done]


def card_of(item: GradedItem, slot: int | None = None) -> Card:
    return Card(
        model="" if slot is not None else item.record.model,
        slot=slot,
        sample_id=item.sample.id,
        epoch=item.record.epoch,
        kind=item.sample.category,
        material=str(item.sample.metadata.get("material", "")),
        question=str(item.sample.metadata.get("question", "")) or item.sample.input,
        reference=str(item.sample.metadata.get("reference", "")) or item.sample.target,
        reply=item.record.text,
        reply_hash=reply_hash(item.record.text),
        outcome=item.score.outcome,
        rule=item.score.rule,
        explanation=item.score.explanation,
    )


def page(store: RunStore, run_id: str, rest: Sequence[str], query: Mapping[str, list[str]],
         token: str) -> str:  # fmt: skip
    """The HTML of a review page (`rest`: the path after /review/<run>)."""
    reviewer = _one(query, "reviewer")
    if rest == ["drift"]:
        items = stored_items(store, run_id)
        kinds = {i.sample.id: i.sample.category for i in items}
        return drift_html(run_id, drift(human_verdicts(store, run_id), kinds))
    if not reviewer:
        return start_html(run_id, review_href(run_id))
    if len(rest) == 2 and rest[0] == "side":
        return _side(store, run_id, rest[1], reviewer, token)
    if rest == ["regrade"]:
        return _regrade(store, run_id, reviewer, query, token)
    if rest:
        raise LookupError(f"no review page at {'/'.join(rest)}")
    filters = {name: _one(query, name) for name in FILTERS}
    items, pending = progress(store, run_id, reviewer, filters)
    back = review_href(run_id, reviewer=reviewer, **filters)
    return review_html(
        run_id, reviewer, card_of(pending[0]) if pending else None, token=token, back=back,
        reviewed=len(items) - len(pending), total=len(items), filters=filters, blind=False,
    )  # fmt: skip


def regrade_sample(
    verdicts: Sequence[HumanVerdict], reviewer: str, n: int, seed: int
) -> list[tuple[str, str, int]]:
    """The reviewer's decided (non-skip, not blind) items, shuffled by `seed`, first `n`: the
    same sample at every request."""
    mine = sorted(
        {v.key for v in verdicts if v.reviewer == reviewer and not v.blind and v.verdict != "skip"}
    )
    random.Random(f"regrade\x00{reviewer}\x00{seed}").shuffle(mine)
    return mine[:n]


def _regrade(store: RunStore, run_id: str, reviewer: str, query: Mapping[str, list[str]],
             token: str) -> str:  # fmt: skip
    n_text, seed_text = _one(query, "n") or "5", _one(query, "seed") or "0"
    if not n_text.isdigit() or not seed_text.isdigit():
        raise ValueError("regrade needs a whole number n and seed")
    verdicts = store.human_verdicts(run_id)
    chosen = regrade_sample(verdicts, reviewer, int(n_text), int(seed_text))
    last_plain: dict[tuple[str, str, int], int] = {}
    last_blind: dict[tuple[str, str, int], int] = {}
    for i, v in enumerate(verdicts):
        if v.reviewer == reviewer:
            (last_blind if v.blind else last_plain)[v.key] = i
    pending = [k for k in chosen if last_blind.get(k, -1) < last_plain.get(k, -1)]
    by_key = {_key(i): i for i in stored_items(store, run_id)}
    item = by_key.get(pending[0]) if pending else None
    back = review_href(run_id, "regrade", reviewer=reviewer, n=n_text, seed=seed_text)
    return review_html(
        run_id, reviewer, None if item is None else card_of(item), token=token, back=back,
        reviewed=len(chosen) - len(pending), total=len(chosen), filters={}, blind=True,
    )  # fmt: skip


def side_order(items: Sequence[GradedItem], reviewer: str) -> list[GradedItem]:
    """One item's replies in an order shuffled per reviewer and item (seeded by their names: the
    same at every request and in every run, another for another reviewer)."""
    ordered = sorted(items, key=lambda i: (i.record.model, i.record.epoch))
    random.Random(f"side\x00{reviewer}\x00{ordered[0].sample.id}").shuffle(ordered)
    return ordered


def _replies_of(store: RunStore, run_id: str, sample_id: str) -> list[GradedItem]:
    items = [
        i for i in stored_items(store, run_id)
        if i.sample.id == sample_id and i.record.status == "ok" and i.record.epoch == 0
    ]  # fmt: skip
    if not items:
        raise LookupError(f"run {run_id} has no answered item '{sample_id}'")
    return items


def _side(store: RunStore, run_id: str, sample_id: str, reviewer: str, token: str) -> str:
    ordered = side_order(_replies_of(store, run_id, sample_id), reviewer)
    back = review_href(run_id, "side/" + quote(sample_id, safe=""), reviewer=reviewer)
    mine = {v.key: v.verdict for v in store.human_verdicts(run_id) if v.reviewer == reviewer}
    cards = [card_of(item, slot) for slot, item in enumerate(ordered, start=1)]
    given = [mine.get(_key(item), "") for item in ordered]
    return side_html(run_id, reviewer, cards, given, token=token, back=back)


def _own_return(back: str, run_id: str) -> bool:
    """A form may return only to this run's review pages or to a set's review queue (a path on
    this viewer: no scheme, no other host, no control characters)."""
    own = back.startswith((f"/review/{quote(run_id, safe='')}", "/review/set/"))
    return own and "//" not in back and "\\" not in back and back.isprintable()


def take_verdict(store: RunStore, run_id: str, form: Form, token: str) -> str:
    """Store the verdict a review form posted; where to go next. Refused (nothing stored) on a
    wrong token, a bad field, or a content hash that is not the stored reply's."""
    if not token or form.get("token") != token:
        raise Refused(403, "refused: the form's session token is missing or wrong")
    reviewer = form.get("reviewer").strip()
    verdict = form.get("verdict")
    note = form.get("note")
    if not reviewer or len(reviewer) > MAX_REVIEWER:
        raise Refused(400, "a verdict needs a reviewer's name (up to 80 characters)")
    if verdict not in HUMAN_VERDICTS or len(note) > MAX_NOTE:
        raise Refused(400, "a verdict is correct, wrong or skip, with a note of up to 4000")
    sample_id, epoch_text = form.get("sample"), form.get("epoch", "0")
    if not epoch_text.isdigit():
        raise Refused(400, "bad epoch")
    model = form.get("model")
    slot = form.get("slot")
    if slot:
        ordered = side_order(_replies_of(store, run_id, sample_id), reviewer)
        if not slot.isdigit() or not 1 <= int(slot) <= len(ordered):
            raise Refused(400, "bad slot")
        model = ordered[int(slot) - 1].record.model
    back = form.get("back")
    if not _own_return(back, run_id):
        raise Refused(400, "bad return address")
    given = HumanVerdict(
        run_id=run_id, model=model, sample_id=sample_id, epoch=int(epoch_text),
        reviewer=reviewer, verdict=verdict, note=note,
        reply_hash=form.get("reply_hash"), blind=form.get("blind") == "1", reviewed_at=now(),
    )  # fmt: skip
    try:
        store.add_human_verdicts(run_id, [given])
    except StoreError as e:
        raise Refused(409, f"refused, nothing stored: {e}") from e
    return back
