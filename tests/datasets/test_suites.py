"""Reading suite files: a real CSV reader (quoted commas, quotes and line breaks in cells, Chinese,
BOM, CRLF), JSONL with native JSON values, the config beside the suite, and every problem as a
DatasetError naming file, line and column (table: cases/loader_errors.json)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from proctor.datasets.suites.case import CaseSpec
from proctor.datasets.suites.config import load_config
from proctor.datasets.suites.loader import load_suite, read_cases
from proctor.datasets.suites.version import NOT_IN_GIT, suite_version
from proctor.errors import ConfigError, DatasetError

CASES = Path(__file__).parent / "cases"
ERRORS: list[dict[str, Any]] = json.loads(
    (CASES / "loader_errors.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("row", ERRORS, ids=[r["name"] for r in ERRORS])
def test_every_problem_names_file_line_and_column(row: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / row["file"]
    path.write_text(row["text"], encoding="utf-8")
    with pytest.raises(DatasetError) as info:
        read_cases(path)
    err = info.value
    assert (err.file, err.line, err.field) == (str(path), row["line"], row["field"]), str(err)
    assert row["message"] in err.message
    where = str(path) if row["line"] is None else f"{path}:{row['line']}"
    assert str(err).startswith(where)


def test_a_real_csv_reader_reads_quoted_commas_line_breaks_and_chinese(tmp_path: Path) -> None:
    text = (
        "\ufeffid,kind,material,question,expected,match,notes,x_owner\r\n"
        'e1,extraction,"张三，李四, and ""Wang"" met.\r\nSecond line, with a comma.",'
        '"提取姓名，只输出 JSON。","{""name"": ""张三, Jr.""}",name=contains,'
        '"依据：见第二行",ops\r\n'
        "\r\n"
        "e2,refusal,材料,问题？,,,,\r\n"
    )
    path = tmp_path / "suite.csv"
    path.write_bytes(text.encode("utf-8"))
    samples = read_cases(path)
    assert [s.id for s in samples] == ["e1", "e2"]
    first = CaseSpec.from_metadata(samples[0].metadata)
    assert first.material == '张三，李四, and "Wang" met.\r\nSecond line, with a comma.'
    assert first.expected == {"name": "张三, Jr."}
    assert first.match == {"*": "exact", "name": "contains"}
    assert first.lang == "zh"
    assert first.source == f"{path}:2"
    assert samples[0].metadata["x_owner"] == "ops"
    assert samples[0].input.startswith("材料：\n张三，李四")
    assert samples[1].metadata["source"] == f"{path}:5"
    assert samples[1].target == "材料未提及。"


def test_jsonl_takes_native_json_values(tmp_path: Path) -> None:
    lines = [
        {
            "id": "s1",
            "kind": "summary",
            "material": "Revenue grew 12%.",
            "question": "Summarise.",
            "points": [["12%", "twelve percent"], "revenue"],
            "forbidden": ["declined"],
        },
        {"id": "r1", "kind": "rewrite", "prompt": "Shorten: ...", "constraints": {"max_length": 9}},
        {
            "id": "e1",
            "kind": "extraction",
            "question": "q",
            "expected": {"n": 1},
            "match": "contains",
        },
    ]
    path = tmp_path / "suite.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    s1, r1, e1 = (CaseSpec.from_metadata(s.metadata) for s in read_cases(path))
    assert s1.points == [["12%", "twelve percent"], ["revenue"]]
    assert s1.forbidden == [["declined"]]
    assert s1.lang == "en"
    assert r1.constraints == {"max_length": 9}
    assert e1.match == {"*": "contains"}


def test_points_and_constraints_in_cell_syntax(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text(
        "id,kind,question,points,constraints,forbidden\n"
        's,summary,q,"1.2亿｜1.2 亿；18%|百分之十八\n服务器",,\n'
        "r,rewrite,q,,max_sentence=25; required=退款|七天，优惠券,亲\n",
        encoding="utf-8",
    )
    s, r = (CaseSpec.from_metadata(x.metadata) for x in read_cases(path))
    assert s.points == [["1.2亿", "1.2 亿"], ["18%", "百分之十八"], ["服务器"]]
    assert r.constraints == {"max_sentence": 25, "required": ["退款", "七天", "优惠券"]}
    assert r.forbidden == [["亲"]]


def test_metadata_round_trip_keeps_everything_grading_needs(tmp_path: Path) -> None:
    suite = load_suite(Path(__file__).parents[2] / "examples" / "support-desk.csv")
    for sample in suite.samples:
        spec = CaseSpec.from_metadata(sample.metadata)
        assert spec.to_metadata() == {
            k: v for k, v in sample.metadata.items() if not k.startswith("x_")
        }


def test_config_beside_the_suite(tmp_path: Path) -> None:
    path = tmp_path / "team.csv"
    path.write_text("id,kind,question\nf,refusal,几点？\n", encoding="utf-8")
    (tmp_path / "team.toml").write_text(
        'name = "team"\nrefusal_phrases = ["查不到"]\n[gate]\nrequire = ["accuracy>=0.9"]\n',
        encoding="utf-8",
    )
    suite = load_suite(path)
    assert suite.name == "team"
    assert suite.config.gate.require == ["accuracy>=0.9"]
    assert CaseSpec.from_metadata(suite.samples[0].metadata).phrases == ["查不到"]
    assert suite.run_config()["gate"] == {"require": ["accuracy>=0.9"], "alpha": 0.05}


def test_a_config_in_yaml(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    path = tmp_path / "team.yaml"
    path.write_text("name: team\nmax_tokens: 99\ngate:\n  require: [accuracy>=0.5]\n")
    config = load_config(path)
    assert (config.name, config.max_tokens, config.gate.require) == ("team", 99, ["accuracy>=0.5"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('nmae = "x"\n', "nmae: Extra inputs are not permitted"),
        ("max_tokens = 0\n", "max_tokens: Input should be greater than or equal to 1"),
        ('match = "fuzzy"\n', "match: Input should be 'exact' or 'contains'"),
        ('judge_kinds = ["sumary"]\n', "judge_kinds.0"),
        ("name = \n", "bad TOML"),
    ],
)
def test_config_errors_name_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "team.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(str(path))
    assert message in str(info.value)


def test_two_configs_beside_one_suite_are_an_error(tmp_path: Path) -> None:
    path = tmp_path / "team.csv"
    path.write_text("id,kind,question\nf,refusal,q\n", encoding="utf-8")
    (tmp_path / "team.toml").write_text("", encoding="utf-8")
    (tmp_path / "team.yml").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match="two configs"):
        load_suite(path)


def test_version_outside_git(tmp_path: Path) -> None:
    path = tmp_path / "team.csv"
    path.write_text("id,kind,question\nf,refusal,q\n", encoding="utf-8")
    version = suite_version([path])
    assert version.content_hash.startswith("sha256:")
    assert (version.git_commit, version.git_dirty, version.git_note) == (None, None, NOT_IN_GIT)
    path.write_text("id,kind,question\nf,refusal,q2\n", encoding="utf-8")
    assert suite_version([path]).content_hash != version.content_hash


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_version_in_a_git_repository(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )

    git("init", "-q")
    path = tmp_path / "team.csv"
    path.write_text("id,kind,question\nf,refusal,q\n", encoding="utf-8")
    git("add", "team.csv")
    git("commit", "-q", "-m", "first case")
    clean = suite_version([path])
    assert clean.git_commit is not None and len(clean.git_commit) == 40
    assert (clean.git_dirty, clean.git_note) == (False, "")
    path.write_text("id,kind,question\nf,refusal,q?\n", encoding="utf-8")
    dirty = suite_version([path])
    assert (dirty.git_dirty, dirty.git_note) == (True, "changed since the commit")
    config = tmp_path / "team.toml"
    config.write_text("", encoding="utf-8")
    assert suite_version([path, config]).git_note == "not committed"


def test_a_refusal_phrase_from_the_config_counts_for_every_case(tmp_path: Path) -> None:
    from proctor.tasks.suite import grade
    from proctor.types import Record, Usage

    path = tmp_path / "team.csv"
    path.write_text(
        "id,kind,material,question\nf,refusal,会议在周五。,几点开会？\n", encoding="utf-8"
    )
    reply = "按规定不予回答。"

    def verdict() -> str:
        (sample,) = load_suite(path).samples
        record = Record("r", "m", "f", "ok", reply, "stop", Usage(), 0.0, 1, "suite", "zh")
        return grade(record, sample).outcome

    assert verdict() == "wrong"  # not a phrasing proctor knows
    (tmp_path / "team.toml").write_text('refusal_phrases = ["不予回答"]\n', encoding="utf-8")
    assert verdict() == "correct"
