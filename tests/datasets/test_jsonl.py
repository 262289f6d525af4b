"""Writing JSONL (fixed key order, UTF-8 unescaped, LF, atomic) and the content hash."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from proctor.datasets.arithmetic import generate
from proctor.datasets.jsonl import content_hash, write_jsonl
from proctor.datasets.loaders import load_samples
from proctor.types import Sample

PLAIN = Sample(id="q1", input="比较 3/7 和 5/11", target="<", answer_type="comparison")
FULL = Sample(
    id="q2",
    input="9.5 ÷ 4 (round to 2 decimal places)",
    target="2.38",
    category="decimal",
    difficulty="easy",
    answer_type="decimal",
    decimals=2,
    metadata={"z": "1", "a": "2"},
)


def test_line_format(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    write_jsonl([PLAIN, FULL], path)
    data = path.read_bytes()
    assert b"\r" not in data and data.endswith(b"\n") and data.count(b"\n") == 2
    assert "比较".encode() in data  # not \u escapes
    first, second = data.decode("utf-8").splitlines()
    assert list(json.loads(first)) == [
        "id",
        "input",
        "target",
        "category",
        "difficulty",
        "answer_type",
    ]
    assert list(json.loads(second)) == [
        "id",
        "input",
        "target",
        "category",
        "difficulty",
        "answer_type",
        "decimals",
        "metadata",
    ]
    assert list(json.loads(second)["metadata"]) == ["z", "a"]


def test_round_trip(tmp_path: Path) -> None:
    samples = [PLAIN, FULL, *generate(4, 200)]
    path = tmp_path / "set.jsonl"
    write_jsonl(samples, path)
    assert load_samples(path) == samples
    assert content_hash(load_samples(path)) == content_hash(samples)


def test_failure_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "set.jsonl"
    write_jsonl([PLAIN], path)
    before = path.read_bytes()

    def broken(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        write_jsonl([FULL], path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["set.jsonl"]


def test_failing_samples_write_nothing(tmp_path: Path) -> None:
    def samples() -> Iterator[Sample]:
        yield PLAIN
        raise RuntimeError("generator broke")

    with pytest.raises(RuntimeError):
        write_jsonl(samples(), tmp_path / "set.jsonl")
    assert list(tmp_path.iterdir()) == []


def test_new_file_mode_follows_umask(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    write_jsonl([PLAIN], path)
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_content_hash() -> None:
    h = content_hash([PLAIN, FULL])
    assert re.fullmatch(r"sha256:[0-9a-f]{16}", h)
    assert content_hash([PLAIN, FULL]) == h
    assert content_hash([FULL, PLAIN]) != h  # order is part of the paper
    changed = Sample(**{**FULL.__dict__, "target": "2.39"})
    assert content_hash([PLAIN, changed]) != h
    reordered = Sample(**{**FULL.__dict__, "metadata": {"a": "2", "z": "1"}})
    assert content_hash([PLAIN, reordered]) == h  # keys are sorted
    assert content_hash(generate(1, 50)) != content_hash(generate(2, 50))


@pytest.mark.parametrize("samples", [[], [PLAIN], [PLAIN, FULL], generate(3, 40)])
def test_content_hash_is_the_hash_of_the_whole_array(samples: list[Sample]) -> None:
    # Hashed in pieces, it must equal the hash of the paper written as one JSON array: stored
    # runs are found again (resumed) by this hash.
    from proctor.datasets.jsonl import sample_dict

    whole = json.dumps(
        [sample_dict(s) for s in samples], ensure_ascii=False, sort_keys=True, separators=(",", ":")
    )
    assert content_hash(samples) == "sha256:" + hashlib.sha256(whole.encode()).hexdigest()[:16]


def test_the_default_paper_keeps_its_hash() -> None:
    # Changing it would orphan every stored default run (the same command would start afresh).
    assert content_hash(generate(42, 50)) == "sha256:5a94ca98d74be5ec"
