"""Running what we do not trust, or cannot interrupt, in another process with limits.

- `run_python`: a program (a model's code and its tests) in a throwaway folder, in its own
  namespaces where the machine allows, with CPU, wall-time, memory, process and file limits;
  `isolation_report` says what isolation was in force, as measured.
- `BoundedWorker`: a helper process for calls that must be bounded in time from any thread.

Imports nothing of proctor but itself: it sits below every grading stage.
"""

from proctor.sandbox.isolation import Isolation, detect
from proctor.sandbox.process import (
    PROFILES,
    REFERENCE,
    STRICT,
    Job,
    Limits,
    RunStatus,
    SandboxResult,
    run_job,
    run_many,
    run_python,
)
from proctor.sandbox.report import IsolationReport, isolation_report
from proctor.sandbox.worker import BoundedWorker, WorkerReply

__all__ = [
    "PROFILES",
    "REFERENCE",
    "STRICT",
    "BoundedWorker",
    "Isolation",
    "IsolationReport",
    "Job",
    "Limits",
    "RunStatus",
    "SandboxResult",
    "WorkerReply",
    "detect",
    "isolation_report",
    "run_job",
    "run_many",
    "run_python",
]
