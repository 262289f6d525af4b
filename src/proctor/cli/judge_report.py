"""How `proctor judge --against` shows and keeps a judge's validation: a few lines in the
terminal and `judge_validation.json` in the run folder (what `proctor gate` reads for
`judge_kappa`; one entry per judge, the last validation of each)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.text import Text

from proctor.audit.judge_validation import FILE, JudgeValidation
from proctor.report.atomic import write_text_atomic
from proctor.stats.agreement import Agreement


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _kappa(a: Agreement) -> str:
    if a.kappa is None:
        return "undefined (one label on both sides)"
    if a.kappa_low is None or a.kappa_high is None:
        return f"{a.kappa:.3f}"
    return f"{a.kappa:.3f} (95 % interval {a.kappa_low:.3f} to {a.kappa_high:.3f})"


def print_validation(v: JudgeValidation, console: Console) -> None:
    o = v.overall
    what = "a / b / tie" if v.pairwise else f"pass = score >= {v.pass_score}"
    console.print(Text(f"Judge {v.judge} against {v.labels} ({what})", style="bold"))
    console.print(
        Text(
            f"  {o.n} of {v.labelled} labelled answers compared"
            f" ({v.unjudged} not judged, {v.unscored} without a valid verdict)"
        )
    )
    positive = "a" if v.pairwise else "pass"
    console.print(
        Text(f"  agreement {_pct(o.share)} ({o.agree} of {o.n}); Cohen's kappa {_kappa(o)}")
    )
    console.print(
        Text(f"  base rate ({positive}): judge {_pct(o.judge_rate)}, humans {_pct(o.human_rate)}")
    )
    if len(v.per_model) > 1:
        for model, a in v.per_model.items():
            console.print(Text(f"  {model}: agreement {_pct(a.share)} of {a.n}, kappa {_kappa(a)}"))
    for model, c in v.corrected.items():
        console.print(
            Text(
                f"  {model}: judge-measured accuracy {_pct(c.raw)} ({_pct(c.raw_low)}–"
                f"{_pct(c.raw_high)}); corrected by {c.labelled} labels (prediction-powered "
                f"inference): {_pct(c.estimate)} ({_pct(c.low)}–{_pct(c.high)}, 95 %)"
            )
        )
    if v.pairwise:
        console.print(
            Text(
                f"  position bias: {_pct(v.position_bias)} of {v.position_pairs} pairs had the same"
                " position win in both orders"
            )
        )
    if v.repeats > 1:
        console.print(
            Text(
                f"  self-consistency over {v.repeats} repeats: {_pct(v.self_consistency)} of"
                f" {v.consistency_items} answers got the same verdict every time"
            )
        )


def write_validation(run_dir: Path, v: JudgeValidation) -> Path:
    path = run_dir / FILE
    judges: dict[str, object] = {}
    if path.is_file():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            old = {}
        if isinstance(old, dict) and isinstance(old.get("judges"), dict):
            judges = dict(old["judges"])
    judges[v.judge] = v.as_json()
    document = {
        "about": "proctor judge --against: the last validation of each judge",
        "judges": judges,
    }
    write_text_atomic(path, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    return path
