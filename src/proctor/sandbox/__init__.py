"""Running what we do not trust, or cannot interrupt, in another process with limits.

- `run_job` / `run_python`: a model's code (and, for a benchmark, its tests) in the sandbox;
  `isolation_report` says what isolation was in force, as measured.
- `BoundedWorker`: a helper process for calls that must be bounded in time from any thread.

Imports nothing of proctor but itself: it sits below every grading stage.

Threat model
------------
The adversary writes the candidate's code: any Python, knowing this source. It wins if a wrong
solution is graded correct, if it reads or changes anything of the host (files, secrets, other
runs, the network, processes), or if it makes grading fail, hang or leave something behind.
We trust the kernel, the interpreter's memory safety, the benchmark's tests and prompt, and the
parent process; not the candidate's code, nor anything it returns, prints or leaves on disk.

Routes and what stops each (every one is a row of tests/sandbox/cases/hostile.json):

- Forge the verdict: print "passed", exit early with status 0, find the token in the harness's
  frames or heap (`sys._getframe`, `inspect.stack`, a traceback's `tb_frame`, `gi_frame`, signal
  handlers' frames, `gc.get_objects`/`get_referrers`, ctypes, `/proc/self/mem`, a fresh process).
  The verdict is a line on a pipe of its own carrying a one-time token and the harness's pid;
  it is written only after the tests ran, never by a forked copy. The audit hook (installed
  first, irremovable) refuses the frame routes, the gc lists, ctypes, marshal and hand-made code
  objects, running programs, new audit hooks and subinterpreters; `_signal.signal` and `_imp`'s
  re-creation of built-in modules are replaced before the candidate runs; there is no /proc.
- Subvert the tests: a trace or profile hook, patched builtins or modules, a redefined prompt
  helper, a fork that tries several answers. The tests run in a namespace of their own with
  pristine builtins and the prompt's own names; the modules they use are snapshotted and checked;
  settrace/setprofile and (for benchmarks) fork are refused.
- Fool the comparison: an object equal to anything (its own class, a subclass of a built-in,
  `unittest.mock.ANY`, inside a container, an iterator or an argument). What a tested function
  returns, and what it leaves in a plain argument, must be built-in values: else a `violation`.
- Read the tests: they never touch disk (sent on fd 0, which is /dev/null by the time the
  candidate runs) and live in a namespace the candidate cannot name.
- Reach the host: own network, mount, PID, IPC and UTS namespaces; a new root on a tmpfs that
  shows only /usr, the interpreter, two files of /etc, five devices and /work (no /proc, /sys,
  /tmp, /run, /home, /root, results stores or sockets); a fresh uid with no capabilities and
  `no_new_privs`; a fixed environment with no keys.
- Exhaust the host: memory and tasks of the whole tree (cgroup v2/v1, else the launcher counts),
  /work a tmpfs of fixed size and inode count (noexec), wall time from the program's start,
  output drained into a bounded buffer; processes die with the namespace, and with proctor.
- Break the clean-up: the work folder vanishes with its mount namespace; folders on the host
  (mode "none") are removed without recursion, through permissions and immutable flags; stale
  folders and cgroups of killed proctor processes are swept at start.

Not covered: a memory-safety bug of CPython or of a C extension reachable from pure Python
(which could read the token), kernel bugs, side channels (timing), and CPU time shared with
other runs. Without namespaces ("none") only rlimits and a clean environment hold.
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
