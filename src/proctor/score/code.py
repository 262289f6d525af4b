"""Code: the extracted program must pass the benchmark's tests, run in the sandbox.

The job is assembled from the prompt, the model's code and the tests, which run apart from the
code (see `proctor.sandbox`): HumanEval runs prompt + code, then its test and `check(entry
point)` among the prompt's own names; MBPP runs the code, then test_setup_code and each assert
among the code's names (the set-up code comes after the solution, which tasks 367 and 927 need).
A run that the sandbox itself could not set up is `unscored`, never wrong; a timeout, a crash or
a limit hit is the program's failure; tampering with the tests or the sandbox (an object that
compares equal to anything, a changed module, a refused door) is a `violation`. Every
explanation names the isolation and the limits that were in force. Results are kept per job in
this process, so grading the same record twice (progress, then the final grade) runs it once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from proctor.extract.code import CODE_RULES, extract_code
from proctor.sandbox import Job, Limits, SandboxResult, detect, run_job
from proctor.score.failed import CALL_FAILED_RULE
from proctor.types import FinishReason, Outcome, Sample, Score

RULES: dict[str, str] = {
    "call_failed": CALL_FAILED_RULE,
    "truncated": "The reply hit max_tokens before its code was complete.",
    "no_answer": "No code could be found in the reply.",
    **CODE_RULES,
    "tests_passed": "The program ran the benchmark's tests to the end in the sandbox without a"
    " failure.",
    "tests_failed": "The program failed the benchmark's tests (an assertion, an error, an early"
    " exit, a timeout or a resource limit).",
    "violation": "The program tampered with its tests or the sandbox (it returned an object"
    " that compares equal to anything, changed what the tests use, or tried what the sandbox"
    " refuses), so its tests cannot judge it.",
    "sandbox_error": "The sandbox could not be set up, so the program was not judged (unscored).",
}


def humaneval_program(prompt: str, code: str, test: str, entry_point: str) -> Job:
    """The prompt first (its imports and helpers); the model's code redefines or completes the
    function; then the official test and its call, among the prompt's own names."""
    defines = f"def {entry_point}(" in code
    body = f"{prompt}\n{code}" if defines else f"{prompt}{code}"
    return Job(
        candidate=body,
        prelude=prompt,
        tests=(test,),
        call="check",
        entry_point=entry_point,
        tests_see="prelude",
        allow_concurrency=False,
    )


def mbpp_program(code: str, test_setup_code: str, tests: list[str], entry_point: str = "") -> Job:
    return Job(
        candidate=code,
        tests=tuple(t for t in (test_setup_code, *tests) if t.strip()),
        entry_point=entry_point,
        tests_see="solution",
        allow_concurrency=False,
    )


_cache_lock = threading.Lock()
_cache: OrderedDict[tuple[Job, Limits], SandboxResult] = OrderedDict()
_CACHE_SIZE = 2048


def run_cached(job: Job, limits: Limits) -> SandboxResult:
    key = (job, limits)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    result = run_job(job, limits)
    if result.status != "setup_error":
        with _cache_lock:
            _cache[key] = result
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return result


def sandbox_note(limits: Limits) -> str:
    """How the code of this run's replies is run, for the report."""
    return f"sandbox: {detect().tag}; limits {limits.describe()}"


def _last_lines(text: str, n: int = 3, width: int = 300) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-n:])[-width:]


def grade_code(
    text: str,
    finish_reason: FinishReason,
    sample: Sample,
    *,
    build: Callable[[str, Sample], Job],
    limits: Limits,
) -> Score:
    """Grade one reply to one code sample; `build` turns the extracted code into the job."""
    found = extract_code(text, entry_point=sample.metadata.get("entry_point", ""))
    if found.value is None:
        if finish_reason == "length":
            return Score("truncated", "truncated", RULES["truncated"])
        return Score("no_answer", "no_answer", f"{RULES['no_answer']} ({found.note})")
    if finish_reason == "length" and found.note:
        return Score("truncated", "truncated", f"{RULES['truncated']} ({found.note})")
    result = run_cached(build(found.value, sample), limits)
    where = f"[sandbox: {result.isolation}; limits {result.limits}; {result.wall_s:.2f} s]"
    if result.status == "setup_error":
        return Score(
            "unscored",
            "sandbox_error",
            f"{RULES['sandbox_error']} {result.detail} {where}",
            extracted=found.value,
            format_ok=found.format_ok,
        )
    if result.passed:
        return Score(
            "correct",
            f"{found.rule}+tests_passed",
            f"All tests passed. {where}",
            extracted=found.value,
            normalized="passed",
            format_ok=found.format_ok,
        )
    outcome: Outcome
    if result.status == "violation":  # the code broke the sandbox's rules
        outcome, rule, why = "violation", "violation", result.detail
    else:
        errors = _last_lines(result.stderr)
        outcome, rule = "wrong", "tests_failed"
        why = f"{result.detail}: {errors}" if errors else result.detail
    return Score(
        outcome,
        f"{found.rule}+{rule}",
        f"{result.status}: {why} {where}",
        extracted=found.value,
        normalized=result.status,
        format_ok=found.format_ok,
    )
