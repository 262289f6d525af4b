"""Prompt files (`proctor.prompts.files`): what cannot be one is refused naming the file and the
line first (a bad template, an unknown name — the answer above all —, bytes that are not UTF-8,
an empty or huge file, a bad front matter); then what one is: its parts, its hash, its render."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.prompts.files import (
    MAX_PROMPT_BYTES,
    NAMES,
    PromptFile,
    read_prompt_file,
    render_messages,
)


def _file(tmp_path: Path, text: str | bytes, name: str = "p.txt") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("Solve.\n\n{{ target }}\n", r"p.txt:3: unknown name 'target'"),
        ("Solve.\n{{ question }}\n{{ metadata.solution }}\n", r"p.txt:3: unknown name 'metadata'"),
        ("{{ question }\n", r"p.txt:1: template error"),
        ("Solve.\n\n{% if question %}\n{{ question }}\n", r"p.txt:\d+: template error"),
        ("---\nsystem: You {{ answer }}\n---\n{{ question }}\n", r"p.txt:2: unknown name 'answer'"),
        ("---\nsystem: x\nfoo: y\n---\n{{ question }}\n", r"p.txt:3: unknown front matter key"),
        ("---\nsystem: [unclosed\n---\n{{ question }}\n", r"p.txt:\d+: bad front matter"),
        ("---\nsystem: x\n{{ question }}\n", r"p.txt:1: .*never closed"),
        ("---\nsystem: x\n---\n\n", r"p.txt:4: no user message"),
        ("---\ngrade_as: [A]\n---\n{{ question }}\n", r"p.txt:2: grade_as must be text"),
        ("", r"prompt file .*p.txt is empty"),
        ("  \n\n", r"prompt file .*p.txt is empty"),
    ],
)
def test_what_cannot_be_a_prompt_file_is_refused_naming_file_and_line(
    tmp_path: Path, text: str, says: str
) -> None:
    with pytest.raises(ConfigError, match=says):
        read_prompt_file(_file(tmp_path, text))


# Each front matter error names the line it is on, whatever shape the YAML has: a block scalar's
# text starts on the line below its key (`|` keeps its lines, `>` folds them), YAML marks an
# unclosed quote or bracket on the last line at the closing '---', a key may be quoted.
FRONT_MATTER_LINES = [
    ("---\nsystem: a: b\n---\n{{ question }}\n", 2, "bad front matter: mapping values"),
    ("---\nsystem: |\n  You are careful.\n  Say {{ lang }\n---\n{{ question }}\n", 4,
     "template error"),
    ("---\nsystem: |\n  You are careful.\n  Say {{ target }}\n---\n{{ question }}\n", 4,
     "unknown name 'target'"),
    ("---\nsystem: >\n  You are careful.\n  Say {{ lang }\n---\n{{ question }}\n", 4,
     "template error"),
    ("---\nsystem: >\n  You are careful.\n\n  Say {{ answer }}\n---\n{{ question }}\n", 5,
     "unknown name 'answer'"),
    ("---\nsystem: >-\n  One\n  two\n  {% if lang %}x\n---\n{{ question }}\n", 5,
     "template error"),
    ("---\nsystem: |\n  a\n  b\ngrade_as: 3\n---\n{{ question }}\n", 5, "grade_as must be text"),
    ("---\nsystem: |\n  a\nfoo: |\n  b\n---\n{{ question }}\n", 4, "unknown front matter key"),
    ("---\nsystem: x\ngrade_as: 'unterminated\n---\n{{ question }}\n", 3,
     "bad front matter: found unexpected end of stream"),
    ("---\nsystem: |\n  a\ngrade_as: [B\n\n---\n{{ question }}\n", 4, "bad front matter"),
    ("---\nsystem: x\ngrade_as: B\nfoo: [\n---\n{{ question }}\n", 4, "bad front matter"),
    ("---\nsystem:\tx\n---\n{{ question }}\n", 2, "bad front matter: found character '\\t'"),
    ("---\nsystem: |\n  a\n\tb\n---\n{{ question }}\n", 4, "bad front matter"),
    ('---\n"system": |\n  Say {{ target }}\n---\n{{ question }}\nsystem: x\n', 3,
     "unknown name 'target'"),
    ("---\nsystem: |\n  a\n  b\n---\nFirst.\n{{ target }}\n", 7, "unknown name 'target'"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "line", "says"), FRONT_MATTER_LINES)
def test_a_front_matter_error_names_its_own_line(
    tmp_path: Path, text: str, line: int, says: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        read_prompt_file(_file(tmp_path, text))
    assert str(raised.value).startswith(f"{tmp_path / 'p.txt'}:{line}: "), str(raised.value)
    assert says in str(raised.value)


def test_a_block_scalar_system_part_and_an_empty_front_matter_read_as_written(
    tmp_path: Path,
) -> None:
    literal = "---\nsystem: |\n  You are careful.\n  Answer in {{ lang }}.\n---\n{{ question }}\n"
    found = read_prompt_file(_file(tmp_path, literal))
    assert found.system == "You are careful.\nAnswer in {{ lang }}.\n"
    assert found.user_line == 6
    messages = render_messages(found, {"question": "1+1", "lang": "en"})
    assert [m.content for m in messages] == ["You are careful.\nAnswer in en.", "1+1"]
    folded = literal.replace("|", ">")
    assert read_prompt_file(_file(tmp_path, folded)).system == (
        "You are careful. Answer in {{ lang }}.\n"
    )
    empty = read_prompt_file(_file(tmp_path, "---\n---\n{{ question }}\n"))
    assert (empty.system, empty.user, empty.user_line) == ("", "{{ question }}\n", 3)


def test_bytes_that_are_not_utf8_are_refused_with_their_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"p.txt:2: not UTF-8 text"):
        read_prompt_file(_file(tmp_path, b"Solve.\n\xff{{ question }}\n"))


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"larger than"):
        read_prompt_file(_file(tmp_path, "x" * (MAX_PROMPT_BYTES + 1)))


def test_a_missing_file_or_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        read_prompt_file(tmp_path / "gone.txt")
    (tmp_path / "dir.txt").mkdir()
    with pytest.raises(ConfigError, match="not a regular file"):
        read_prompt_file(tmp_path / "dir.txt")


@pytest.mark.parametrize("name", ["a,b.txt", "a#b.txt", "a=b.txt", "a b.txt"])
def test_a_name_that_cannot_be_in_a_model_string_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ConfigError, match="rename it"):
        read_prompt_file(_file(tmp_path, "{{ question }}", name))


def test_the_sandbox_refuses_to_reach_outside_the_names(tmp_path: Path) -> None:
    found = read_prompt_file(_file(tmp_path, "{{ question.__class__.__mro__ }}"))
    with pytest.raises(ConfigError, match="cannot render"):
        render_messages(found, dict.fromkeys(NAMES, "x"))


def test_a_file_is_its_parts_its_text_and_its_hash(tmp_path: Path) -> None:
    text = "---\nsystem: You are careful with {{ lang }}.\ngrade_as: A\n---\nQ: {{ question }}\n"
    path = _file(tmp_path, text, "concise.txt")
    found = read_prompt_file(path)
    assert found.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert found.key == f"concise.txt@{found.sha256[:8]}" and found.name == "concise.txt"
    assert found.path == str(path.resolve()) and found.text == text
    assert found.grade_as == "A" and found.user == "Q: {{ question }}\n" and found.user_line == 5
    assert PromptFile.from_json(found.to_json()) == found
    names = {**dict.fromkeys(NAMES, ""), "question": "1 + 1", "lang": "en"}
    system, user = render_messages(found, names)
    assert (system.role, system.content) == ("system", "You are careful with en.")
    assert (user.role, user.content) == ("user", "Q: 1 + 1")


def test_without_front_matter_the_whole_file_is_the_user_message(tmp_path: Path) -> None:
    found = read_prompt_file(_file(tmp_path, "Answer only.\n\n{{ question }}\n"))
    assert found.system == "" and found.grade_as is None and found.user_line == 1
    (user,) = render_messages(found, {**dict.fromkeys(NAMES, ""), "question": "2 * 3"})
    assert user.content == "Answer only.\n\n2 * 3"


def test_an_unknown_names_line_is_the_tag_that_names_it(tmp_path: Path) -> None:
    text = "Find the target.\n\n{{ question }}\n{% if target %}yes{% endif %}\n"
    with pytest.raises(ConfigError, match=r"p.txt:4: unknown name 'target'"):
        read_prompt_file(_file(tmp_path, text))


def test_a_template_that_fails_on_its_values_is_a_config_error(tmp_path: Path) -> None:
    found = read_prompt_file(_file(tmp_path, "{{ question }} {{ 1 / 0 }}"))
    with pytest.raises(ConfigError, match=r"p.txt: cannot render: ZeroDivisionError"):
        render_messages(found, dict.fromkeys(NAMES, "x"))
