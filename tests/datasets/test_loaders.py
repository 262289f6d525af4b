"""Loading test-set files: what must load (BOM, CRLF, quoted commas, newlines in cells, Chinese,
blank lines) and a table of malformed files, each with the file, line, field and message
fragment its DatasetError must name."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.datasets.loaders import load_samples
from proctor.datasets.schema import infer_answer_type
from proctor.errors import DatasetError
from proctor.types import Sample

OK = '{"id": "a", "input": "1 + 1", "target": "2"}'
BOM = b"\xef\xbb\xbf"


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


# (case, file name, content, message fragment, line, field)
BAD: list[tuple[str, str, str | bytes, str, int | None, str | None]] = [
    ("bad JSON", "t.jsonl", OK + '\n{"id": "b", "input": \n', "bad JSON: Expecting value", 2, None),
    ("trailing garbage", "t.jsonl", OK + " x\n", "bad JSON: Extra data", 1, None),
    (
        "not an object",
        "t.jsonl",
        OK + "\n[1, 2]\n",
        "expected a JSON object, got an array",
        2,
        None,
    ),
    ("a bare string", "t.jsonl", '"id"\n', "expected a JSON object, got a string", 1, None),
    (
        "missing target",
        "t.jsonl",
        '{"id": "a", "input": "x"}\n',
        "missing required field",
        1,
        "target",
    ),
    (
        "missing id",
        "t.jsonl",
        OK + '\n{"input": "x", "target": "1"}\n',
        "missing required field",
        2,
        "id",
    ),
    (
        "id of the wrong type",
        "t.jsonl",
        '{"id": 7, "input": "x", "target": "1"}\n',
        "must be a string, got a number (7)",
        1,
        "id",
    ),
    (
        "target as a number",
        "t.jsonl",
        '{"id": "a", "input": "x", "target": 2}\n',
        "must be a string, got a number (2)",
        1,
        "target",
    ),
    (
        "decimals of the wrong type",
        "t.jsonl",
        '{"id": "a", "input": "x", "target": "1.5", "decimals": "1"}\n',
        "must be an integer",
        1,
        "decimals",
    ),
    (
        "metadata not an object",
        "t.jsonl",
        '{"id": "a", "input": "x", "target": "1", "metadata": [1]}\n',
        "must be an object, got an array",
        1,
        "metadata",
    ),
    ("empty id", "t.jsonl", '{"id": "  ", "input": "x", "target": "1"}\n', "empty id", 1, "id"),
    (
        "empty target",
        "t.jsonl",
        '{"id": "a", "input": "x", "target": " "}',
        "empty target",
        1,
        "target",
    ),
    ("empty input", "t.csv", "id,input,target\n1,,2\n", "empty input", 2, "input"),
    (
        "duplicate id",
        "t.jsonl",
        OK + "\n\n" + OK + "\n",
        "duplicate id 'a' (first on line 1)",
        3,
        "id",
    ),
    ("empty file", "t.jsonl", "", "no samples", None, None),
    ("only blank lines", "t.jsonl", "\n  \r\n\n", "no samples", None, None),
    (
        "unknown answer_type",
        "t.jsonl",
        '{"id": "a", "input": "x", "target": "1", "answer_type": "number"}\n',
        "unknown answer_type 'number'",
        1,
        "answer_type",
    ),
    (
        "bad difficulty",
        "t.jsonl",
        '{"id": "a", "input": "x", "target": "1", "difficulty": "trivial"}\n',
        "must be easy, medium or hard, got 'trivial'",
        1,
        "difficulty",
    ),
    (
        "unknown field",
        "t.jsonl",
        '{"id": "a", "input": "x", "taget": "1", "target": "1"}\n',
        "unknown field",
        1,
        "taget",
    ),
    (
        "key twice",
        "t.jsonl",
        '{"id": "a", "input": "x", "target": "1", "id": "b"}\n',
        "key appears twice",
        1,
        "id",
    ),
    (
        "target not an integer",
        "t.jsonl",
        '{"id": "a", "input": "x", "target": "12a", "answer_type": "integer"}\n',
        "'12a' is not a valid integer answer",
        1,
        "target",
    ),
    (
        "decimals disagree with target",
        "t.jsonl",
        '{"id": "a", "input": "x", "target": "12.5", "decimals": 2}\n',
        "is 2 but target '12.5' has 1 digits",
        1,
        "decimals",
    ),
    (
        "decimals on a fraction",
        "t.jsonl",
        '{"id": "a", "input": "x", "target": "1/3", "answer_type": "fraction", "decimals": 2}\n',
        "only a decimal answer has decimals",
        1,
        "decimals",
    ),
    ("not UTF-8", "t.jsonl", OK.encode() + b'\n{"id": "\xff"}\n', "not UTF-8 text", 2, None),
    ("CSV broken quote", "t.csv", 'id,input,target\n1,"abc,2\n', "bad CSV", 2, None),
    ("CSV text after a quote", "t.csv", 'id,input,target\n1,"abc"x,2\n', "bad CSV", 2, None),
    ("CSV missing column", "t.csv", "id,input\n1,x\n", "missing column", 1, "target"),
    (
        "CSV short row",
        "t.csv",
        "id,input,target\n1,x,2\n2,y\n",
        "row has 2 cells but the header has 3",
        3,
        None,
    ),
    (
        "CSV duplicate id after a multi-line cell",
        "t.csv",
        'id,input,target\n1,"two\nlines",2\n1,y,3\n',
        "duplicate id '1' (first on line 2)",
        4,
        "id",
    ),
    (
        "CSV decimals not a number",
        "t.csv",
        "id,input,target,decimals\n1,x,2.5,two\n",
        "must be an integer, got 'two'",
        2,
        "decimals",
    ),
    ("CSV header only", "t.csv", "id,input,target\r\n", "no samples", None, None),
    ("CSV column twice", "t.csv", "id,input,target,id\n1,x,2,3\n", "column appears twice", 1, "id"),
    (
        "CSV bad difficulty",
        "t.csv",
        "id,input,target,difficulty\n1,x,2,Easy\n",
        "must be easy, medium or hard",
        2,
        "difficulty",
    ),
    ("unsupported file type", "t.txt", OK, "unsupported file type '.txt'", None, None),
]


@pytest.mark.parametrize(
    ("name", "content", "fragment", "line", "field"),
    [case[1:] for case in BAD],
    ids=[case[0] for case in BAD],
)
def test_malformed_files(
    tmp_path: Path,
    name: str,
    content: str | bytes,
    fragment: str,
    line: int | None,
    field: str | None,
) -> None:
    path = _write(tmp_path, name, content)
    with pytest.raises(DatasetError) as caught:
        load_samples(path)
    err = caught.value
    assert fragment in err.message
    assert (err.file, err.line, err.field) == (str(path), line, field)
    assert str(path) in str(err)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="cannot read"):
        load_samples(tmp_path / "absent.jsonl")


def test_jsonl_with_bom_crlf_and_blank_lines(tmp_path: Path) -> None:
    content = (
        BOM
        + (
            OK + "\r\n\r\n   \r\n" + '{"id": "b", "input": "比较 3/7 和 5/11", "target": "<"}\r\n'
        ).encode()
    )
    samples = load_samples(_write(tmp_path, "t.jsonl", content))
    assert [s.id for s in samples] == ["a", "b"]
    assert samples[1].input == "比较 3/7 和 5/11"
    assert samples[1].answer_type == "comparison"


def test_jsonl_full_record(tmp_path: Path) -> None:
    line = (
        '{"id": "x-1", "input": "9.5 ÷ 4 (round to 2 decimal places)", "target": "2.38", '
        '"category": "decimal", "difficulty": "hard", "answer_type": "decimal", '
        '"decimals": 2, "metadata": {"expression": "9.5 / 4", "tags": ["a", "b"], "n": 3}}'
    )
    [s] = load_samples(_write(tmp_path, "t.jsonl", line))
    assert s == Sample(
        id="x-1",
        input="9.5 ÷ 4 (round to 2 decimal places)",
        target="2.38",
        category="decimal",
        difficulty="hard",
        answer_type="decimal",
        decimals=2,
        metadata={"expression": "9.5 / 4", "tags": '["a", "b"]', "n": "3"},
    )


def test_csv_with_quotes_newlines_bom_crlf_and_chinese(tmp_path: Path) -> None:
    content = (
        BOM
        + (
            "id,input,target,category,tag\r\n"
            '1,"Compute 1,234 + 5",1239,integer,x\r\n'
            '2,"第一行\r\n第二行, 还有逗号",好,,\r\n'
            "\r\n"
            '3,"He said ""hi""",12.50,,\r\n'
        ).encode()
    )
    samples = load_samples(_write(tmp_path, "t.csv", content))
    assert [s.input for s in samples] == [
        "Compute 1,234 + 5",
        "第一行\r\n第二行, 还有逗号",
        'He said "hi"',
    ]
    assert samples[0].metadata == {"tag": "x"} and samples[0].category == "integer"
    assert samples[1].metadata == {} and samples[1].answer_type == "text"
    assert (samples[2].answer_type, samples[2].decimals, samples[2].target) == (
        "decimal",
        2,
        "12.50",
    )


