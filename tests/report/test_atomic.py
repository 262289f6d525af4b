"""Report files are replaced whole or not at all, also when written as a stream."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

import pytest

from proctor.report.atomic import write_atomic, write_text_atomic


def test_a_streamed_file_is_written_whole(tmp_path: Path) -> None:
    path = tmp_path / "out" / "samples.csv"

    def rows(out: TextIO) -> None:
        for i in range(1000):
            out.write(f"{i},ü\r\n")

    assert write_atomic(path, rows) == path
    assert path.read_bytes() == "".join(f"{i},ü\r\n" for i in range(1000)).encode()
    assert [p.name for p in path.parent.iterdir()] == ["samples.csv"]


def test_a_stream_that_fails_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "samples.csv"
    write_text_atomic(path, "old\n")

    def half(out: TextIO) -> None:
        out.write("new, half of it")
        raise RuntimeError("a row could not be written")

    with pytest.raises(RuntimeError):
        write_atomic(path, half)
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["samples.csv"]
