"""The public test cases of the graders we learn from, walked with ours (cases/*.json): every
disagreement is listed with its sentence, and there is no false "correct"."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.tasks.registry import get_task
from proctor.types import Record, Sample, Usage

from . import walk


@pytest.mark.parametrize(
    "name", ["inspect_ai", "lm_eval", "lighteval", "hendrycks_math", "qwen25_math"]
)
def test_peer_table_disagrees_only_where_a_sentence_says_why(name: str) -> None:
    table = walk.load(name)
    for key in ("source", "commit", "licence", "conversion"):
        assert table[key], f"{name}: {key} missing"
    assert (walk.CASES / f"LICENSE.{table['suite'].removesuffix('-gsm8k')}").exists()
    verdicts = walk.walk(table)
    problems = walk.problems(verdicts)
    assert not problems, f"{len(problems)} rows:\n" + "\n".join(problems)
    default = [v for v in verdicts if v.default_options]
    assert not [v for v in default if v.false_correct]
    assert sum(v.agrees for v in default) >= len(default) - 5


def test_qwen_examples_never_worse_than_qwens_own_grader() -> None:
    """Qwen2.5-Math's examples assert nothing: each row carries the verdict a careful reader
    gives and the one Qwen's pipeline gave (run at the table's commit). Ours must agree with the
    reader at least as often as Qwen does, with no false correct, and every row where Qwen is
    not right must say why (a sentence that no longer applies is stale)."""
    table = walk.load("qwen25_math")
    verdicts = walk.walk(table)
    ours = sum(v.agrees for v in verdicts)
    qwen = sum(v.row["qwen"] == v.row["expected"] for v in verdicts)
    assert ours >= qwen, f"ours {ours}, Qwen's {qwen} of {len(verdicts)}"
    assert not [v.row["id"] for v in verdicts if v.false_correct]
    unexplained = [
        v.row["id"]
        for v in verdicts
        if (v.row["qwen"] != v.row["expected"]) != ("qwen_wrong" in v.row)
    ]
    assert not unexplained, unexplained
    assert all("why" in v.row for v in verdicts if v.row["expected"] == "not_correct")


def test_lm_eval_filters_take_every_few_shot_answer_too() -> None:
    from proctor.extract.lmeval import lmeval_exact_match, lmeval_filters

    for row in walk.load("lm_eval")["rows"]:
        f = lmeval_filters(row["reply"], cot=True)
        assert lmeval_exact_match(f.flexible_extract, row["target"]), row["id"]


def test_code_payloads_in_a_maths_reply_never_run(tmp_path: Path) -> None:
    """Inspect AI's hostile payloads, aimed at a marker file: graded as text, never run."""
    marker = tmp_path / "marker"
    payloads = [
        f"__import__('pathlib').Path({str(marker)!r}).write_text('import') or 0",
        f"open({str(marker)!r}, 'w').write('open') or 0",
        f"(lambda: open({str(marker)!r}, 'w'))() or 0",
        f"[open({str(marker)!r}, 'w') for _ in [0]] or 0",
        f"\\boxed{{open({str(marker)!r}, 'w')}}",
        f"$\\begin{{pmatrix}} __import__('os').system('touch {marker}') \\end{{pmatrix}}$",
    ]
    for task_name in ("math500", "gsm8k", "aime"):
        task = get_task(task_name)
        sample = Sample(id="p", input="q", target="0", answer_type="integer")
        for payload in payloads:
            record = Record(
                "r", "m", "p", "ok", payload, "stop", Usage(), 0.0, 1, "zero-shot", "en"
            )
            score = task.grade(record, sample)
            assert score.outcome != "correct", (task_name, payload, score)
    assert not marker.exists()
