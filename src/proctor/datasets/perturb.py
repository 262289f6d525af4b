"""Pure, seeded: variants of an item that a model which understood it answers just as well, and a
model which memorised it does not.

- dates: every ISO 8601 date (YYYY-MM-DD) in the question, its sources and its question time is
  moved by the same number of days; the answer is unchanged (or moved too, when it is a date).
- numbers: an item that states its answer as a formula (`metadata["formula"]`, canonical ASCII
  arithmetic over `{name}` slots, with `metadata["values"]` the JSON object of the numbers as
  written in the text) gets new integers in place of the old ones in the text, and its answer
  recomputed exactly from the formula; items without a formula get no number variant.
- wording: the question is re-phrased by fixed, meaning-keeping rewrites (English and Chinese);
  items no rewrite applies to get no wording variant.

A variant's id is `<id>~<kind>`, and its metadata names the original (`perturbed_from`) and the
kind (`perturbation`), so `proctor.stats.perturbation` can pair them.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import date, timedelta
from typing import Literal

from proctor.datasets.exact_eval import evaluate
from proctor.types import Sample

PerturbKind = Literal["dates", "numbers", "wording"]
KINDS: tuple[PerturbKind, ...] = ("dates", "numbers", "wording")
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_REWORDS: tuple[tuple[str, str], ...] = (
    ("What was ", "Tell me: what was "),
    ("What is ", "Tell me: what is "),
    ("How long ", "Tell me how long "),
    ("By how many ", "Tell me by how many "),
    ("At what ", "Tell me at what "),
    ("是多少", "为多少"),
    ("是哪座城市", "是哪一座城市"),
    ("是百分之几", "为百分之几"),
)


def _shift_text(text: str, days: int) -> str:
    def move(m: re.Match[str]) -> str:
        try:
            d = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return m.group()
        return (d + timedelta(days=days)).isoformat()

    return _ISO.sub(move, text)


def _tag(
    sample: Sample,
    kind: PerturbKind,
    *,
    input: str | None = None,
    target: str | None = None,
    metadata: dict[str, str] | None = None,
) -> Sample:
    meta = dict(sample.metadata if metadata is None else metadata)
    meta.update(perturbed_from=sample.id, perturbation=kind)
    return replace(
        sample,
        id=f"{sample.id}~{kind}",
        input=sample.input if input is None else input,
        target=sample.target if target is None else target,
        metadata=meta,
    )


def shift_dates(sample: Sample, days: int) -> Sample | None:
    moved = {k: _shift_text(v, days) for k, v in sample.metadata.items()}
    new_input = _shift_text(sample.input, days)
    if moved == dict(sample.metadata) and new_input == sample.input:
        return None
    return _tag(sample, "dates", input=new_input, target=_shift_text(sample.target, days),
                metadata=moved)  # fmt: skip


def change_numbers(sample: Sample, rng: random.Random) -> Sample | None:
    formula = sample.metadata.get("formula")
    values_json = sample.metadata.get("values")
    if not formula or not values_json:
        return None
    values: dict[str, str] = json.loads(values_json)
    new_values: dict[str, str] = {}
    text = sample.input
    meta = dict(sample.metadata)
    for name, old in values.items():
        base = abs(int(float(old.replace(",", "")))) or 1
        new = str(max(1, base + rng.randint(1, max(2, base // 5))))
        new_values[name] = new
        text = text.replace(old, new)
        meta = {k: v.replace(old, new) if k == "sources" else v for k, v in meta.items()}
    value = evaluate(formula.format(**new_values))
    target = str(value.numerator) if value.denominator == 1 else f"{float(value):.6g}"
    meta["values"] = json.dumps(new_values)
    return _tag(sample, "numbers", input=text, target=target, metadata=meta)


def reword(sample: Sample) -> Sample | None:
    for old, new in _REWORDS:
        if old in sample.input:
            return _tag(sample, "wording", input=sample.input.replace(old, new, 1))
    return None


def perturb(
    samples: Iterable[Sample], kinds: Sequence[PerturbKind] = KINDS, seed: int = 0
) -> list[Sample]:
    """The originals, each followed by its variants (one per kind that applies)."""
    rng = random.Random(seed)
    out: list[Sample] = []
    for s in samples:
        out.append(s)
        for kind in kinds:
            if kind == "dates":
                variant = shift_dates(s, rng.choice((-400, -90, 45, 365)))
            elif kind == "numbers":
                variant = change_numbers(s, rng)
            else:
                variant = reword(s)
            if variant is not None:
                out.append(variant)
    return out
