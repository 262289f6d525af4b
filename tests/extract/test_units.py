"""The unit table (cases/units.json): spellings, which units are one, exact factors."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from proctor.extract.units import OUNCE_MASS, Unit, same_unit, unit_named

TABLE = json.loads((Path(__file__).parent / "cases" / "units.json").read_text(encoding="utf-8"))


def named(text: str) -> Unit:
    unit = OUNCE_MASS if text == "ounce (mass)" else unit_named(text)
    assert unit is not None, text
    return unit


def test_spellings() -> None:
    got = {r["text"]: getattr(unit_named(r["text"]), "key", None) for r in TABLE["spellings"]}
    want = {r["text"]: r["key"] for r in TABLE["spellings"]}
    assert got == want


def test_which_units_are_one() -> None:
    for r in TABLE["same"]:
        a, b = named(r["a"]), named(r["b"])
        assert (same_unit(a, b), same_unit(b, a)) == (r["same"], r["same"]), r


def test_exact_factors() -> None:
    for r in TABLE["factors"]:
        a, b = named(r["a"]), named(r["b"])
        assert a.dimension == b.dimension, r
        assert Fraction(r["n"]) * a.factor / b.factor == Fraction(r["is"]), r
