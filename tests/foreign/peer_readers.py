"""Read an export with the other harnesses' own code; run by the peers' Python (a separate
environment, `bash scripts/setup-peers.sh`), never imported by the tests. Prints one JSON
object: what each reader saw.

    python peer_readers.py inspect LOG_DIR    Inspect AI: read_eval_log, list_eval_logs, and
                                              `inspect view`'s HTTP API on 127.0.0.1
    python peer_readers.py lm-eval OUT_DIR    lm-eval: its file-name readers, make_table on each
                                              results file, its result schema on every line
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> tuple[int, bytes]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=30) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def viewer(log_dir: Path) -> dict[str, Any]:
    """What `inspect view` serves the browser: its list of logs and each log."""
    port = free_port()
    inspect = Path(sys.executable).with_name("inspect")
    server = subprocess.Popen(
        [str(inspect), "view", "--log-dir", str(log_dir), "--host", "127.0.0.1",
         "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + 240
        while True:
            try:
                status, body = get(f"{base}/logs")
                break
            except OSError as e:
                if server.poll() is not None or time.monotonic() > deadline:
                    why = server.stderr.read() if server.stderr else b""
                    raise RuntimeError(f"inspect view did not start: {why!r}") from e
                time.sleep(0.5)
        listed = json.loads(body)["files"] if status == 200 else []
        logs = {}
        for entry in listed:
            code, raw = get(f"{base}/logs/{urllib.parse.quote(entry['name'], safe=':/')}")
            logs[Path(entry["name"]).name] = {
                "status": code,
                "samples": len(json.loads(raw).get("samples") or []) if code == 200 else 0,
                "task": entry.get("task"),
                "task_id": entry.get("task_id"),
            }
        return {"listing_status": status, "logs": logs}
    finally:
        server.terminate()
        server.wait(30)


def inspect(log_dir: Path) -> dict[str, Any]:
    from inspect_ai import __version__
    from inspect_ai.log import list_eval_logs, read_eval_log

    logs = {}
    for path in sorted(log_dir.glob("*.json")):
        log = read_eval_log(str(path))
        (score,) = log.results.scores if log.results else []
        logs[path.name] = {
            "model": log.eval.model,
            "status": log.status,
            "task": log.eval.task,
            "accuracy": score.metrics["accuracy"].value,
            "samples": [
                [s.id, s.epoch, s.scores["proctor"].value if s.scores else None,
                 s.output.completion]
                for s in log.samples or []
            ],
        }  # fmt: skip
    listed = sorted(Path(info.name).name for info in list_eval_logs(str(log_dir)))
    return {"version": __version__, "logs": logs, "listed": listed, "viewer": viewer(log_dir)}


def lm_eval(out: Path) -> dict[str, Any]:
    import lm_eval
    from lm_eval import utils
    from lm_eval.result_schema import EvalResults, SampleResult
    from pydantic import TypeAdapter

    files = sorted(str(p) for p in out.rglob("*") if p.is_file())
    results = utils.get_results_filenames(files)
    samples = utils.get_sample_results_filenames(files)
    folders: dict[str, Any] = {}
    for path in results:
        folder = Path(path).parent
        mine = [s for s in samples if Path(s).parent == folder]
        latest = utils.get_latest_filename([path, *mine])
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        # lm-eval's own results files fail its schema's `configs` (a task config holds lists
        # and objects, the schema says strings): every other key is checked
        TypeAdapter(EvalResults).validate_python({**document, "configs": {}})
        lines = [json.loads(x) for s in mine for x in Path(s).read_text().splitlines()]
        adapter = TypeAdapter(SampleResult)
        for line in lines:
            adapter.validate_python(line)
        folders[folder.name] = {
            "results": Path(path).name,
            "samples": [Path(s).name for s in mine],
            "tasks": [utils.get_file_task_name(Path(s).name) for s in mine],
            "dates": [utils.get_file_datetime(Path(s).name) for s in [path, *mine]],
            "latest": Path(latest).name,
            "table": utils.make_table(document),
            "lines": len(lines),
            "sanitized": utils.sanitize_model_name(document["model_name"]),
        }
    return {"version": lm_eval.__version__, "folders": folders}


if __name__ == "__main__":
    os.environ.setdefault("INSPECT_LOG_LEVEL", "warning")
    kind, where = sys.argv[1], Path(sys.argv[2])
    print(json.dumps(inspect(where) if kind == "inspect" else lm_eval(where), default=str))
