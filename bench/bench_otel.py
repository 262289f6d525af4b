"""What `--otel-endpoint` costs a run per answer: on the event loop, `RunSpans.stored` and
`RunSpans.graded` (they only queue; the spans are made on a thread of their own and the SDK's
batch processor exports them to an OTLP/HTTP receiver in this process), against the side
output every run already has, samples.jsonl's append (`proctor.runs.answer_log`), measured in
the same run; and the whole cost, from the first answer until `close` returns with every span
made and received (the CPU the spans' thread takes from the process).

    .venv/bin/python bench/bench_otel.py [--answers 1000] [--batch 20] [--reps 5]

Every answer is handed over at once, so the spans' thread starts with the whole backlog: the
"made and received" figure is its throughput (a run hands answers over as they come), and a
backlog longer than the bounded wait at the end (`FLUSH_S`) is said as a warning.

Needs the extra `otel` (the dev extra has it)."""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO / "tests")]

from proctor.runs.answer_log import answer_log  # noqa: E402
from proctor.telemetry.settings import TraceSettings  # noqa: E402
from proctor.telemetry.spans import RunSpans  # noqa: E402
from proctor.types import GenerationParams, Prompt, Record, Sample, Score, Usage  # noqa: E402
from support.otlp import receive_traces  # noqa: E402

MODEL = "openai-compat/bench@http://127.0.0.1:8080/v1"


def batches(answers: int, size: int) -> list[list[tuple[Record, Sample]]]:
    pairs = [(Record(run_id="r", model=MODEL, sample_id=f"q{i}", status="ok",
                     text="The answer is 7.", finish_reason="stop", usage=Usage(40, 6),
                     latency_s=0.2, attempts=1, prompt_variant="A", lang="en"),
              Sample(f"q{i}", "What is 3+4?", "7")) for i in range(answers)]  # fmt: skip
    return [pairs[i : i + size] for i in range(0, answers, size)]


def asked(model: str, sample: Sample, epoch: int) -> tuple[Prompt, GenerationParams]:
    return Prompt((), "A", "en"), GenerationParams()


def spans_s(url: str, work: list[list[tuple[Record, Sample]]]) -> tuple[float, float, int]:
    spans = RunSpans(TraceSettings(url), ("r", "bench"), [MODEL], False, 1, asked)
    grade = Score("correct", "exact_number", "7 is 7")
    start = time.perf_counter()
    for batch in work:
        spans.stored(batch)
        spans.graded([(r.model, r.sample_id, r.epoch, grade) for r, _ in batch])
    took = time.perf_counter() - start
    warning = spans.close()
    whole = time.perf_counter() - start
    if warning is not None:  # e.g. the backlog took longer than the bounded wait at the end
        print(f"  (this rep said: {warning})")
    return took, whole, sum(map(len, work))


def log_s(work: list[list[tuple[Record, Sample]]]) -> float:
    with tempfile.TemporaryDirectory() as folder:
        write = answer_log(Path(folder))
        start = time.perf_counter()
        for batch in work:
            write(batch)
        return time.perf_counter() - start


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--answers", type=int, default=1000)
    p.add_argument("--batch", type=int, default=20)
    p.add_argument("--reps", type=int, default=5)
    args = p.parse_args()
    work = batches(args.answers, args.batch)
    spans, wholes, logs = [], [], []
    with receive_traces() as receiver:
        for _ in range(args.reps):
            took, whole, n = spans_s(receiver.url + "/v1/traces", work)
            spans.append(took / n * 1e6)
            wholes.append(whole / n * 1e6)
            logs.append(log_s(work) / n * 1e6)
        received = len(receiver.spans)
    per_span, per_log = statistics.median(spans), statistics.median(logs)
    per_whole = statistics.median(wholes)
    print(f"answers {args.answers} in batches of {args.batch}, {args.reps} reps (median)")
    print(f"spans (stored + graded), per answer:   {per_span:8.1f} µs")
    print(f"samples.jsonl append, per answer:      {per_log:8.1f} µs")
    print(f"ratio spans / samples.jsonl:           {per_span / per_log:8.2f}")
    print(f"made and received, per answer (thread): {per_whole:7.1f} µs "
          f"({per_whole / per_log:.1f} × samples.jsonl)")
    print(f"spans received: {received} of {args.reps * (1 + 2 * args.answers)}")


if __name__ == "__main__":
    main()