def test_csv_metadata_column_and_extra_columns_merge(tmp_path: Path) -> None:
    content = 'id,input,target,metadata,source\n1,x,3/4,"{""k"": ""v""}",book\n'
    [s] = load_samples(_write(tmp_path, "t.csv", content))
    assert s.metadata == {"k": "v", "source": "book"}
    assert s.answer_type == "fraction"


@pytest.mark.parametrize(
    ("target", "answer_type", "decimals"),
    [
        ("42", "integer", None),
        ("-5", "integer", None),
        ("12.50", "decimal", 2),
        ("-0.125", "decimal", 3),
        ("3/4", "fraction", None),
        ("-3/4", "fraction", None),
        ("<", "comparison", None),
        ("=", "comparison", None),
        ("yes", "text", None),
        ("1,234", "text", None),
        ("3/0", "text", None),
        ("", "text", None),
    ],
)
def test_answer_type_inference(target: str, answer_type: str, decimals: int | None) -> None:
    assert infer_answer_type(target) == (answer_type, decimals)


def test_typed_targets_are_stripped_but_text_is_kept(tmp_path: Path) -> None:
    content = "id,input,target,answer_type\n1,x, 42 ,\n2,y, free text ,text\n"
    a, b = load_samples(_write(tmp_path, "t.csv", content))
    assert (a.target, a.answer_type) == ("42", "integer")
    assert (b.target, b.answer_type) == (" free text ", "text")
