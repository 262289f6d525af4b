"""The arithmetic test-set generator: the same seed, n, mix and GENERATOR_VERSION give the same
samples, byte for byte, on any machine.

Samples are spread evenly over the categories (the first categories take the remainder), and
each category's samples over the tiers easy/medium/hard in the ratio `mix` (largest remainder,
ties to the easier tier). No question is asked twice in a paper; a tier that holds too few
(about 2,000 easy fractions, 6,000 easy integer questions) gives its later slots to the
nearest tier that still has new ones, so only papers of tens of thousands depart from `mix`.
The order is round-robin over categories, and within a category the tiers are interleaved
evenly, so any prefix of the paper is balanced. Ids are
"<category>-<index within category, 4 digits or more>". All randomness is one
`random.Random(seed)` stream (see `draw.py`); the operand rule and each tier's meaning are in
`draw.py`, `arith_numbers.py` and `arith_forms.py`, summarised in `TIER_RULES`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from proctor.datasets.arith_forms import fraction_question, mixed_question
from proctor.datasets.arith_numbers import bigint_question, decimal_question, integer_question
from proctor.datasets.draw import Draw
from proctor.datasets.question import Question
from proctor.types import Sample

__all__ = ["CATEGORIES", "GENERATOR_VERSION", "TIERS", "TIER_RULES", "generate"]

GENERATOR_VERSION = "arith-2"
"""Changes whenever the same seed could give a different paper. arith-2: a question already in
the paper is drawn again (arith-1 could ask "69 mod 6" twice: seed 13, n 150); a paper that
arith-1 made without a repeat is the same, byte for byte."""

MAX_REDRAWS = 200
"""Draws of a new question before its tier counts as used up for this paper (e.g. easy
fractions hold about 2,000 questions): its later slots then take the nearest tier that still
gives new ones, and say so in their difficulty."""
_FALLBACK = {"easy": ("medium", "hard"), "medium": ("hard", "easy"), "hard": ("medium", "easy")}

TIERS = ("easy", "medium", "hard")

_BUILDERS: dict[str, Callable[[Draw, str], Question]] = {
    "integer": integer_question,
    "decimal": decimal_question,
    "mixed": mixed_question,
    "fraction": fraction_question,
    "bigint": bigint_question,
}
CATEGORIES: tuple[str, ...] = tuple(_BUILDERS)

TIER_RULES: dict[str, dict[str, str]] = {
    "integer": {
        "easy": "2-digit ± 2-digit with at most one carry; 2-digit ×, ÷ or mod a digit 3–9.",
        "medium": "3-digit ± 3-digit with a carry; 3-digit × 2-digit; 3–4-digit ÷ or mod 2-digit.",
        "hard": "4–5-digit ± with two or more carries/borrows; 4–5-digit × 2–3-digit; "
        "5-digit ÷ or mod 2–3-digit.",
    },
    "decimal": {
        "easy": "One decimal place ±; one place × a digit; exact ÷ by a digit.",
        "medium": "Two places ±; one place × one place; ÷ rounded to 2 places.",
        "hard": "Three places ± (may be negative); two places × two places; ÷ rounded to 3.",
    },
    "mixed": {
        "easy": "3 operands with one bracket, e.g. (47 + 38) × 6.",
        "medium": "4 operands, one bracket, one digit multiplier or even divisor.",
        "hard": "4 operands of 2–3 digits, e.g. (a ± b) × (c ± d); may be negative.",
    },
    "fraction": {
        "easy": "± with related denominators 5–36; compare denominators 5–12.",
        "medium": "+ − × ÷ with denominators 5–19; compare close fractions, denominators ≤ 25.",
        "hard": "Three fractions, denominators ≤ 40; compare very close 2-digit fractions.",
    },
    "bigint": {
        "easy": "6–8-digit ± 6–8-digit.",
        "medium": "6-digit × 3–4-digit, or 9–12-digit subtraction with borrows.",
        "hard": "7–12-digit × 4–6-digit, or 10–12-digit ÷ 3–4-digit (integer quotient).",
    },
}


def generate(seed: int, n: int, mix: tuple[int, int, int] = (3, 4, 3)) -> list[Sample]:
    """`n` samples for `seed`: categories even, tiers in the ratio `mix` within each category."""
    if seed < 0:
        raise ValueError("seed must be >= 0 (Random(-s) would repeat Random(s))")
    if n < 0:
        raise ValueError("n must be >= 0")
    if len(mix) != 3 or min(mix) < 0 or sum(mix) == 0:
        raise ValueError("mix must be three non-negative weights for easy, medium, hard")
    draw = Draw(seed)
    counts = split(n, (1,) * len(CATEGORIES))
    tiers = {c: interleave(split(k, mix)) for c, k in zip(CATEGORIES, counts, strict=True)}
    samples: list[Sample] = []
    paper = _Paper(draw)
    for i in range(max(counts, default=0)):
        for category, k in zip(CATEGORIES, counts, strict=True):
            if i < k:
                tier, q = paper.new_question(category, TIERS[tiers[category][i]])
                samples.append(_sample(f"{category}-{i:04d}", category, tier, q))
    return samples


class _Paper:
    """The questions asked so far: none is asked twice (by its text, nor by its expression)."""

    def __init__(self, draw: Draw) -> None:
        self._draw = draw
        self._asked: set[str] = set()
        self._used_up: set[tuple[str, str]] = set()

    def new_question(self, category: str, tier: str) -> tuple[str, Question]:
        """(tier, question): a new question of `tier`, drawn again from the same stream until it
        is new; from the nearest tier that still gives one when `tier` is used up."""
        for candidate in (tier, *_FALLBACK[tier]):
            if (category, candidate) in self._used_up:
                continue
            for _ in range(MAX_REDRAWS):
                q = _BUILDERS[category](self._draw, candidate)
                keys = {"input:" + q.input, "expression:" + q.expression}
                if not keys & self._asked:
                    self._asked.update(keys)
                    return candidate, q
            self._used_up.add((category, candidate))
        raise ValueError(f"{category} holds no new question: ask for fewer samples")


def split(total: int, weights: Sequence[int]) -> list[int]:
    """`total` shared in proportion to `weights` by largest remainder (ties to the first)."""
    whole = sum(weights)
    shares = [total * w // whole for w in weights]
    order = sorted(range(len(weights)), key=lambda i: (-(total * weights[i] % whole), i))
    for i in order[: total - sum(shares)]:
        shares[i] += 1
    return shares


def interleave(counts: Sequence[int]) -> list[int]:
    """Indexes 0..len(counts)-1, each `counts[i]` times, spread evenly: at every step the index
    furthest behind its share goes next (ties to the lower index)."""
    total = sum(counts)
    done = [0] * len(counts)
    out: list[int] = []
    for step in range(1, total + 1):
        behind = [(step * c - done[i] * total, -i) for i, c in enumerate(counts) if done[i] < c]
        i = -max(behind)[1]
        done[i] += 1
        out.append(i)
    return out


def _sample(sample_id: str, category: str, tier: str, q: Question) -> Sample:
    metadata = {"expression": q.expression, "operands": " ".join(q.operands), **dict(q.extra)}
    return Sample(
        id=sample_id,
        input=q.input,
        target=q.target,
        category=category,
        difficulty=tier,
        answer_type=q.answer_type,
        decimals=q.decimals,
        metadata=metadata,
    )
