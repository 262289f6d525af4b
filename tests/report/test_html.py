"""report.html without a browser: one self-contained document, escaped, with a strict policy."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from proctor.report import write_run_files
from proctor.report.html import content_security_policy, report_html
from proctor.report.html.sample_data import ROW_FIELDS, SAMPLE_FIELDS, script_json
from proctor.stats import summarize
from proctor.stats.paired import compare_paired
from support.hostile import EVIL_CATEGORY, EVIL_MODEL, HOSTILE_REPLIES, MODELS, PWN, Run
from support.run_stats import statistics


class Page(HTMLParser):
    """Every start tag with its attributes, and the text of each <script> and <style>."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.styles: list[str] = []
        self._open: str | None = None
        self._attrs: dict[str, str | None] = {}
        self._text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._open, self._attrs, self._text = tag, dict(attrs), []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == self._open:
            text = "".join(self._text)
            if tag == "script":
                self.scripts.append((self._attrs, text))
            else:
                self.styles.append(text)
            self._open = None

    def named(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.tags if name == tag]


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@pytest.fixture
def html(hostile: Run) -> str:
    return report_html(hostile.stats)


def test_script_json_leaves_nothing_that_ends_or_bends_a_script() -> None:
    value = {
        "a": "</script><script>alert(1)</script>",
        "b": "<!-- <script>",
        "c": "x\u2028y\u2029z",
        "d": "&amp; > <",
        "e": "最终答案：36",
        "f": "\ud800 lone",
    }
    text = script_json(value)
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in text
    assert "最终答案" in text  # not \u-escaped: Chinese stays compact
    text.encode("utf-8")  # a lone surrogate is kept as an escape, not as invalid UTF-8
    assert json.loads(text) == value


def test_one_file_two_scripts_both_ours(hostile: Run, html: str) -> None:
    page = Page(html)
    assert len(page.scripts) == 2
    (data_attrs, data), (code_attrs, _code) = page.scripts
    assert data_attrs == {"type": "application/json", "id": "proctor-data"}
    assert code_attrs == {}
    doc = json.loads(data)
    assert doc["row_fields"] == list(ROW_FIELDS) and doc["sample_fields"] == list(SAMPLE_FIELDS)
    assert len(doc["rows"]) == len(hostile.items)
    texts = [row[ROW_FIELDS.index("text")] for row in doc["rows"]]
    assert sorted(texts) == sorted(item.record.text for item in hostile.items)
    assert doc["models"] == [
        m.model for m in sorted(hostile.metrics.models, key=lambda m: -(m.accuracy or 0))
    ]
    # nothing is fetched: no external script, stylesheet, image, font or frame
    for tag in ("link", "img", "iframe", "object", "embed"):
        assert page.named(tag) == []
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html


def test_no_inline_handlers_or_styles_anywhere(html: str) -> None:
    page = Page(html)
    for tag, attrs in page.tags:
        for name in attrs:
            assert not name.startswith("on"), (tag, attrs)
            assert name != "style", (tag, attrs)
        for value in attrs.values():
            assert not (value or "").strip().lower().startswith("javascript:"), (tag, attrs)


