"""The summary scorer: a checklist of points the reply must make, and points it must not.

A point is a list of synonyms; it is present when any one of them occurs in the reply (phrase
matching of `proctor.extract.phrases`: width, case and spacing folded, whole words for English).
What a checklist cannot see — a point stated and then denied, a wrong emphasis — is left to the
judge. `normalized` records which points were found, so repeated replies that make the same
points read the same (consistency).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from proctor.extract.phrases import first_phrase
from proctor.types import FinishReason, Score

RULES: dict[str, str] = {
    "points_missing": "Every required point must appear in the reply (any one of its synonyms).",
    "forbidden_point": "No forbidden point (e.g. a claim the material does not support) may"
    " appear in the reply.",
    "truncated_summary": "The reply hit max_tokens before it made every required point.",
    "points_present": "Every required point appears and no forbidden one does.",
}

Point = Sequence[str]
"""One point: its synonyms; any one of them counts."""


def _label(point: Point) -> str:
    return " | ".join(point)


@dataclass(frozen=True)
class RequiredPoints:
    """Every required point must appear in the reply (any one of its synonyms) and no forbidden
    point may."""

    required: Sequence[Point]
    forbidden: Sequence[Point] = ()

    def __call__(self, text: str, finish_reason: FinishReason) -> Score:
        found = [first_phrase(text, point) for point in self.required]
        missing = [p for p, hit in zip(self.required, found, strict=True) if hit is None]
        banned = [(p, hit) for p in self.forbidden if (hit := first_phrase(text, p)) is not None]
        hits = [str(i + 1) for i, hit in enumerate(found) if hit is not None]
        reading = "points " + (",".join(hits) or "none")
        if banned:
            reading += " forbidden " + ",".join(hit for _, hit in banned)
        summary = f"{len(self.required) - len(missing)}/{len(self.required)} required points"
        rules: list[str] = []
        parts: list[str] = []
        if missing:
            rules.append("points_missing")
            parts.append("missing " + "; ".join(repr(_label(p)) for p in missing))
        if banned:
            rules.append("forbidden_point")
            parts.append("says forbidden " + "; ".join(repr(hit) for _, hit in banned))
        if not rules:
            return Score("correct", "points_present", summary, reading, reading, format_ok=True)
        if finish_reason == "length" and missing and not banned:
            return Score(
                "truncated",
                "truncated_summary",
                f"cut off by max_tokens with {summary}: " + "; ".join(parts),
                reading,
                reading,
            )
        explanation = f"{summary}: " + "; ".join(parts)
        return Score("wrong", "+".join(rules), explanation, reading, reading, format_ok=True)
