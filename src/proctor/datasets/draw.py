"""Seeded draws and the low-frequency operand rule of the arithmetic generator.

Every draw is built on `random.Random(seed).getrandbits` alone (rejection sampling, no
`randrange`, `choice` or `shuffle`, whose algorithms Python does not promise to keep), so a seed
gives the same numbers on any machine and any Python version.

Operand rule ("plain" operands, so an answer cannot have been memorised):
- an integer operand is at least 13, does not end in 0, is not a multiple of 25 below 1000, does
  not have all digits equal (11, 777) and has no three equal digits in a row (35552);
- the only single digits are multipliers/divisors 3–9, always set against a plain number
  ≥ 13, so there is never a times-table pair such as 9 × 9, and never an operand 0 or 1;
- a decimal operand's digits follow the same repetition rules and it ends in a non-zero digit,
  so it is written with exactly its number of places;
- a fraction operand is proper and reduced, with numerator ≥ 2 and a denominator ≥ 5 that is
  not a multiple of 10 (an "=" comparison shows unreduced equivalents on purpose);
- the operands of one question differ.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from fractions import Fraction
from math import gcd
from typing import TypeVar

T = TypeVar("T")
_TRIPLE = re.compile(r"(\d)\1\1")

__all__ = ["Draw", "dec_text", "plain_digits", "plain_int"]


class Draw:
    """Uniform integer draws from one `random.Random(seed)` stream."""

    def __init__(self, seed: int) -> None:
        self._bits = random.Random(seed).getrandbits

    def below(self, n: int) -> int:
        """Uniform in [0, n), by rejection on `n.bit_length()` random bits."""
        if n <= 0:
            raise ValueError("below(n) needs n > 0")
        k = n.bit_length()
        r = self._bits(k)
        while r >= n:
            r = self._bits(k)
        return r

    def between(self, lo: int, hi: int) -> int:
        """Uniform in [lo, hi], both ends included."""
        return lo + self.below(hi - lo + 1)

    def pick(self, options: Sequence[T]) -> T:
        return options[self.below(len(options))]

    def chance(self, num: int, den: int) -> bool:
        """True with probability num/den."""
        return self.below(den) < num

    def plain(self, digits_lo: int, digits_hi: int | None = None) -> int:
        """A plain integer with a uniformly drawn number of digits in [digits_lo, digits_hi]."""
        k = self.between(digits_lo, digits_hi or digits_lo)
        while True:
            v = self.between(10 ** (k - 1), 10**k - 1)
            if plain_int(v):
                return v

    def plain_in(self, lo: int, hi: int) -> int:
        """A plain integer in [lo, hi] (the range must hold some)."""
        while True:
            v = self.between(lo, hi)
            if plain_int(v):
                return v

    def small(self) -> int:
        """A single-digit multiplier or divisor, 3–9."""
        return self.between(3, 9)

    def dec(self, int_lo: int, int_hi: int, places: int) -> int:
        """A plain decimal with `int_lo`–`int_hi` digits before the point and exactly `places`
        after it, as its scaled integer (value = result / 10**places)."""
        k = self.between(int_lo, int_hi) + places
        while True:
            m = self.between(10 ** (k - 1), 10**k - 1)
            if plain_digits(str(m)):
                return m

    def proper(self, den_lo: int, den_hi: int) -> Fraction:
        """A plain fraction p/q: q in [den_lo, den_hi] (≥ 5, not a multiple of 10), 2 ≤ p < q,
        gcd(p, q) = 1."""
        while True:
            q = self.between(max(den_lo, 5), den_hi)
            if q % 10 == 0:
                continue
            p = self.between(2, q - 1)
            if gcd(p, q) == 1:
                return Fraction(p, q)


def plain_digits(s: str) -> bool:
    """Digits that end in non-zero, are not all equal and have no three equal in a row."""
    return s[-1] != "0" and len(set(s)) > 1 and _TRIPLE.search(s) is None


def plain_int(v: int) -> bool:
    """The integer operand rule: ≥ 13, plain digits, not a multiple of 25 below 1000."""
    return v >= 13 and plain_digits(str(v)) and not (v < 1000 and v % 25 == 0)


def dec_text(m: int, places: int) -> str:
    """The scaled integer `m` written with `places` digits after the point (m ≥ 0)."""
    if places == 0:
        return str(m)
    s = str(m).rjust(places + 1, "0")
    return f"{s[:-places]}.{s[-places:]}"
