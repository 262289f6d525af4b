"""The benchmarks' own reference solutions pass through our sandbox and our program assembly:
HumanEval 164/164, MBPP 974/974 (at least 972 required; the full run is marked slow)."""

from __future__ import annotations

import pytest

from proctor.datasets import benchmarks
from proctor.sandbox import run_many
from proctor.tasks import humaneval, mbpp


def test_humaneval_canonical_solutions_pass_164_of_164() -> None:
    samples = benchmarks.humaneval()
    results = run_many((humaneval.program(s.target, s) for s in samples), humaneval.LIMITS)
    failed = [
        (s.id, r.status, r.stderr[-200:])
        for s, r in zip(samples, results, strict=True)
        if not r.passed
    ]
    assert len(samples) == 164
    assert failed == []


def _mbpp_failures(samples: tuple[object, ...]) -> list[tuple[str, str]]:
    chosen = [s for s in benchmarks.mbpp("full") if s.id in {getattr(x, "id", x) for x in samples}]
    results = run_many((mbpp.program(s.target, s) for s in chosen), mbpp.LIMITS)
    return [(s.id, r.status) for s, r in zip(chosen, results, strict=True) if not r.passed]


def test_mbpp_set_up_code_runs_after_the_solution() -> None:
    """Tasks 367 and 927 define `Node` in the solution and build trees in test_setup_code."""
    assert _mbpp_failures(("mbpp-367", "mbpp-927")) == []


@pytest.mark.slow
def test_mbpp_canonical_solutions_pass_at_least_972_of_974() -> None:
    samples = benchmarks.mbpp("full")
    failures = _mbpp_failures(tuple(s.id for s in samples))
    assert len(samples) == 974
    assert len(failures) <= 2, failures
