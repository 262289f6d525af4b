"""How numbers and slices read, the same in every report."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from proctor._util.variants import matrix_axes, matrix_words
from proctor.types import OUTCOMES, Outcome, RunInfo

if TYPE_CHECKING:  # for types only: a run's progress line imports no statistics
    from proctor.stats.completeness import Completeness
    from proctor.stats.gates import GateRow
    from proctor.stats.metrics import Cell, ModelMetrics
    from proctor.stats.tiers import Tier

NONE = "—"
ALWAYS_SHOWN: tuple[Outcome, ...] = ("correct", "wrong")


def one_line(text: str, limit: int, *, tail: bool = False) -> str:
    """`text` on one line, cut to `limit` characters with "…" (its end kept when `tail`: where
    a reply gives its answer)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return "…" + text[-(limit - 1) :] if tail else text[: limit - 1] + "…"


def pct(value: float | None) -> str:
    """0.23 → "23.0 %"; nothing scored → "—"."""
    return NONE if value is None else f"{value * 100:.1f} %"


def completeness_problems(state: Completeness) -> list[tuple[str, str]]:
    """What keeps a stored run from being a success, (model, problem) per model and problem:
    answers never asked, calls a circuit breaker stopped, calls that failed (and their first
    cause)."""
    out: list[tuple[str, str]] = []
    for m in state.models:
        if m.missing and state.stopped_early:
            out.append(
                (m.model, f"{m.missing:,} of {m.expected:,} answers not asked: stopped early "
                 "by design")
            )  # fmt: skip
        elif m.missing:
            out.append((m.model, f"{m.missing:,} of {m.expected:,} answers not asked yet"))
        if m.not_asked:
            out.append(
                (m.model, f"{m.not_asked:,} of {m.expected:,} calls not asked "
                 "(its circuit breaker stopped it)")
            )  # fmt: skip
        if m.failed:
            out.append(
                (m.model, f"{m.failed:,} of {m.expected:,} calls failed; first cause: "
                 f"{m.first_cause} ({m.first_cause_calls:,} of {m.expected:,} calls)")
            )  # fmt: skip
    return out


def completeness_lines(state: Completeness) -> list[str]:
    """`completeness_problems` as lines: "MODEL: PROBLEM"."""
    return [f"{model}: {problem}" for model, problem in completeness_problems(state)]


def finishing_command(run_id: str, state: Completeness) -> str | None:
    """The command that finishes a run that is not a success: `--retry-errors` asks failed
    calls (and those a breaker stopped) again, and what is missing too; `--resume` asks only
    what is missing. None for a run that succeeded."""
    if any(m.failed or m.not_asked for m in state.models):
        return f"proctor run --retry-errors {run_id}"
    if state.incomplete:
        return f"proctor run --resume {run_id}"
    return None


def gate_value(row: GateRow) -> str:
    """A gate row's value as every output shows it: shares as percentages ("35.0 %"), the
    baseline's difference in points ("−2.5 pts"), a judge's mean score and kappa as numbers,
    counts whole; not measured → "—"."""
    if row.value is None or row.value != row.value:
        return NONE
    if row.metric == "judge_mean":
        return f"{row.value:.2f}"
    if row.metric == "judge_kappa":
        return f"{row.value:.3f}"
    if row.metric == "n":
        return f"{row.value:.0f}"
    if row.metric == "baseline":
        return f"{row.value * 100:+.1f} pts".replace("-", "−")
    if row.metric in SHARE_METRICS:
        return pct(row.value)
    return f"{row.value:.4g}"  # a turn run's own metric (a score, a count), as its grade has it


SHARE_METRICS = frozenset(
    {"accuracy", "consistency", "judge_unscored", "format", "failed", "truncated"}
)
"""Gate metrics that are shares of replies (`proctor.stats.gates.METRICS`)."""


def interval(low: float | None, high: float | None) -> str:
    """(0.159, 0.321) → "[15.9–32.1]"."""
    if low is None or high is None:
        return NONE
    return f"[{low * 100:.1f}–{high * 100:.1f}]"


def cell_text(cell: Cell | None) -> str:
    """Reads "23.0 % (n=20)", or "—" when the slice has nothing scored."""
    if cell is None or cell.accuracy is None:
        return NONE
    return f"{pct(cell.accuracy)} (n={cell.n})"


def slice_name(value: str) -> str:
    return value or "(none)"


