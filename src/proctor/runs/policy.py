"""A release decided over several runs by a policy (`proctor gate --policy release.toml RUN…
[--baseline RUN…]`): GO, NO-GO or INCONCLUSIVE, with the table of reasons.

Each task of the policy is matched to one candidate run (and, for a margin, one baseline run) by
task name (`policy_file.task_of`); its requirements are checked as `proctor gate` checks them
(`runs.gate`: the interval's bound decides; the run's own state first). Then by tier:

    critical     a FAIL (or a run that is incomplete or has failed calls) → NO-GO;
                 an INCONCLUSIVE check → INCONCLUSIVE
    supporting   a FAIL → NO-GO; INCONCLUSIVE is reported, not blocking
    advisory     reported only

A required task with no run → NO-GO. The decision: NO-GO when any reason blocks, else
INCONCLUSIVE when any critical check is undecided, else GO. Exit codes: 0 GO, 1 NO-GO,
7 INCONCLUSIVE (0 with --allow-inconclusive).

The runs are given as run ids (or prefixes, or `latest`) or as eval sets (`proctor run TASK
TASK …`): a set id, prefix or name stands for the set's runs. A task of the set with no run yet
(an unfinished set) is INCOMPLETE: it blocks when the task is required, critical or supporting;
a set's run that is itself incomplete blocks the same way (the run's state is checked first).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from proctor.errors import ConfigError
from proctor.runs.gate import GateAsk, gate_stored_run
from proctor.runs.policy_file import Policy, TaskRule, Tier, task_of
from proctor.runs.state import EXIT_CHECK_FAILED, EXIT_INCONCLUSIVE, EXIT_OK
from proctor.runs.stored import open_existing
from proctor.store import RunStore
from proctor.store import sets as sets_table

Decision = Literal["GO", "NO-GO", "INCONCLUSIVE"]
Effect = Literal["blocks", "undecided", "noted", "ok"]


@dataclass(frozen=True)
class Reason:
    """One line of the table: a task's check, its result and what it does to the decision."""

    task: str
    tier: Tier
    run: str
    check: str
    model: str
    value: str
    result: str
    """pass, FAIL, INCONCLUSIVE, MISSING or INCOMPLETE."""
    effect: Effect
    note: str = ""


@dataclass(frozen=True)
class PolicyVerdict:
    policy: Policy
    decision: Decision
    reasons: tuple[Reason, ...]
    code: int

    def sentence(self) -> str:
        blocking = [r for r in self.reasons if r.effect == "blocks"]
        open_ = [r for r in self.reasons if r.effect == "undecided"]
        if self.decision == "NO-GO":
            tasks = ", ".join(dict.fromkeys(r.task for r in blocking))
            return f"NO-GO: {len(blocking)} blocking reason(s), in {tasks}."
        if self.decision == "INCONCLUSIVE":
            tasks = ", ".join(dict.fromkeys(r.task for r in open_))
            return (
                f"INCONCLUSIVE: nothing blocks, but {len(open_)} critical check(s) in {tasks} "
                "lack the evidence to decide."
            )
        return f"GO: every critical and supporting check of {self.policy.name} holds."

    def markdown(self) -> str:
        """The decision and its table, for a pull request."""
        from proctor.report.markdown import escape_cell, markdown_table

        mark = {"GO": "✅", "NO-GO": "❌", "INCONCLUSIVE": "⚠️"}[self.decision]
        rows = [
            [escape_cell(r.task), r.tier, escape_cell(r.run), escape_cell(r.check),
             escape_cell(r.model), escape_cell(r.value), r.result, r.effect, escape_cell(r.note)]
            for r in self.reasons
        ]  # fmt: skip
        head = ["task", "tier", "run", "check", "model", "value", "result", "effect", "note"]
        return (
            f"## Release policy {escape_cell(self.policy.name)}: {mark} {self.decision}\n\n"
            f"**{escape_cell(self.sentence(), limit=None)}**\n\n{markdown_table(head, rows)}\n"
        )


def decide_policy(
    results_dir: Path,
    policy: Policy,
    candidates: Sequence[str],
    baselines: Sequence[str] = (),
    *,
    allow_inconclusive: bool = False,
) -> PolicyVerdict:
    """The policy over the candidate runs (ids, prefixes, `latest`, or eval sets standing for
    their runs) of the run store in `results_dir`; ConfigError when it has none, when a run or
    set is unknown or two runs claim one task."""
    with open_existing(results_dir) as store:
        reasons = _reasons(store, policy, candidates, baselines)
    blocks = any(r.effect == "blocks" for r in reasons)
    undecided = any(r.effect == "undecided" for r in reasons)
    decision: Decision = "NO-GO" if blocks else "INCONCLUSIVE" if undecided else "GO"
    code = {"GO": EXIT_OK, "NO-GO": EXIT_CHECK_FAILED, "INCONCLUSIVE": EXIT_INCONCLUSIVE}[decision]
    if decision == "INCONCLUSIVE" and allow_inconclusive:
        code = EXIT_OK
    return PolicyVerdict(policy, decision, tuple(reasons), code)


