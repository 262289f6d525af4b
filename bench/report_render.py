"""How long report.html takes for 50 models × 1,000 items, against a baseline from the same run.

    .venv/bin/python bench/report_render.py [--models 50] [--items 1000] [--no-browser]

Builds synthetic graded answers in memory (no store, no model), then times:
  baseline   json.dumps of the same answers as plain dicts (what any JSON export costs)
  metrics    proctor.stats.summarize over them
  html       proctor.report.html.report_html: the page alone (charts, tables, the embedded
             sample document), then as a run writes it (adding the error taxonomy and the
             paired tests of adjacent models, which proctor.stats works out)
  browser    headless Chromium (Debian's chromium + chromium-driver) opening the file until the
             sample browser has drawn its first page, then applying a filter (skipped when
             chromium is missing or with --no-browser)
and prints each with its ratio to the baseline, and the file size.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from common import headless_chromium

from proctor.report.html import report_html
from proctor.stats import summarize
from proctor.stats.multiple import ranked_comparisons
from proctor.stats.run_statistics import TaskView, build_statistics
from proctor.stats.scores import scores_by_model
from proctor.stats.taxonomy import taxonomy_counts
from proctor.stats.tiers import TIERS
from proctor.types import GradedItem, Outcome, Record, RunInfo, Sample, Score, Usage

T = TypeVar("T")
CATEGORIES = ("integer", "decimal", "mixed", "fraction", "bigint")
RULES = {
    "final_answer_line": "The answer is read from the last 'Final answer:' line.",
    "numeric": "The number must equal the target exactly.",
    "last_number": "Fallback: the last number that is not an operand.",
}


def synthetic(n_models: int, n_items: int, seed: int = 7) -> tuple[RunInfo, list[GradedItem]]:
    rng = random.Random(seed)
    samples = []
    for i in range(n_items):
        a, b = rng.randint(100, 99999), rng.randint(10, 9999)
        samples.append(
            Sample(
                id=f"arith-{i:05d}",
                input=f"{a} × {b}",
                target=str(a * b),
                category=CATEGORIES[i % len(CATEGORIES)],
                difficulty=("easy", "medium", "hard")[i % 3],
            )
        )
    models = [f"vendor{m % 7}/model-{m:02d}-{(m % 9 + 1) * 3}b" for m in range(n_models)]
    items: list[GradedItem] = []
    for m, model in enumerate(models):
        skill = 0.3 + 0.65 * m / max(n_models - 1, 1)
        for s in samples:
            right = rng.random() < skill
            outcome: Outcome = (
                "correct"
                if right
                else rng.choice(("wrong", "wrong", "wrong", "no_answer", "truncated"))
            )
            answer = s.target if right else str(int(s.target) + rng.randint(-999, 999))
            steps = " ".join(
                f"step {k}: carry the {rng.randint(1, 9)}." for k in range(rng.randint(1, 6))
            )
            text = f"Let me compute {s.input}. {steps}\nFinal answer: {answer}"
            items.append(
                GradedItem(
                    sample=s,
                    record=Record(
                        run_id="bench",
                        model=model,
                        sample_id=s.id,
                        status="ok",
                        text=text,
                        finish_reason="length" if outcome == "truncated" else "stop",
                        usage=Usage(60, len(text.split())),
                        latency_s=rng.random() * 3,
                        attempts=1,
                        prompt_variant="B",
                        lang="en",
                    ),
                    score=Score(
                        outcome=outcome,
                        rule="final_answer_line+numeric",
                        explanation="equal to the target" if right else f"{answer} ≠ {s.target}",
                        extracted=None if outcome == "no_answer" else answer,
                        normalized=None if outcome == "no_answer" else answer,
                        format_ok=outcome != "no_answer",
                    ),
                )
            )
    info = RunInfo(
        run_id="bench-run",
        task="arithmetic",
        models=tuple(models),
        dataset_hash="sha256:bench",
        dataset_size=n_items,
        generator_version="bench",
        prompt_variant="B",
        lang="en",
        created_at="2026-01-01T00:00:00Z",
    )
    return info, items


def timed(fn: Callable[[], T], repeat: int = 3) -> tuple[float, T]:
    """Best of `repeat` wall-clock runs, and the result of the last."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def browser_seconds(path: Path) -> tuple[float, float] | None:
    """(open until the first page of samples is drawn, apply an outcome filter), or None."""
    try:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import Select, WebDriverWait

        driver = headless_chromium()
    except (ImportError, RuntimeError):
        return None
    try:
        driver.set_page_load_timeout(120)
        ready = "return document.documentElement.getAttribute('data-browser-ready')"
        start = time.perf_counter()
        driver.get(path.resolve().as_uri())
        WebDriverWait(driver, 120, poll_frequency=0.05).until(lambda d: d.execute_script(ready))
        opened = time.perf_counter() - start
        start = time.perf_counter()
        Select(driver.find_element(By.ID, "f-outcome")).select_by_value("wrong")
        filtered = time.perf_counter() - start
        shown = driver.find_element(By.ID, "sample-count").text
        print(f"  after the filter: {shown}")
        return opened, filtered
    finally:
        driver.quit()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=50)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()

    info, items = synthetic(args.models, args.items)
    print(f"report.html for {args.models} models × {args.items} items = {len(items):,} answers")

    def baseline() -> str:
        # The least any export of these answers costs: their fields, flat, through json.dumps.
        return json.dumps(
            [
                [
                    i.record.model,
                    i.sample.id,
                    i.sample.input,
                    i.sample.target,
                    i.sample.category,
                    i.sample.difficulty,
                    i.record.text,
                    i.score.outcome,
                    i.score.extracted,
                    i.score.rule,
                    i.score.explanation,
                    i.record.latency_s,
                ]
                for i in items
            ],
            ensure_ascii=False,
        )

    base_s, base_text = timed(baseline)
    metrics_s, _ = timed(lambda: summarize(items, models=info.models))
    view = TaskView("arithmetic", rules=RULES, tiers=TIERS)
    stats_s, stats = timed(lambda: build_statistics(info, items, view), repeat=1)
    bare = dataclasses.replace(stats, taxonomy={}, paired=())
    core_s, _ = timed(lambda: report_html(bare))
    html_s, html = timed(lambda: report_html(stats), repeat=1)
    size = len(html.encode("utf-8"))
    print(f"  baseline json.dumps of the answers  {base_s:7.3f} s  {len(base_text) / 1e6:7.1f} MB")
    print(f"  summarize (metrics)                 {metrics_s:7.3f} s  ×{metrics_s / base_s:5.2f}")
    print(f"  build_statistics (every statistic)  {stats_s:7.3f} s  ×{stats_s / base_s:5.2f}")
    print(
        f"  report_html, page only              {core_s:7.3f} s  ×{core_s / base_s:5.2f}"
        "  (charts, tables, sample browser; taxonomy and paired tests given as empty)"
    )
    print(
        f"  report_html, as written by a run    {html_s:7.3f} s  ×{html_s / base_s:5.2f}"
        f"  {size / 1e6:7.1f} MB (×{size / len(base_text.encode()):.2f} the baseline's size)"
        "\n    (adds the error taxonomy and the paired tests of adjacent models, from stats)"
    )
    taxonomy_s, _ = timed(lambda: taxonomy_counts(items), repeat=1)
    order = list(stats.models)
    paired_s, _ = timed(
        lambda: ranked_comparisons(scores_by_model(items), order, pairs="adjacent"), repeat=1
    )
    print(f"    of which stats.taxonomy_counts    {taxonomy_s:7.3f} s")
    print(f"    of which adjacent paired tests    {paired_s:7.3f} s  ({len(order) - 1} pairs)")
    if args.no_browser:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.html"
        path.write_text(html, encoding="utf-8")
        measured = browser_seconds(path)
    if measured is None:
        print("  browser: skipped (no /usr/bin/chromium + /usr/bin/chromedriver + selenium)")
    else:
        opened, filtered = measured
        print(f"  Chromium: open to first page drawn  {opened:7.3f} s  ×{opened / base_s:5.2f}")
        print(f"  Chromium: outcome filter over all   {filtered:7.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
