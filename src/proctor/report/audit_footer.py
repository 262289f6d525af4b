"""The sentence every report ends with: how the task's grader fared on its hand-labelled audit
set (`proctor audit`), as last recorded in builtin/audit/audited.json."""

from __future__ import annotations

from proctor.datasets.audit import recorded_audits


def grader_audit_line(task: str) -> str:
    """ "grader audited: 0 false correct in 69 labelled replies (…)", or that it is not."""
    record = recorded_audits().get(task)
    if record is None:
        return f"grader not audited: no hand-labelled replies for {task} yet (proctor audit)"
    return (
        f"grader audited: {record.false_correct} false correct in {record.labelled} labelled"
        f" replies ({record.false_wrong} false wrong, {record.unscored} unscored;"
        f" {record.grader_version}, proctor audit {task})"
    )
