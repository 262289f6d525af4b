"""The reviewed suite cases (tests/tasks/cases/reviewed.jsonl): realistic replies to suite cases
of all four kinds, in Chinese and English, each with the verdict a careful reviewer gives and the
sentence why. A plain data file, so that an audit can read it as the suites' audit set:

    id, kind, lang, material, question, points, forbidden, expected, match, constraints, allowed,
    phrases   the case, in the columns of a suite file (examples/README.md)
    reply, finish                                      the model's reply and its finish reason
    verdict, why, class                                the reviewer's verdict, why, and the class
                                                       of the case (negation, quoted question, …)
    explain                                            (optional) what the explanation must name
    open                                               (optional) why today's rules still
                                                       disagree, on the safe side

`python tests/tasks/reviewed.py` prints the agreement of today's rules with the reviewer, per
kind, and every disagreement.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proctor.datasets.suites.loader import load_suite
from proctor.tasks.suite import grade
from proctor.types import Record, Sample, Score, Usage

TABLE = Path(__file__).parent / "cases" / "reviewed.jsonl"
CASE_COLUMNS = (
    "id", "kind", "lang", "material", "question", "points", "forbidden", "expected", "match",
    "constraints", "allowed", "phrases",
)  # fmt: skip


def rows() -> list[dict[str, Any]]:
    with TABLE.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def suite_samples(table: Iterable[dict[str, Any]]) -> dict[str, Sample]:
    """The table's cases read by the suite loader, as a user's suite file would be."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "reviewed.jsonl"
        with path.open("w", encoding="utf-8") as f:
            for row in table:
                case = {k: row[k] for k in CASE_COLUMNS if k in row}
                f.write(json.dumps(case, ensure_ascii=False) + "\n")
        return {s.id: s for s in load_suite(path).samples}


def record(row: dict[str, Any]) -> Record:
    return Record(
        "reviewed", "m", row["id"], "ok", row["reply"], row.get("finish", "stop"), Usage(), 0.0,
        1, "suite", row.get("lang", "en"),
    )  # fmt: skip


@dataclass(frozen=True)
class Graded:
    row: dict[str, Any]
    score: Score

    @property
    def agrees(self) -> bool:
        return self.score.outcome == self.row["verdict"]

    @property
    def false_correct(self) -> bool:
        return self.score.outcome == "correct" and self.row["verdict"] != "correct"


def grade_table(table: list[dict[str, Any]]) -> list[Graded]:
    samples = suite_samples(table)
    return [Graded(row, grade(record(row), samples[row["id"]])) for row in table]


def agreement(graded: list[Graded]) -> str:
    lines = []
    kinds = list(dict.fromkeys(g.row["kind"] for g in graded))
    for kind in [*kinds, "all"]:
        part = [g for g in graded if kind in ("all", g.row["kind"])]
        agree = sum(g.agrees for g in part)
        false_correct = sum(g.false_correct for g in part)
        unscored = sum(g.score.outcome == "unscored" for g in part)
        lines.append(
            f"{kind:<11} {agree:>3}/{len(part):<3} agree ({agree / len(part):.0%}), "
            f"{false_correct} false correct, {unscored} unscored"
        )
    return "\n".join(lines)


def main() -> int:
    graded = grade_table(rows())
    print(agreement(graded))
    by_class: Counter[str] = Counter()
    for g in graded:
        if not g.agrees:
            by_class[f"{g.row['kind']}/{g.row['class']}"] += 1
            print(
                f"  {g.row['id']}: reviewer {g.row['verdict']}, rules {g.score.outcome}"
                f" ({g.score.rule}: {g.score.explanation})"
            )
    if by_class:
        print("disagreements by class:", dict(by_class.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
