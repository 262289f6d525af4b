"""The grading rules are stated, and the grading packages stay pure."""

from __future__ import annotations

import ast
from pathlib import Path

import proctor
from proctor.score import RULES, ExactAnswerMatch, explain_rule, grade
from proctor.types import Sample

SRC = Path(proctor.__file__).parent
# lazy_exports: the leaf (it imports nothing of ours) that lets a package root name its exports
# without importing them.
ALLOWED_OURS = {"proctor.types", "proctor.errors", "proctor.extract", "proctor._util"}
ALLOWED_THIRD_PARTY = {"pydantic"}
# Scorers may run what they grade in the sandbox (code, bounded symbolic maths), which sits
# below them and is itself pure; math-verify is the symbolic checker, run in its helper process.
SCORE_ALSO = {"proctor.sandbox"}
SCORE_THIRD_PARTY = {"math_verify"}


def test_every_rule_is_one_stated_sentence() -> None:
    for name, sentence in RULES.items():
        assert sentence.endswith("."), name
        assert "\n" not in sentence, name
        assert len(sentence) > 20, name
    assert explain_rule("last_number+format_only").startswith("Fallback:")


def test_scorer_is_a_frozen_dataclass_that_grades_like_grade() -> None:
    sample = Sample(id="s", input="6 × 7", target="42", metadata={"operands": "6 7"})
    scorer = ExactAnswerMatch(variant="A")
    assert scorer("42", "stop", sample) == grade("42", "stop", sample, variant="A")
    assert scorer.__doc__ and scorer.__doc__.strip().endswith(".")


def test_extract_and_score_import_only_the_standard_library_and_leaves() -> None:
    import sys

    stdlib = sys.stdlib_module_names
    for package in ("extract", "score"):
        for path in (SRC / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top == "proctor":
                        ours = ".".join(name.split(".")[:2])
                        allowed = ALLOWED_OURS | (
                            {"proctor.score", *SCORE_ALSO} if package == "score" else set()
                        )
                        assert ours in allowed, f"{path.name} imports {name}"
                    else:
                        third = ALLOWED_THIRD_PARTY | (
                            SCORE_THIRD_PARTY if package == "score" else set()
                        )
                        assert top in stdlib or top in third or top == "__future__", (
                            f"{path.name} imports {name}"
                        )
