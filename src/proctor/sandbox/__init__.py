"""Running what we do not trust, or cannot interrupt, in another process with limits.

- `run_job` / `run_python`: a model's code (and, for a benchmark, its tests) in the sandbox;
  `isolation_report` says what isolation was in force, as measured.
- `BoundedWorker`: a helper process for calls that must be bounded in time from any thread.

Imports nothing of proctor but itself: it sits below every grading stage.

Threat model
------------
The adversary writes the candidate's code: any Python, knowing this source and the public
benchmarks. It runs in the same interpreter as the harness and the tests, before them and again
whenever a test calls it, so it can rebind any name it can reach, patch any module, class or
function of the standard library (their dicts, `__class__`, `__code__`, closure cells), fill
internal tables (`copy._deepcopy_dispatch`, `re._cache`), seed or set `random`, and keep objects
that run its code later. It wins if a wrong solution is graded correct, if it reads or changes
anything of the host (files, secrets, other runs, the network, processes), or if it makes
grading fail, hang or leave something behind. We trust the kernel, the interpreter's memory
safety, the benchmark's tests and prompt, and the parent process; not the candidate's code, nor
anything it returns, prints or leaves on disk.

Defences and the guarantee each gives (every route is a row of tests/sandbox/cases/hostile.json
or tamper.json, run through `proctor run humaneval|mbpp --dataset`):

- The harness's own state is out of reach by construction. It runs in a globals dict of its own
  with its own copy of the builtins; the candidate's module gets another copy
  (`__builtins__` = a fresh dict of the pristine builtins), so what it rebinds there only its own
  code sees. Every builtin and function the harness uses after the candidate ran is a local bound
  at its start: its bytecode loads no global name (a test reads it), so no dictionary the
  candidate can reach is consulted.
- The tests' world is sealed. Before the candidate runs, the modules the tests and prompt import
  (the names MBPP's asserts use, `builtins`, `collections`) are walked down to their classes
  (metaclass, MRO, own dict), functions (code, defaults, closure cells), tables (dicts, lists,
  sets) and instances (class, dict), and each is recorded by identity. After the candidate's
  code ran and after every call the tests make, all of it is read again with C functions alone
  (no code of the candidate's runs while it looks, and the collector is paused): a module whose
  class, dict (a name changed or added) or binding in sys.modules changed, a class whose method
  table, bases or metaclass changed, an instance whose class or dict changed, is a `violation`.
  A sealed function's code and defaults can only change through setters CPython audits: the
  hook refuses them. The candidate's code runs, once its module is loaded, only inside the
  wrapper of the functions the tests call (and of each step of an iterator it returns), with the
  seal checked before and after; the cyclic collector is paused while the tests run and runs
  only inside that wrapper, so no finalizer of the candidate's runs between a check and the
  tests' next step. Guarantee: every call the tests make through a sealed module starts from
  the state it had before the candidate ran. Modules named only at the prompt's top level
  (`typing`, for annotations) are sealed by class and dict, not walked. `re`'s cache of compiled
  patterns is emptied before each check instead of compared (the tests and the candidate both
  fill it); an enum's cache of flag combinations (`re.I | re.M`) is bound but not compared.
- The tests' random draws are secret. Right before the tests and after every call to the
  candidate, `random`'s shared generator is reseeded from `os.urandom` by the C method (after
  the seal was checked, so it is the real one): a candidate that seeded or set the state at
  import, or inside a call, cannot know the next draw.
- Forge the verdict: print "passed", exit early with status 0, find the token in the harness's
  frames or heap (`sys._getframe`, `inspect.stack`, a traceback's `tb_frame`, `gi_frame`, signal
  handlers' frames, `gc.get_objects`/`get_referrers`, ctypes, `/proc/self/mem`, a fresh process).
  The verdict is a line on a pipe of its own carrying a one-time token and the harness's pid;
  it is written only after the tests ran, never by a forked copy. The audit hook (installed
  first, irremovable) refuses the frame routes, the gc lists, ctypes, marshal and hand-made code
  objects, running programs, new audit hooks and subinterpreters; `_signal.signal` and `_imp`'s
  re-creation of built-in modules are replaced before the candidate runs; there is no /proc.
- Subvert the tests otherwise: a trace or profile hook, a redefined prompt helper, a fork that
  tries several answers. The tests run in a namespace of their own with pristine builtins and
  the prompt's own names; settrace/setprofile and (for benchmarks) fork are refused.
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
other runs. Without namespaces ("none") only rlimits and a clean environment hold. The seal
sees Python-level state: C-level state of shared objects other than `random`'s generator (an
lru_cache's entries, ABC registries, the values of `__slots__` of instances) is not compared,
and a module that a sealed one holds but the tests do not import (the `os` that `random` holds)
is compared by identity only, not walked. MBPP's set-up code and asserts may build and use
objects of the candidate's classes directly (tasks 367 and 927): that code runs outside the
wrapper, so a change it makes and undoes before the next check is not seen. Tests that seed
their own generator (`random.Random(42)`) draw what anyone can compute, like a fixed assert; a
solution that knows a public benchmark's tests by heart is not tampering.
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
