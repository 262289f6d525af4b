"""An example plugin package, written into a folder by the tests: `acme-eval`, with a provider
(acme/NAME), a task (acme-triage) and a scorer (acme-label) declared as entry points in a
distribution's metadata, found on sys.path as `pip install` would leave them; and `broken-eval`,
whose entry points fail in each way a plugin can."""

from __future__ import annotations

from pathlib import Path

TICKETS = {
    "t01": ("I was charged twice, please send my money back", "refund"),
    "t02": ("The app crashes when I open settings", "bug"),
    "t03": ("How do I change my email address?", "question"),
    "t04": ("Refund my order 1182, it never arrived", "refund"),
    "t05": ("Export to CSV throws an error 500", "bug"),
    "t06": ("Can I use the API on the free plan?", "question"),
    "t07": ("I want my money back for the annual plan", "refund"),
    "t08": ("Login button does nothing on Firefox", "bug"),
    "t09": ("Where can I find my invoices?", "question"),
    "t10": ("Please cancel and refund the duplicate payment", "refund"),
    "t11": ("Dark mode crashes the editor", "bug"),
    "t12": ("Is there a student discount?", "question"),
}
WRONG = "t12"
"""The one ticket the scripted model labels wrong: 11 of 12 correct."""

PROVIDER = '''
import asyncio, os
from proctor.types import Completion, Usage

RULES = (("money back", "refund"), ("refund", "refund"), ("crash", "bug"), ("error", "bug"),
         ("does nothing", "bug"))


class Oracle:
    """Labels a ticket by its words: what a provider plugin is (translate, nothing else)."""

    def __init__(self, model):
        self.name = model
        self.max_concurrency = 1

    async def complete(self, prompt, params):
        text = prompt.messages[-1].content
        await asyncio.sleep(float(os.environ.get("ACME_DELAY", "0")))
        log = os.environ.get("ACME_LOG")
        if log:
            with open(log, "a") as f:
                f.write(text.split("[", 1)[1].split("]", 1)[0] + "\\n")
        ticket = text.split("]: ", 1)[1].split("\\n", 1)[0].lower()
        if self.name == "acme/flaky" and "[t05]" in text:
            raise RuntimeError("the vendor SDK exploded")
        if self.name == "acme/junk":
            return "Label: BUG"
        label = next((lab for word, lab in RULES if word in ticket), "question")
        if "student discount" in ticket:
            label = "refund"
        reply = f"Label: {label.upper()}"
        return Completion(reply, "stop", Usage(len(text) // 4, 3), self.name, 0.0)

    async def aclose(self):
        pass


def make(spec, api_key):
    return Oracle(spec.model)
'''

SCORERS = """
import proctor


@proctor.scorer(rule="The reply's 'Label:' line names the ticket's label, and no other.")
def label(reply, sample):
    lines = [l for l in reply.text.splitlines() if l.strip().lower().startswith("label:")]
    if not lines:
        return False
    said = lines[-1].split(":", 1)[1].strip().casefold()
    return said == sample.target.casefold()
"""

TASKS = """
import proctor
from proctor import Sample

TICKETS = {tickets!r}

triage = proctor.define_task(
    "acme-triage",
    samples=[Sample(id=k, input=t, target=lab, answer_type="text", category=lab)
             for k, (t, lab) in TICKETS.items()],
    prompt="Ticket [{{id}}]: {{input}}\\nReply 'Label: REFUND', 'Label: BUG' or 'Label: QUESTION'.",
    scorer="acme-label",
    version="1",
    max_tokens=16,
)
"""

BROKEN = """
raise ImportError("acme_internal_sdk is not installed")
"""

NOT_A_TASK = """
task = 42
provider = "not callable"
"""


def write_plugins(site: Path) -> Path:
    """Write both distributions into `site` (a folder to put on sys.path); return it."""
    pkg = site / "acme_eval"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "provider.py").write_text(PROVIDER)
    (pkg / "scorers.py").write_text(SCORERS)
    (pkg / "tasks.py").write_text(TASKS.format(tickets=TICKETS))
    _dist(site, "acme_eval", "acme-eval", {
        "proctor.providers": {"acme": "acme_eval.provider:make"},
        "proctor.tasks": {"acme-triage": "acme_eval.tasks:triage"},
        "proctor.scorers": {"acme-label": "acme_eval.scorers:label"},
    })  # fmt: skip
    broken = site / "broken_eval"
    broken.mkdir()
    (broken / "__init__.py").write_text("")
    (broken / "failing.py").write_text(BROKEN)
    (broken / "wrong.py").write_text(NOT_A_TASK)
    _dist(site, "broken_eval", "broken-eval", {
        "proctor.providers": {"broken": "broken_eval.failing:make",
                              "notcallable": "broken_eval.wrong:provider"},
        "proctor.tasks": {"broken-task": "broken_eval.failing:task",
                          "not-a-task": "broken_eval.wrong:task"},
    })  # fmt: skip
    return site


def _dist(site: Path, module: str, name: str, groups: dict[str, dict[str, str]]) -> None:
    info = site / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    lines = []
    for group, points in groups.items():
        lines.append(f"[{group}]")
        lines += [f"{k} = {v}" for k, v in points.items()]
        lines.append("")
    (info / "entry_points.txt").write_text("\n".join(lines))