def slice_values(slices: Iterable[Mapping[str, Cell]]) -> list[str]:
    """Union of the keys of several models' slices (by category or difficulty), first seen first."""
    values: dict[str, None] = {}
    for by in slices:
        values.update(dict.fromkeys(by))
    return list(values)


def shown_outcomes(models: Iterable[ModelMetrics]) -> list[Outcome]:
    """correct and wrong always; every other outcome only where some model has one."""
    rows = list(models)
    return [
        outcome
        for outcome in OUTCOMES
        if outcome in ALWAYS_SHOWN or any(m.outcomes[outcome] for m in rows)
    ]


def header_lines(info: RunInfo) -> list[tuple[str, str]]:
    """(label, value) pairs describing what the run was."""
    params = info.params
    dataset = f"{info.dataset_hash} ({info.dataset_size} samples)"
    if info.seed is not None:
        dataset += f", seed {info.seed}"
    axes = matrix_axes(info.models)
    temperature = ", ".join(axes.get("temperature", [f"{params.temperature:g}"]))
    generation = (
        f"temperature {temperature}, max_tokens {params.max_tokens}, "
        f"timeout {params.timeout_s:g} s"
    )
    if params.seed is not None:
        generation += f", sampling seed {params.seed}"
    prompt = ", ".join(axes.get("prompt", [info.prompt_variant]))
    prompt += " / " + ", ".join(axes.get("lang", [info.lang]))
    matrix = matrix_words(info.models)
    if matrix is not None:  # each variant is asked with its own settings
        prompt += f" ({matrix})"
    return [
        ("run", info.run_id),
        ("task", info.task),
        ("dataset", dataset),
        ("generator", info.generator_version or NONE),
        ("prompt", prompt),
        ("generation", generation),
        ("created", info.created_at),
    ]


def tier_legend(tiers: Sequence[Tier]) -> list[tuple[str, str, str]]:
    """(tier, accuracy range, meaning) for each tier of a scale, best first:
    ("B", "70–89 %", "…")."""
    rows: list[tuple[str, str, str]] = []
    upper: float | None = None
    for tier in tiers:
        low = f"{tier.min_accuracy * 100:g}"
        if upper is None:
            bounds = f"≥ {low} %"
        elif tier.min_accuracy <= 0.0:
            bounds = f"< {upper * 100:g} %"
        else:
            bounds = f"{low}–{upper * 100:g} %"
        rows.append((tier.name, bounds, tier.label))
        upper = tier.min_accuracy
    return rows


def _dropped(models: Sequence[str]) -> tuple[str, str]:
    """The "<provider>/" prefix and "@<url>" suffix that `short_names` drops ("" for none)."""
    names = list(dict.fromkeys(models))
    if len(names) < 2:
        return "", ""  # nothing to tell apart: the whole name says most
    heads = {m[: m.index("/") + 1] if "/" in m else "" for m in names}
    tails = {m[m.rindex("@") :] if "@" in m else "" for m in names}
    prefix = heads.pop() if len(heads) == 1 else ""
    suffix = tails.pop() if len(tails) == 1 else ""
    for p, s in ((prefix, suffix), ("", suffix), (prefix, "")):
        if not p and not s:
            continue
        if any(len(p) + len(s) > len(m) for m in names):
            continue  # prefix and suffix overlap ("a@b/c")
        labels = {m[len(p) : len(m) - len(s)] for m in names}
        if len(labels) == len(names) and all(label.strip() for label in labels):
            return p, s
    return "", ""


def short_names(models: Sequence[str]) -> dict[str, str]:
    """Each model's display label: the "@<url>" suffix and the "<provider>/" prefix that every
    model shares are dropped where the labels stay unique and non-empty; else the whole string.
    "openai-compat/m01@http://h/v1", "openai-compat/m02@http://h/v1" → "m01", "m02"."""
    prefix, suffix = _dropped(models)
    return {m: m[len(prefix) : len(m) - len(suffix)] for m in models}


def name_pattern(models: Sequence[str]) -> str | None:
    """What `short_names` dropped, as "openai-compat/<name>@http://h/v1"; None when nothing."""
    prefix, suffix = _dropped(models)
    if not prefix and not suffix:
        return None
    return f"{prefix}<name>{suffix}"


def names_line(models: Sequence[str]) -> str | None:
    """The line shown once when labels are short, so that nothing is hidden: "models: …"."""
    pattern = name_pattern(models)
    return None if pattern is None else f"models: {pattern}"
