"""`rule_docs`: the rules tables list each rule by name with its docstring on one line."""

from __future__ import annotations

from proctor._util.rule_docs import one_line, rule_docs


def _first() -> None:
    """Takes the line
    that says it.
    """


def _second() -> None:
    pass


def test_each_rule_by_name_in_order_with_its_doc_on_one_line() -> None:
    table = rule_docs(_second, _first)
    assert list(table) == ["_second", "_first"]
    assert table["_first"] == "Takes the line that says it."
    assert table["_second"] == ""  # no docstring: an empty description, not "None"


def test_one_line_folds_breaks_and_indentation() -> None:
    assert one_line("  a\n\n    b\tc  ") == "a b c"
    assert one_line(None) == ""
