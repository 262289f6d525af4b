"""The leaderboard written down: a set's folder (`<results>/sets/<set>/`: report.html and
leaderboard.json, after each run of the set is reported) and `proctor leaderboard --html PATH`.
The board is read once (`proctor.runs.leaderboard.read_leaderboard`, built in
`proctor.stats.leaderboard`); the files only format it, each written atomically."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

from proctor.report.atomic import write_text_atomic
from proctor.report.html.board_pages import leaderboard_report_html
from proctor.runs.leaderboard import BoardReading, read_leaderboard
from proctor.stats.cost import load_price_table
from proctor.store.run_store import RUNS_DIR

SETS_DIR = "sets"


def set_dir(results_dir: Path, set_id: str) -> Path:
    """`<results_dir>/sets/<set_id>`: where a set's own report files are."""
    return results_dir / SETS_DIR / set_id


def write_board_html(reading: BoardReading, path: Path, results_dir: Path, scope: str) -> Path:
    """The board as a self-contained HTML page at `path`; each cell links to its run's
    report.html, relative to where the page is."""
    runs = (results_dir / RUNS_DIR).resolve()
    here = path.resolve().parent

    def run_link(run_id: str) -> str:
        return quote(Path(os.path.relpath(runs / run_id / "report.html", here)).as_posix())

    html = leaderboard_report_html(reading.board, reading.notes, scope=scope, run_link=run_link)
    return write_text_atomic(path, html)


def board_json(reading: BoardReading) -> str:
    """The board as `proctor leaderboard --json` prints it: its numbers and its notes."""
    doc = {**reading.board.to_json(), "notes": list(reading.notes)}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def write_set_report(results_dir: Path, set_id: str, prices: Path | None = None) -> list[Path]:
    """The set's leaderboard (its models × its tasks, what is missing shown) into the set's
    folder: report.html and leaderboard.json; `prices` a price table file added to the built-in
    one (`--prices`)."""
    reading = read_leaderboard(results_dir, (set_id,), prices=load_price_table(prices))
    folder = set_dir(results_dir, set_id)
    return [
        write_board_html(reading, folder / "report.html", results_dir, set_id),
        write_text_atomic(folder / "leaderboard.json", board_json(reading)),
    ]
