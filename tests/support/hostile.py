"""A run whose replies, names and questions try to break out of the page."""

from __future__ import annotations

from proctor.stats import summarize
from proctor.types import (
    GenerationParams,
    GradedItem,
    Outcome,
    Record,
    RunInfo,
    Sample,
    Score,
    Usage,
)

from .run_stats import Run

PWN = "window.__pwned=1"
EVIL_MODEL = f"evil/<img src=x onerror={PWN}>"
EVIL_CATEGORY = f"<script>{PWN}</script>"
LONG_REPLY = "Let me think step by step. " * 800 + "\nFinal answer: 36"
CHINESE_REPLY = "计算过程：12 × 3 = 36\n最终答案：36"

HOSTILE_REPLIES: tuple[str, ...] = (
    f"<script>{PWN}</script>",
    f'<img src=x onerror="{PWN}">',
    f"</script><script>{PWN}</script>",
    f"<!-- <script>{PWN}</script>",
    f"</SCRIPT ><svg onload={PWN}>",
    "&lt;b&gt; stays as written &amp; so does {{ 7 * 7 }}",
    "line\u2028separator\u2029paragraph",
    CHINESE_REPLY,
    LONG_REPLY,
    'Final answer: 36 <a href="javascript:window.__pwned=1">click</a>',
)

RULES = {
    "final_answer_line": "The answer is read from the last 'Final answer:' line.",
    "numeric": "The number must equal the target exactly.",
}
MODELS = ("fake/good", "fake/bad", EVIL_MODEL)
CATEGORIES = ("integer", "decimal", "分数", EVIL_CATEGORY)
N_SAMPLES = 40
RUN_ID = "2026-06-01T09-00-00-hostile"


def outcome_of(model_index: int, i: int) -> Outcome:
    """fake/good: 3 in 4 right; fake/bad: 1 in 4; the evil model: 1 in 2, and one failed call."""
    if model_index == 2 and i == 5:
        return "call_failed"
    every = (4, 4, 2)[model_index]
    right = (3, 1, 1)[model_index]
    return "correct" if i % every < right else ("truncated" if i % 10 == 9 else "wrong")


def expected_count(outcome: Outcome, model: str | None = None) -> int:
    return sum(
        1
        for mi, name in enumerate(MODELS)
        for i in range(N_SAMPLES)
        if outcome_of(mi, i) == outcome and model in (None, name)
    )


def sample(i: int) -> Sample:
    question = f"{i} × 3" if i % 7 else f"<b>{i}</b> × 3 </script><script>{PWN}</script>"
    return Sample(
        id=f"s{i:03d}",
        input=question,
        target=str(i * 3),
        category=CATEGORIES[i % len(CATEGORIES)],
        difficulty=("easy", "medium", "hard")[i % 3],
    )


def reply(i: int) -> str:
    return HOSTILE_REPLIES[i % len(HOSTILE_REPLIES)]


def hostile_run() -> Run:
    items: list[GradedItem] = []
    for mi, model in enumerate(MODELS):
        for i in range(N_SAMPLES):
            s = sample(i)
            outcome = outcome_of(mi, i)
            failed = outcome == "call_failed"
            text = "" if failed else reply(i + mi)
            items.append(
                GradedItem(
                    sample=s,
                    record=Record(
                        run_id=RUN_ID,
                        model=model,
                        sample_id=s.id,
                        status="call_failed" if failed else "ok",
                        text=text,
                        finish_reason="length" if outcome == "truncated" else "stop",
                        usage=Usage(30, len(text.split())),
                        latency_s=0.1 + i / 100,
                        attempts=1,
                        prompt_variant="B",
                        lang="en",
                        error=f"Transient: <i>{PWN}</i>" if failed else "",
                    ),
                    score=Score(
                        outcome=outcome,
                        rule="final_answer_line+numeric",
                        explanation=f"graded {outcome}: <u>{i}</u>",
                        extracted=None if failed else (s.target if outcome == "correct" else "<7>"),
                        normalized=None if failed else s.target,
                        format_ok=outcome == "correct",
                    ),
                )
            )
    info = RunInfo(
        run_id=RUN_ID,
        task="arithmetic",
        models=MODELS,
        dataset_hash="sha256:hostile",
        dataset_size=N_SAMPLES,
        generator_version=f"<script>{PWN}</script>",
        prompt_variant="B",
        lang="en",
        created_at="2026-06-01T09:00:00Z",
        params=GenerationParams(),
    )
    return Run(info, items, summarize(items, models=info.models), dict(RULES))
