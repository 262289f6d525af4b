"""Convert the public test cases of the graders proctor learns from into our case tables.

    python scripts/convert_peer_cases.py MATH_VERIFY_GIT INSPECT_AI_GIT LM_EVAL_GIT

Each argument is a git directory (a bare mirror is fine): the tables are read at its HEAD, the
commit is recorded in the table, and only data is taken (the strings of each case and its
expected verdict), never code. Output: tests/peers/cases/{math_verify,inspect_ai,lm_eval}.json.
Rows keep the verdict notes (`disagree`) already written in an existing table, so converting
again after an upstream change shows only what changed.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).resolve().parent.parent / "tests" / "peers" / "cases"


def git(repo: str, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", repo, *args], check=True, capture_output=True, text=True
    ).stdout


def head(repo: str) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def show(repo: str, path: str) -> str:
    return git(repo, "show", f"HEAD:{path}")


def files(repo: str, under: str) -> list[str]:
    return git(repo, "ls-tree", "-r", "--name-only", "HEAD", under).split()


def parametrize_tables(source: str) -> list[tuple[str, list[str], list[Any], str]]:
    """(test name, argument names, rows, the test's last statement) of each parametrised test
    whose rows are literals."""
    found = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for dec in node.decorator_list:
            if not (isinstance(dec, ast.Call) and getattr(dec.func, "attr", "") == "parametrize"):
                continue
            first = ast.literal_eval(dec.args[0])
            names = [n.strip() for n in (first.split(",") if isinstance(first, str) else first)]
            try:
                rows = ast.literal_eval(dec.args[1])
            except ValueError:
                continue  # rows built by code (f-strings, config objects): not data
            found.append((node.name, names, list(rows), ast.unparse(node.body[-1])))
    return found


def keep_notes(name: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    path = OUT / f"{name}.json"
    if not path.exists():
        return rows
    old = {row["id"]: row for row in json.loads(path.read_text(encoding="utf-8"))["rows"]}
    for row in rows:
        before = old.get(row["id"])
        if before and "disagree" in before:
            row["disagree"] = before["disagree"]
    return rows


def write(name: str, table: dict[str, Any]) -> None:
    table["rows"] = keep_notes(name, table["rows"])
    text = json.dumps(table, ensure_ascii=False, indent=1) + "\n"
    (OUT / f"{name}.json").write_text(text, encoding="utf-8")
    print(f"{name}: {len(table['rows'])} rows")


# -- Math-Verify -------------------------------------------------------------------------------

MV_DEFAULTS = {"precision": 6, "strict": True, "allow_set_relation_comp": False}


def math_verify(repo: str) -> dict[str, Any]:
    rows = []
    for path in files(repo, "tests"):
        if not path.endswith(".py"):
            continue
        for test, names, cases, call in parametrize_tables(show(repo, path)):
            if "gold" not in names or "pred" not in names:
                continue
            for index, case in enumerate(cases):
                values = dict(zip(names, case, strict=True))
                expected = values.get("expected", values.get("result"))
                options = {k: values[k] for k in MV_DEFAULTS if k in values}
                if "precision=5" in call:
                    options["precision"] = 5
                default = all(MV_DEFAULTS[k] == v for k, v in options.items())
                rows.append(
                    {
                        "id": f"{path.removeprefix('tests/')}::{test}[{index}]",
                        "target": values["gold"],
                        "reply": values["pred"],
                        "expected": "correct" if expected else "not_correct",
                        "default_options": default,
                        **({"options": options} if not default else {}),
                    }
                )
    return {
        "suite": "math-verify",
        "source": "https://github.com/huggingface/Math-Verify",
        "commit": head(repo),
        "files": "tests/*.py: every parametrised (gold, pred, expected) table with literal rows",
        "licence": "Apache-2.0 (the repository's LICENCE); the test files also carry the MIT"
        " notice of The HuggingFace Team. Both allow this copy; see LICENSE.math-verify.",
        "conversion": "gold -> target, pred -> reply, expected 1 -> correct, 0 -> not_correct;"
        " default_options is false for a case whose test sets precision, strict=False or"
        " allow_set_relation_comp=True (its label holds under those options only)",
        "task": "math500",
        "rows": rows,
    }


# -- Inspect AI --------------------------------------------------------------------------------

# Parametrised tables of tests/scorer/test_math.py: the verdict each test asserts for its rows.
INSPECT_MATH_VERDICTS = {
    "test_assignment_target_matches_either_orientation": "correct",
    "test_percentage_suffixes_are_normalized": "correct",
    "test_constant_tuple_mismatch_is_incorrect": "not_correct",
    "test_grouped_thousands_are_treated_as_numbers": "correct",
    "test_latex_thin_space_thousands_are_numbers": "correct",
    "test_exact_large_integers_are_not_approximated": "not_correct",
    "test_approximate_values_still_match": "correct",
    "test_assignment_targets_accept_their_value": "correct",
    "test_prose_wrapped_numeric_answers_are_extracted": "correct",
}
# Literal cases written inside tests of test_math.py (reply, target, verdict).
INSPECT_MATH_INLINE = [
    ("test_math_scorer_uses_last_boxed_answer", r"\boxed{10} and then \boxed{42}", "42",
     "correct"),
    ("test_math_scorer_uses_last_boxed_answer", r"\boxed{10} and then \boxed{42}", r"\{10,42\}",
     "not_correct"),
    ("test_final_boxed_answer_survives_a_flood_of_earlier_boxes",
     " ".join(r"\boxed{9}" for _ in range(400)) + r" \boxed{42}", "42", "correct"),
    ("test_model_complexity_rejection_is_incorrect", r"\boxed{2^{2^{2^{49}}}}", "1",
     "not_correct"),
    ("test_constant_tuple_self_match_is_correct", "(0, 1)", "(0, 1)", "correct"),
    ("test_prose_fallback_does_not_manufacture_false_matches", "The perimeter is 7", "42",
     "not_correct"),
    ("test_text_answer_is_not_overridden_by_subexpression", "odd $n$", "odd $n$", "correct"),
    ("test_long_output_extraction_is_bounded",
     {"repeat": "reasoning ", "times": 50_000, "then": r"\boxed{42}"}, "42", "correct"),
]  # fmt: skip


def _inspect_math(repo: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    cases = json.loads(show(repo, "tests/scorer/math_cases.json"))
    for index, case in enumerate(cases):
        rows.append(
            {
                "id": f"math_cases.json[{index}]",
                "scorer": "math",
                "reply": case["output"],
                "targets": [case["target"]],
                "expected": "correct" if case["expected"] == "C" else "not_correct",
                "note": case["source"],
            }
        )
    source = show(repo, "tests/scorer/test_math.py")
    for test, names, table, _call in parametrize_tables(source):
        verdict = INSPECT_MATH_VERDICTS.get(test)
        if verdict is None:
            continue
        for index, case in enumerate(table):
            values = dict(zip(names, case if isinstance(case, tuple) else (case,), strict=True))
            if test == "test_assignment_target_matches_either_orientation":
                values["answer"] = "2"
            if test == "test_constant_tuple_mismatch_is_incorrect":
                values["target"] = "2"
            rows.append(
                {
                    "id": f"test_math.py::{test}[{index}]",
                    "scorer": "math",
                    "reply": values["answer"],
                    "targets": [values["target"]],
                    "expected": verdict,
                }
            )
    # structures intact: each answer matches itself and not "12"
    for test, _names, table, _call in parametrize_tables(source):
        if test != "test_grouped_thousands_normalization_leaves_structures_intact":
            continue
        for index, answer in enumerate(table):
            for target, verdict in ((answer, "correct"), ("12", "not_correct")):
                rows.append(
                    {
                        "id": f"test_math.py::{test}[{index}]/{verdict}",
                        "scorer": "math",
                        "reply": answer,
                        "targets": [target],
                        "expected": verdict,
                    }
                )
    for test, _names, table, _call in parametrize_tables(source):
        if test != "test_security_payload_is_rejected_without_fallback":
            continue
        for index, payload in enumerate(table):
            rows.append(
                {
                    "id": f"test_math.py::{test}[{index}]",
                    "scorer": "math",
                    "reply": f"{payload} or 0",
                    "targets": ["0"],
                    "expected": "not_correct",
                    "note": "a code payload: must never run",
                }
            )
    for index, (test, reply, target, verdict) in enumerate(INSPECT_MATH_INLINE):
        rows.append(
            {
                "id": f"test_math.py::{test}#{index}",
                "scorer": "math",
                "reply": reply,
                "targets": [target],
                "expected": verdict,
            }
        )
    return rows


def _literal_kwargs(call: ast.Call) -> dict[str, Any]:
    return {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}


def _inspect_simple_tests(repo: str, path: str, scorer: str) -> list[dict[str, Any]]:
    """Tests of the shape `scorer = match(...)`, `simple_task_state(model_output=...)`,
    `Target([...])`, `assert result.text == CORRECT/INCORRECT/NOANSWER`; parametrised ones too."""
    verdicts = {"CORRECT": "correct", "INCORRECT": "not_correct", "NOANSWER": "not_correct"}
    rows: list[dict[str, Any]] = []
    tree = ast.parse(show(repo, path))
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        options: dict[str, Any] = {}
        reply: Any = None
        targets: Any = None
        verdict = None
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and getattr(sub.func, "id", "") == scorer:
                options = _literal_kwargs(sub)
                if sub.args:
                    options["pattern"] = ast.literal_eval(sub.args[0])
            if isinstance(sub, ast.Call) and getattr(sub.func, "id", "") == "simple_task_state":
                value = next(k.value for k in sub.keywords if k.arg == "model_output")
                reply = ast.literal_eval(value) if isinstance(value, ast.Constant) else value
            if isinstance(sub, ast.Call) and getattr(sub.func, "id", "") == "Target":
                try:
                    targets = ast.literal_eval(sub.args[0])
                except ValueError:
                    targets = None  # Target([target]) of a parametrised test
            if isinstance(sub, ast.Compare) and ast.unparse(sub.left) == "result.text":
                verdict = verdicts.get(ast.unparse(sub.comparators[0]))
        params = [
            (ast.literal_eval(d.args[0]), ast.literal_eval(d.args[1]))
            for d in node.decorator_list
            if isinstance(d, ast.Call) and getattr(d.func, "attr", "") == "parametrize"
        ]
        cases: list[tuple[str, Any, Any]] = []
        if params:
            names, table = params[0]
            names = [n.strip() for n in names.split(",")]
            for index, case in enumerate(table):
                values = dict(zip(names, case, strict=True))
                cases.append((f"[{index}]", values["model_output"], [values["target"]]))
        elif isinstance(reply, str) and isinstance(targets, list):
            cases.append(("", reply, targets))
        if verdict is None or not cases:
            continue
        for suffix, text, wanted in cases:
            rows.append(
                {
                    "id": f"{path.rsplit('/', 1)[-1]}::{node.name}{suffix}",
                    "scorer": scorer,
                    "default_options": options.get("location", "end") == "end",
                    "options": options,
                    "reply": text,
                    "targets": wanted,
                    "expected": verdict,
                }
            )
    return rows


def inspect_ai(repo: str) -> dict[str, Any]:
    rows = _inspect_math(repo)
    rows += _inspect_simple_tests(repo, "tests/scorer/test_match.py", "match")
    rows += _inspect_simple_tests(repo, "tests/scorer/test_answer.py", "answer")
    return {
        "suite": "inspect-ai",
        "source": "https://github.com/UKGovernmentBEIS/inspect_ai",
        "commit": head(repo),
        "files": "tests/scorer/math_cases.json, test_math.py (parametrised and literal cases),"
        " test_match.py, test_answer.py",
        "licence": "MIT (c) 2024 UK AI Security Institute; see LICENSE.inspect-ai",
        "conversion": "model_output -> reply, Target -> targets (correct when any is matched),"
        " CORRECT -> correct, INCORRECT and NOANSWER -> not_correct; the scorer's options are"
        " kept, and default_options is false for match(location=...) other than the default"
        " end (such a label holds under that option only). Graded by the proctor grader closest to each scorer: math -> math500,"
        " match(numeric) -> gsm8k, match(text)/answer -> arithmetic with the target's type",
        "rows": rows,
    }


# -- lm-evaluation-harness ---------------------------------------------------------------------

LM_EVAL_CONFIGS = ("gsm8k-cot.yaml", "gsm8k-cot-llama.yaml")


def lm_eval(repo: str) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for config in LM_EVAL_CONFIGS:
        doc = yaml.safe_load(show(repo, f"lm_eval/tasks/gsm8k/{config}"))
        filters = {f["name"]: f["filter"][0]["regex_pattern"] for f in doc["filter_list"]}
        for index, shot in enumerate(doc["fewshot_config"]["samples"]):
            answer = shot["target"].rsplit("is", 1)[-1].strip(" .")
            rows.append(
                {
                    "id": f"{config}::fewshot[{index}]",
                    "reply": shot["target"],
                    "target": answer,
                    "expected": "correct",
                    "filters": filters,
                }
            )
    return {
        "suite": "lm-eval-gsm8k",
        "source": "https://github.com/EleutherAI/lm-evaluation-harness",
        "commit": head(repo),
        "files": "lm_eval/tasks/gsm8k/" + ", ".join(LM_EVAL_CONFIGS) + " (few-shot answers,"
        " their filters)",
        "licence": "MIT (c) 2020 EleutherAI; see LICENSE.lm-eval",
        "conversion": "each few-shot answer is a reply whose target is the number it ends on;"
        " lm-eval's strict-match and flexible-extract both take it (checked by our"
        " reproduction, proctor.extract.lmeval, which is also walked over every row)",
        "task": "gsm8k",
        "rows": rows,
    }


def main() -> None:
    mv, inspect, lmeval = sys.argv[1:4]
    OUT.mkdir(parents=True, exist_ok=True)
    write("math_verify", math_verify(mv))
    write("inspect_ai", inspect_ai(inspect))
    write("lm_eval", lm_eval(lmeval))


if __name__ == "__main__":
    main()