def test_policy_names_exactly_our_script_and_stylesheet(html: str) -> None:
    page = Page(html)
    metas = [a for a in page.named("meta") if a.get("http-equiv") == "Content-Security-Policy"]
    assert len(metas) == 1
    policy = metas[0]["content"]
    assert policy == content_security_policy()
    directives = dict(d.strip().split(" ", 1) for d in (policy or "").split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == sha256(page.scripts[1][1])
    assert directives["style-src"] == sha256(page.styles[0])
    assert "unsafe-inline" not in (policy or "") and "unsafe-eval" not in (policy or "")


def test_outside_text_is_escaped_in_tables_and_charts(html: str) -> None:
    assert PWN in html  # shown, as text…
    assert "<img src=x" not in html  # …never as markup
    assert f"<script>{PWN}" not in html
    assert "&lt;img src=x onerror=window.__pwned=1&gt;" in html
    assert Page(html).named("img") == []
    assert EVIL_MODEL not in html and EVIL_CATEGORY not in html


def test_every_hostile_reply_round_trips(hostile: Run, html: str) -> None:
    data = Page(html).scripts[0][1]
    texts = {row[ROW_FIELDS.index("text")] for row in json.loads(data)["rows"]}
    for reply in HOSTILE_REPLIES:
        assert reply in texts


def test_sections_without_data_are_not_drawn(hostile: Run) -> None:
    """No empty section: without a taxonomy, sizes, a calculator run, a second model or a
    confidence, their sections are absent (not a heading over a "none" line)."""
    stats = replace(hostile.stats, taxonomy={}, paired=())
    html = report_html(stats)
    for gone in ('id="size"', 'id="calculator"', 'id="calibration"', 'id="paired"',
                 "Error taxonomy", "chart-scatter", "chart-dumbbell"):  # fmt: skip
        assert gone not in html
    one = [i for i in hostile.items if i.record.model == MODELS[0]]
    single = report_html(statistics(replace(hostile.info, models=(MODELS[0],)), one, {}))
    assert 'id="paired"' not in single and "Paired comparisons" not in single
    assert 'id="ranking"' in single


def test_stats_sections_are_worked_out_from_the_run(hostile: Run) -> None:
    """Without extras: the taxonomy, sizes read from model names, and adjacent paired tests."""
    sized = {MODELS[0]: "fake/qwen2.5-7b", MODELS[1]: "fake/smollm2-135m"}
    items = [
        replace(i, record=replace(i.record, model=sized.get(i.record.model, i.record.model)))
        for i in hostile.items
    ]
    info = replace(hostile.info, models=tuple(dict.fromkeys(i.record.model for i in items)))
    html = report_html(statistics(info, items, hostile.rules))
    page = Page(html)
    assert "chart-scatter" in html
    assert len([a for t, a in page.tags if t == "circle"]) == 2
    assert f"size unknown for 1 model(s): {EVIL_MODEL}" in html.replace("&lt;", "<").replace(
        "&gt;", ">"
    )
    assert "chart-stacked" in html and "The wrong answer fits none of the error rules." in html
    assert html.count('class="pair significant"') + html.count("not distinguishable") >= 1
    assert "exact McNemar" in html and "(Holm)" in html
    assert 'id="paired"' in html


def test_optional_sections_draw_when_given(hostile: Run) -> None:
    calc_items = [i for i in hostile.items if i.record.model != MODELS[1]]
    paired = compare_paired([1, 1, 0, 1] * 10, [0, 1, 0, 0] * 10, names=(MODELS[0], EVIL_MODEL))
    stats = statistics(
        hostile.info,
        hostile.items,
        hostile.rules,
        prompts=lambda sample: f"Solve: <{int(sample.id[1:])}>",
        sizes={MODELS[0]: 7e9, EVIL_MODEL: 1.35e8},
    )
    stats = replace(
        stats,
        calculator=summarize(calc_items),
        taxonomy={MODELS[0]: {"carry": 3, "sign": 1}, EVIL_MODEL: {"dropped digit": 2}},
        paired=(paired,),
    )
    html = report_html(stats)
    page = Page(html)
    circles = [a for t, a in page.tags if t == "circle"]
    # two scatter points and two dumbbells of two points
    assert len(circles) == 2 + 2 * 2
    assert f"size unknown for 1 model(s): {MODELS[1]}" in html
    assert "chart-dumbbell" in html and "chart-scatter" in html
    assert "dropped digit" in html
    assert "better than" in html and "exact McNemar" in html
    assert 'id="calculator"' in html and 'id="paired"' in html
    data = json.loads(page.scripts[0][1])
    assert data["samples"][0][SAMPLE_FIELDS.index("prompt")] == "Solve: <0>"


def test_write_run_files_adds_report_html(hostile: Run, tmp_path: Path) -> None:
    paths = write_run_files(tmp_path, hostile.stats)
    report = tmp_path / "report.html"
    assert report in paths
    raw = report.read_bytes()
    assert raw.startswith(b"<!DOCTYPE html>") and b'<meta charset="utf-8">' in raw
    raw.decode("utf-8")


def test_lone_surrogate_in_a_reply_still_writes(hostile: Run, tmp_path: Path) -> None:
    first = hostile.items[0]
    odd = replace(
        first,
        record=replace(first.record, text="bad \udcff byte"),
        sample=replace(first.sample, input="q \ud800"),
    )
    items = [odd, *hostile.items[1:]]
    html = report_html(statistics(hostile.info, items, hostile.rules))
    html.encode("utf-8")
    data = json.loads(Page(html).scripts[0][1])
    assert "bad \udcff byte" in {row[ROW_FIELDS.index("text")] for row in data["rows"]}


def test_empty_run_renders(hostile: Run) -> None:
    html = report_html(statistics(hostile.info, [], hostile.rules))
    assert "0 of 0" not in html  # counts are drawn by the script
    assert re.search(r"<svg class=\"chart chart-ranking", html)
