"""Pure: accuracy on original items against their perturbed variants (see
`proctor.datasets.perturb`), per model and kind of perturbation.

Only pairs where both the original and the variant were graded (not `call_failed`, not
`unscored`) count; the drop is original accuracy − perturbed accuracy over those pairs, and
`flipped` lists the originals answered right whose variant was not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from proctor.types import GradedItem

_UNGRADED = ("call_failed", "unscored")


@dataclass(frozen=True)
class PerturbationDrop:
    model: str
    kind: str
    pairs: int
    original_accuracy: float
    perturbed_accuracy: float
    flipped: tuple[str, ...]

    @property
    def drop(self) -> float:
        return self.original_accuracy - self.perturbed_accuracy


def accuracy_drop(items: Sequence[GradedItem]) -> list[PerturbationDrop]:
    originals = {
        (it.record.model, it.sample.id, it.record.epoch): it
        for it in items
        if "perturbed_from" not in it.sample.metadata
    }
    tally: dict[tuple[str, str], list[tuple[bool, bool, str]]] = {}
    for it in items:
        source = it.sample.metadata.get("perturbed_from")
        if source is None:
            continue
        orig = originals.get((it.record.model, source, it.record.epoch))
        if orig is None or orig.score.outcome in _UNGRADED or it.score.outcome in _UNGRADED:
            continue
        kind = it.sample.metadata.get("perturbation", "?")
        tally.setdefault((it.record.model, kind), []).append(
            (orig.score.outcome == "correct", it.score.outcome == "correct", source)
        )
    out = []
    for (model, kind), rows in sorted(tally.items()):
        n = len(rows)
        out.append(
            PerturbationDrop(
                model=model,
                kind=kind,
                pairs=n,
                original_accuracy=sum(o for o, _, _ in rows) / n,
                perturbed_accuracy=sum(p for _, p, _ in rows) / n,
                flipped=tuple(src for o, p, src in rows if o and not p),
            )
        )
    return out
