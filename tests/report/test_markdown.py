from __future__ import annotations

import re

from proctor.report.markdown import EXAMPLES_PER_MODEL, escape_cell, summary_markdown

from .conftest import Run, build_many, build_run

UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def _markdown(run: Run) -> str:
    return summary_markdown(run.stats)


def test_escape_cell() -> None:
    assert escape_cell("a|b\nc") == "a\\|b<br>c"
    assert escape_cell("x\r\ny") == "x<br>y"
    assert escape_cell("2*3_4 <b>") == "2\\*3\\_4 &lt;b&gt;"
    assert escape_cell("z" * 500).endswith("…")


def test_every_table_row_has_as_many_cells_as_its_header(run: Run) -> None:
    columns = None
    for line in _markdown(run).splitlines():
        if not line.startswith("|"):
            columns = None
            continue
        cells = len(UNESCAPED_PIPE.findall(line))
        if columns is None:
            columns = cells
        assert cells == columns, line


def test_pipes_and_newlines_are_escaped(run: Run) -> None:
    text = _markdown(run)
    assert "local/smol\\|lm" in text
    assert "a \\| b<br>second line" in text
    assert "local/smol|lm | " not in text


def test_sections(run: Run) -> None:
    text = _markdown(run)
    for heading in ("Ranking", "Accuracy by category", "Accuracy by difficulty", "Outcomes"):
        assert f"### {heading}" in text
    assert "sha256:0123456789abcdef" in text
    assert "arith-1.2.0" in text
    assert "| 1 | openai/gpt-4o | 75.0 % | [30.1–95.4] | 3/4 | ? |" in text
    assert "can carry numeric work without tools" in text
    assert text.count("unreliable at arithmetic") == 1


def test_at_most_five_failures_per_model() -> None:
    run = build_run()
    text = _markdown(run)
    weak = text.split("<summary>local/smol|lm")[1]
    example_rows = [line for line in weak.splitlines() if line.startswith("| ")][1:]
    assert len(example_rows) == EXAMPLES_PER_MODEL
    assert "5 of 8 failures" in weak
    assert "call_failed" not in weak.split("</details>")[0]


def _table_after(text: str, heading: str) -> list[str]:
    """The first table under a heading."""
    lines = text.split(f"### {heading}\n\n")[1].splitlines()
    end = next((i for i, line in enumerate(lines) if not line.startswith("|")), len(lines))
    return lines[:end]


def test_fifty_models_get_a_row_each_in_slice_tables() -> None:
    run = build_many(50, 40)
    text = _markdown(run)
    for heading, values in (
        ("Accuracy by category", ["integer", "decimal", "mixed", "fraction", "bigint"]),
        ("Accuracy by difficulty", ["easy", "medium", "hard"]),
    ):
        table = _table_after(text, heading)
        assert table[0] == "| " + " | ".join(["model", *values]) + " |"
        assert len(table) == 2 + 50
        assert table[2].startswith("| openai-compat/m01@http://127.0.0.1:18555/v1 | 100.0 % (n=")
    ranking = _table_after(text, "Ranking")
    assert len(ranking) == 2 + 50
    assert all(f"openai-compat/m{i:02d}@http://127.0.0.1:18555/v1" in text for i in range(1, 51))
    assert _table_after(text, "Wrong numeric answers by kind")[0].startswith("| model | ")
    assert "\n| kind | rule |\n" in text  # the taxonomy's rules in a table of their own
    test_every_table_row_has_as_many_cells_as_its_header(run)


def test_four_models_keep_a_column_each() -> None:
    table = _table_after(_markdown(build_many(4, 40)), "Accuracy by category")
    assert table[0].startswith("|  | openai-compat/m01@http://127.0.0.1:18555/v1 | ")
    assert len(table) == 2 + 5  # a row per category


def test_tier_legend_only_for_arithmetic() -> None:
    assert "### Tiers" in _markdown(build_many(2, 10))
    assert "### Tiers" not in _markdown(build_many(2, 10, task="gsm8k"))


def test_tier_column_only_for_arithmetic() -> None:
    def ranking_head(text: str) -> list[str]:
        line = next(x for x in text.splitlines() if x.startswith("| # | model | accuracy"))
        return [cell.strip() for cell in line.strip("|").split("|")]

    assert "tier" in ranking_head(_markdown(build_many(2, 10)))
    head = ranking_head(_markdown(build_many(2, 10, task="gsm8k")))
    assert "tier" not in head and head[-2:] == ["format", "retries"]
