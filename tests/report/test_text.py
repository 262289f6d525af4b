"""Short display labels for models: what all share is dropped, never what tells them apart."""

from __future__ import annotations

from itertools import product

import pytest

from proctor.report.text import name_pattern, names_line, short_names, tier_legend
from proctor.stats.tiers import TIERS

URL = "http://127.0.0.1:18555/v1"

CASES: list[tuple[str, list[str], list[str], str | None]] = [
    # (case, models, labels, what was dropped)
    (
        "same URL",
        [f"openai-compat/m01@{URL}", f"openai-compat/m02@{URL}"],
        ["m01", "m02"],
        f"openai-compat/<name>@{URL}",
    ),
    (
        "different URLs",
        ["openai-compat/m@http://a:1/v1", "openai-compat/m@http://b:1/v1"],
        ["m@http://a:1/v1", "m@http://b:1/v1"],
        "openai-compat/<name>",
    ),
    (
        "same provider, no URL",
        ["openai/gpt-4o", "openai/gpt-4o-mini"],
        ["gpt-4o", "gpt-4o-mini"],
        "openai/<name>",
    ),
    (
        "mixed providers",
        ["openai/gpt-4o", "anthropic/claude-sonnet-4"],
        ["openai/gpt-4o", "anthropic/claude-sonnet-4"],
        None,
    ),
    (
        "mixed providers, same URL",
        [f"openai-compat/a@{URL}", f"other/b@{URL}"],
        ["openai-compat/a", "other/b"],
        f"<name>@{URL}",
    ),
    (
        "a model with no provider",
        ["local", "local/models/x.gguf"],
        ["local", "local/models/x.gguf"],
        None,
    ),
    ("one model", [f"openai-compat/m01@{URL}"], [f"openai-compat/m01@{URL}"], None),
    ("no model", [], [], None),
    (
        "calculator on one only",
        [f"openai-compat/m@{URL}+calculator", f"openai-compat/m@{URL}"],
        [f"m@{URL}+calculator", f"m@{URL}"],
        "openai-compat/<name>",
    ),
    (
        "a name would become empty: only the URL goes",
        [f"openai-compat/@{URL}", f"openai-compat/a@{URL}"],
        ["openai-compat/", "openai-compat/a"],
        f"<name>@{URL}",
    ),
    (
        "a name would become blank",
        ["p/ @u", "q/a@v"],
        ["p/ @u", "q/a@v"],
        None,
    ),
    (
        "shared start and end overlap",
        ["a@b/c", "a@b/c2"],
        ["c", "c2"],
        "a@b/<name>",
    ),
    (
        "duplicates count once",
        [f"openai-compat/m01@{URL}", f"openai-compat/m01@{URL}", f"openai-compat/m02@{URL}"],
        ["m01", "m01", "m02"],
        f"openai-compat/<name>@{URL}",
    ),
    (
        "a duplicate alone is one model",
        [f"openai-compat/m01@{URL}", f"openai-compat/m01@{URL}"],
        [f"openai-compat/m01@{URL}", f"openai-compat/m01@{URL}"],
        None,
    ),
    (
        "unicode",
        ["openai-compat/模型-1@http://主机/v1", "openai-compat/modèle-2@http://主机/v1"],
        ["模型-1", "modèle-2"],
        "openai-compat/<name>@http://主机/v1",
    ),
]


@pytest.mark.parametrize(
    ("models", "labels", "pattern"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_short_names(models: list[str], labels: list[str], pattern: str | None) -> None:
    shown = short_names(models)
    assert [shown[m] for m in models] == labels
    assert name_pattern(models) == pattern
    assert names_line(models) == (None if pattern is None else f"models: {pattern}")
    if pattern is not None:  # the pattern with a label in place of <name> gives back the model
        for model in models:
            assert pattern.replace("<name>", shown[model]) == model


PIECES = ["", "p/", "q/", "a", "b", "@u", "@v", "/", "@", " ", "模"]


def test_labels_are_never_shared_or_empty() -> None:
    """Every set of three model strings made of tricky pieces."""
    strings = sorted({"".join(parts) for parts in product(PIECES, repeat=3)} - {""})
    for i in range(0, len(strings) - 2, 7):
        models = strings[i : i + 3]
        shown = short_names(models)
        assert len(set(shown.values())) == len(set(models)), models
        assert all(shown[m] == m or shown[m].strip() for m in models), models


def test_tier_legend_is_the_arithmetic_seeds() -> None:
    from proctor.tasks.registry import TASKS

    assert TASKS["arithmetic"].tiers == TIERS
    assert [name for name, task in TASKS.items() if task.tiers is not None] == ["arithmetic"]
    assert tier_legend(TIERS)[0] == ("A", "≥ 89 %", "can carry numeric work without tools")
