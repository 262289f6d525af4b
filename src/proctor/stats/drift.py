"""How far a team can trust its own labels: a reviewer's agreement with their own earlier
verdicts when they re-grade blind (drift), and two reviewers' agreement on the same replies.

    self-agreement   each blind re-grade set beside the same reviewer's latest verdict given
                     before it, not blind, on the same reply; per kind and per day of re-grade
    inter-rater      each pair of reviewers, on the replies both decided (their latest verdicts
                     not given blind)

A "skip" is no verdict: a pair with one on either side is left out. Agreement, Cohen's kappa and
its seeded interval come from `proctor.stats.agreement` (the one place kappa is computed). Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from proctor.stats.agreement import Agreement, agreement
from proctor.stats.reviews import GivenVerdict

POSITIVE = "correct"


@dataclass(frozen=True)
class AgreementRow:
    who: str
    """The reviewer (self-agreement) or "A × B" (inter-rater)."""
    scope: str
    """"all", "kind K", or "day YYYY-MM-DD" (of the re-grade)."""
    result: Agreement


@dataclass(frozen=True)
class Drift:
    self_agreement: tuple[AgreementRow, ...]
    inter_rater: tuple[AgreementRow, ...]

    @property
    def empty(self) -> bool:
        return not self.self_agreement and not self.inter_rater


Pair = tuple[str, str, str, str]
"""(earlier verdict, blind verdict, kind, day)."""


def self_pairs(verdicts: Sequence[GivenVerdict], kinds: Mapping[str, str]) -> dict[str, list[Pair]]:
    """reviewer → their (earlier, blind re-grade) pairs, in stored order. `kinds`: sample id →
    kind."""
    earlier: dict[tuple[str, str, int, str], str] = {}
    out: dict[str, list[Pair]] = {}
    for v in verdicts:
        key = (v.model, v.sample_id, v.epoch, v.reviewer)
        if not v.blind:
            earlier[key] = v.verdict
            continue
        before = earlier.get(key)
        if before is None or "skip" in (before, v.verdict):
            continue
        day = v.reviewed_at[:10]
        out.setdefault(v.reviewer, []).append((before, v.verdict, kinds.get(v.sample_id, ""), day))
    return out


def inter_pairs(verdicts: Sequence[GivenVerdict]) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(reviewer A, reviewer B) → their (A's, B's) latest non-blind decided verdicts on the
    replies both decided."""
    latest: dict[str, dict[tuple[str, str, int], str]] = {}
    for v in verdicts:
        if not v.blind:
            latest.setdefault(v.reviewer, {})[v.key] = v.verdict
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for a, b in combinations(sorted(latest), 2):
        pairs = [
            (latest[a][k], latest[b][k])
            for k in latest[a]
            if k in latest[b] and "skip" not in (latest[a][k], latest[b][k])
        ]
        if pairs:
            out[(a, b)] = pairs
    return out


def drift(verdicts: Sequence[GivenVerdict], kinds: Mapping[str, str], *, seed: int = 0) -> Drift:
    rows: list[AgreementRow] = []
    for reviewer, pairs in self_pairs(verdicts, kinds).items():
        rows.append(AgreementRow(reviewer, "all", _agree([(a, b) for a, b, _, _ in pairs], seed)))
        for kind in sorted({k for _, _, k, _ in pairs if k}):
            mine = [(a, b) for a, b, k, _ in pairs if k == kind]
            rows.append(AgreementRow(reviewer, f"kind {kind}", _agree(mine, seed)))
        days = sorted({d for _, _, _, d in pairs})
        if len(days) > 1:
            for day in days:
                mine = [(a, b) for a, b, _, d in pairs if d == day]
                rows.append(AgreementRow(reviewer, f"day {day}", _agree(mine, seed)))
    inter = tuple(
        AgreementRow(f"{a} × {b}", "all", _agree(pairs, seed))
        for (a, b), pairs in inter_pairs(verdicts).items()
    )
    return Drift(tuple(rows), inter)


def _agree(pairs: Sequence[tuple[str, str]], seed: int) -> Agreement:
    return agreement(pairs, POSITIVE, seed=seed)
