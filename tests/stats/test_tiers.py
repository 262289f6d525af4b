from __future__ import annotations

import pytest

from proctor.stats import TIERS, tier_for


@pytest.mark.parametrize(
    ("accuracy", "tier"),
    [(1.0, "A"), (0.89, "A"), (0.8899, "B"), (0.70, "B"), (0.6999, "C"), (0.5, "C"),
     (0.4999, "D"), (0.0, "D")],
)  # fmt: skip
def test_boundaries(accuracy: float, tier: str) -> None:
    assert tier_for(accuracy).name == tier


def test_labels_follow_the_seed() -> None:
    assert [(t.name, t.label) for t in TIERS] == [
        ("A", "can carry numeric work without tools"),
        ("B", "needs a tool for anything important"),
        ("C", "weak: no precise calculation"),
        ("D", "unreliable at arithmetic"),
    ]


def test_nothing_scored_has_no_tier() -> None:
    assert tier_for(None).name == "-"
