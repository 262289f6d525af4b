"""Repeated sampling: unbiased pass@k and majority vote (self-consistency)."""

from __future__ import annotations

from collections.abc import Sequence


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from `n` samples of which `c` are correct (Chen et al., 2021).

    pass@k = 1 − C(n − c, k) / C(n, k), computed as the product 1 − Π_{i=n−c+1..n} (1 − k/i),
    which never forms the huge binomials and stays exact to float precision for any n.
    """
    if n < 0 or c < 0 or c > n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got k={k}, n={n}")
    if n - c < k:
        return 1.0
    miss = 1.0
    for i in range(n - c + 1, n + 1):
        miss *= 1.0 - k / i
    return 1.0 - miss


def majority_vote(answers: Sequence[str | None]) -> str | None:
    """The answer given most often; None answers are ignored; a tie goes to the answer seen
    first; None when every answer is None (or there are none)."""
    counts: dict[str, int] = {}
    for answer in answers:
        if answer is not None:
            counts[answer] = counts.get(answer, 0) + 1
    best: str | None = None
    best_count = 0
    for answer, count in counts.items():  # insertion order: first seen wins a tie
        if count > best_count:
            best, best_count = answer, count
    return best
