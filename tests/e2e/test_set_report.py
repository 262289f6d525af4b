"""A set's leaderboard written down, through the CLI against loopback stubs: `proctor run TASK
TASK -m A -m B` writes `<results>/sets/<set>/report.html` and `leaderboard.json`, and
`proctor leaderboard … --html PATH` writes the same table anywhere. Every number the page shows
is its run's results.json formatted (accuracy, interval), the mean over tasks is the board's;
a model whose calls failed is marked, a task a model never ran is shown missing; each cell
links to its run's report.html."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from support.stub.config import StubConfig
from support.stub.server import run_stub

pytestmark = pytest.mark.slow

N = 10


class _Table(HTMLParser):
    """The leaderboard's rows: per model, the text of each cell and each cell's link."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[str, list[tuple[str, str, str]]] = {}
        self._model: str | None = None
        self._cell: list[str] | None = None
        self._cls = self._href = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "tr" and a.get("data-model"):
            self._model = a["data-model"]
            self.rows[self._model or ""] = []
        elif tag == "td" and self._model is not None:
            self._cell, self._cls, self._href = [], a.get("class") or "", ""
        elif tag == "a" and self._cell is not None:
            self._href = a.get("href") or ""
        elif tag == "span" and self._cell is not None:
            self._cell.append("|")

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None and self._model is not None:
            self.rows[self._model].append(("".join(self._cell), self._cls, self._href))
            self._cell = None
        elif tag == "tr":
            self._model = None


def _table(path: Path) -> dict[str, list[tuple[str, str, str]]]:
    parser = _Table()
    parser.feed(path.read_text("utf-8"))
    return parser.rows


def _pct(x: float) -> str:
    return f"{x * 100:.1f} %"


def _mine(results: Path, run_id: str, model: str) -> dict[str, Any]:
    doc = json.loads((results / "runs" / run_id / "results.json").read_text("utf-8"))
    (mine,) = [m for m in doc["models"] if m["model"] == model]
    return dict(mine)


def _check_page(page: Path, board: dict[str, Any], results: Path) -> int:
    """Every row and cell of the page against the board and each run's results.json; returns
    the number of cells with a run."""
    table = _table(page)
    assert list(table) == [r["model"] for r in board["models"]]
    checked = 0
    for row in board["models"]:
        cells = table[row["model"]]
        # rank, model, mean, mean's interval, the tasks, vs next, tokens, cost
        assert cells[2][0] == _pct(row["mean"])
        assert cells[3][0] == f"{_pct(row['mean_ci_low'])}–{_pct(row['mean_ci_high'])}"
        for (text, cls, href), task in zip(cells[4:], board["tasks"], strict=False):
            cell = row["tasks"][task]
            if cell["state"] == "missing":
                assert text == "missing" and "state-missing" in cls and not href
                continue
            mine = _mine(results, cell["run_id"], row["model"])
            accuracy, interval = text.split("|")
            mark = {"complete": "", "calls failed": "!", "incomplete": "*"}[cell["state"]]
            assert accuracy == f"{mine['accuracy'] * 100:.1f}%{mark}"
            assert interval == f"{_pct(mine['ci_low'])}–{_pct(mine['ci_high'])}"
            target = (page.parent / href).resolve()
            assert target == (results / "runs" / cell["run_id"] / "report.html").resolve()
            assert target.is_file()
            checked += 1
    return checked


def test_a_sets_run_writes_its_leaderboard(tmp_path: Path, cli: Any) -> None:
    results = tmp_path / "results"
    with (
        run_stub(StubConfig(seed=1)) as good,
        run_stub(StubConfig(seed=2, correct_rate=0.5, fault_rate=0.3, faults=("500",))) as flaky,
    ):
        a, b = good.model.replace("stub@", "a@"), flaky.model.replace("stub@", "b@")
        done = cli(
            "run", "arithmetic", "gsm8k", "--limit", str(N), "-m", a, "-m", b,
            "-r", str(results), "--max-attempts", "1", "--max-failures", "0",
        )  # fmt: skip
        assert done.code == 4, done.output  # b's failed calls: the set's code
        alone = cli("run", "math500", "--limit", "3", "-m", a, "-r", str(results))
        assert alone.code == 0, alone.output
    (set_dir,) = (results / "sets").iterdir()
    page = set_dir / "report.html"
    assert f"set's leaderboard: {page}" in " ".join(done.out.split())
    board = json.loads((set_dir / "leaderboard.json").read_text("utf-8"))
    assert board["tasks"] == ["arithmetic", "gsm8k"]
    assert [r["model"] for r in board["models"]] == [a, b]
    states = {t: c["state"] for t, c in board["models"][1]["tasks"].items()}
    assert "calls failed" in states.values(), states
    assert _check_page(page, board, results) == 4
    html = page.read_text("utf-8")
    assert "Content-Security-Policy" in html and "/models/" not in html

    # anywhere else, with a run that is not the set's: b never ran math500
    other = tmp_path / "boards" / "board.html"
    shown = cli("leaderboard", set_dir.name, "latest", "--html", str(other), "--json",
                "-r", str(results))  # fmt: skip
    assert shown.code == 0, shown.output
    board = json.loads(shown.out)
    assert board["tasks"] == ["arithmetic", "gsm8k", "math500"]
    assert board["models"][1]["tasks"]["math500"]["state"] == "missing"
    assert _check_page(other, board, results) == 5
    assert f"wrote {other}" in shown.err