def _reasons(
    store: RunStore, policy: Policy, candidates: Sequence[str], baselines: Sequence[str]
) -> list[Reason]:
    """A line per task's check, and per task with no (complete) run."""
    runs, unrun = _by_task(store, candidates, "candidate")
    bases, _ = _by_task(store, baselines, "baseline")
    reasons: list[Reason] = []
    for rule in policy.tasks:
        run_id = runs.get(rule.task)
        if run_id is None and rule.task in unrun:
            effect: Effect = "blocks" if rule.required else _effect(rule.tier, "FAIL")
            reasons.append(Reason(rule.task, rule.tier, "—", "run complete", "—", "—",
                                  "INCOMPLETE", effect, unrun[rule.task]))  # fmt: skip
            continue
        if run_id is None:
            effect = "blocks" if rule.required else "noted"
            why = "a required task has no run" if rule.required else "not run (not required)"
            reasons.append(Reason(rule.task, rule.tier, "—", "run present", "—", "—", "MISSING",
                                  effect, why))  # fmt: skip
            continue
        reasons += _task_reasons(store, rule, run_id, bases.get(rule.task), bool(baselines))
    return reasons


def _task_reasons(
    store: RunStore, rule: TaskRule, run_id: str, baseline: str | None, any_baseline: bool
) -> list[Reason]:
    """The task's rows: a margin with no baseline run of the task (when baselines were given:
    it blocks; when none was: noted), the run's state (always read: a task with no requirement
    still needs a complete run), then each check."""
    from proctor.report.text import gate_value

    out: list[Reason] = []

    def add(check: str, model: str, value: str, result: str, effect: Effect, note: str) -> None:
        out.append(Reason(rule.task, rule.tier, run_id, check, model, value, result, effect, note))

    if rule.margin is not None and baseline is None:
        check = f"within {rule.margin * 100:g} points of the baseline"
        if any_baseline:
            add(check, "—", "—", "MISSING", _effect(rule.tier, "MISSING"), "no baseline of it")
        else:
            add(check, "—", "—", "not checked", "noted", "no --baseline given")
    checked = len(out)
    ask = GateAsk(
        requirements=rule.require or ("n>=1",),
        baseline=baseline if rule.margin else None,
        margin=rule.margin if baseline else None,
    )
    gate = gate_stored_run(store, run_id, ask)
    incomplete: Effect = "blocks" if rule.required else _effect(rule.tier, "FAIL")
    for problem in gate.problems:
        add("run complete", "—", "—", "INCOMPLETE", incomplete, problem)
    for row in gate.rows:
        if not rule.require and row.metric == "n":
            continue
        result = row.result
        add(row.requirement, row.model, gate_value(row), result, _effect(rule.tier, result),
            row.note)  # fmt: skip
    if len(out) == checked:  # nothing to check but that the run is there and complete
        add("run complete", "—", "—", "pass", "ok", "")
    return out


def _effect(tier: Tier, result: str) -> Effect:
    if result == "pass":
        return "ok"
    if tier == "advisory":
        return "noted"
    if result in ("FAIL", "MISSING"):
        return "blocks"
    return "undecided" if tier == "critical" else "noted"


def _by_task(
    store: RunStore, refs: Sequence[str], what: str
) -> tuple[dict[str, str], dict[str, str]]:
    """Per task, the run given for it; and per task of a given set that has no run yet, why.
    A ref naming a set (its id, a prefix of it, or its name) stands for the set's runs."""
    found: dict[str, str] = {}
    unrun: dict[str, str] = {}
    for ref in refs:
        set_id = sets_table.resolve_set(store, ref)
        if set_id is None:
            run_ids = [store.resolve(ref)]
        else:
            members = sets_table.read_set(store, set_id).members
            run_ids = [m.run_id for m in members if m.run_id]
            for m in members:
                if not m.run_id:
                    unrun.setdefault(m.task, f"set {set_id} has no run of it yet (unfinished)")
        for run_id in run_ids:
            task = task_of(store.run_config(run_id), store.run_info(run_id).task)
            if task in found and found[task] != run_id:
                hint = f" (set {set_id} asks it more than once: give its runs by id)"
                raise ConfigError(
                    f"two {what} runs for task {task!r}: {found[task]} and {run_id}; give one"
                    + (hint if set_id is not None else "")
                )
            found[task] = run_id
    return found, unrun
