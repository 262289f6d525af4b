"""The replies file and its matching rule, as `python -m proctor.stub --replies` had them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from proctor.replay import NO_REPLY, load_replies, reply_for


def test_the_longest_marker_the_prompt_contains_wins() -> None:
    replies = (("[q1]", "one"), ("[q1] longer", "longest wins"), ("[q2]", "two"))
    assert reply_for(replies, "[q2] what?") == "two"
    assert reply_for(replies, "[q1] longer one") == "longest wins"
    assert reply_for(replies, "[q1] short") == "one"
    assert (
        reply_for(replies, "[q3]") == NO_REPLY == "The stub has no scripted reply for this prompt."
    )


def test_markers_of_one_length_give_the_greatest_reply() -> None:
    assert reply_for((("ab", "x"), ("cd", "y")), "abcd") == "y"
    assert reply_for((("cd", "y"), ("ab", "x")), "abcd") == "y"


def test_a_file_is_a_json_object_of_strings_in_its_order(tmp_path: Path) -> None:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({"b": "2", "a": "1", "ü": "→"}), encoding="utf-8")
    assert load_replies(path) == (("b", "2"), ("a", "1"), ("ü", "→"))


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('["not", "an", "object"]', "must be a JSON object of strings"),
        ('{"a": 1}', "must be a JSON object of strings"),
        ("{not json", "Expecting property name"),
        ("{}", "has no replies"),
    ],
)
def test_a_bad_file_is_named_with_what_is_wrong(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "replies.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="^" + re.escape(f"--replies {path}: ")) as e:
        load_replies(path)
    assert says in str(e.value)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"--replies .*absent\.json: .*No such file"):
        load_replies(tmp_path / "absent.json")
