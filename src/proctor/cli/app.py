"""The `proctor` command: thin commands over the runner, the store and the reports."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from proctor._util.defaults import DEFAULT_MAX_FAILURES, DEFAULT_MAX_REPLY_BYTES, DEFAULT_RESULTS
from proctor.cli.audit import audit_cmd
from proctor.cli.cache import cache_app
from proctor.cli.compare import compare_cmd
from proctor.cli.dialogue import dialogue_cmd
from proctor.cli.export import export_cmd
from proctor.cli.gate import gate_cmd
from proctor.cli.imports import import_app
from proctor.cli.judge import judge_cmd
from proctor.cli.keys import ApiKeyEnv
from proctor.cli.leaderboard import leaderboard_cmd
from proctor.cli.listing import list_cmd
from proctor.cli.new import new_app
from proctor.cli.no_repeats import RefuseRepeats
from proctor.cli.options import (
    Concurrency,
    DetectOption,
    JsonOption,
    JunitOption,
    MarginOption,
    MaxAttempts,
    OtelContent,
    OtelEndpoint,
    PricesOption,
    RequestTimeout,
    ResultsDir,
    SandboxLimits,
    SequentialBatch,
    SequentialFlag,
    SizingBaseline,
    terminal,
)
from proctor.cli.plain_help import command_group
from proctor.cli.ray_options import RayForwardEnv, RayResources, RayRuntimeEnv
from proctor.cli.report import report_cmd, score_cmd, with_sandbox_limits
from proctor.cli.review import review_app
from proctor.cli.run_ask import (
    ask,
    asks_here,
    check_counts,
    print_outcome,
    report_run,
    resumed_turn_run,
    set_named,
    warn_same_samples,
)
from proctor.cli.validate import validate_cmd
from proctor.cli.view import view as view_cmd
from proctor.cli.workflow import workflow_cmd
from proctor.errors import ProctorError
from proctor.runs.state import EXIT_USAGE

app = command_group(
    name="proctor",
    help="Evaluate LLMs on work whose answers can be checked.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.command()
def generate(
    suite: Annotated[str, typer.Argument(help="The generator: arithmetic.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="JSONL file to write.")],
    seed: Annotated[int, typer.Option(help="Random seed: same seed, same file.")] = 42,
    n: Annotated[int, typer.Option("--n", help="Number of samples.")] = 100,
) -> None:
    """Write a seeded, reproducible test set as JSONL."""
    from proctor.cli.console import plain
    from proctor.datasets.arithmetic import GENERATOR_VERSION
    from proctor.datasets.arithmetic import generate as gen
    from proctor.datasets.jsonl import content_hash, write_jsonl

    if suite != "arithmetic":
        raise typer.BadParameter(f"unknown generator {suite!r}: use arithmetic")
    if n < 1:
        raise typer.BadParameter("--n must be at least 1")
    samples = gen(seed, n)
    write_jsonl(samples, output)
    terminal().print(
        f"wrote {len(samples)} samples to {plain(output)} "
        f"(generator {GENERATOR_VERSION}, seed {seed}, {content_hash(samples)})"
    )


@app.command(cls=RefuseRepeats)
def run(
    tasks: Annotated[
        list[str] | None,
        typer.Argument(
            help="Built-in task, e.g. arithmetic; several make a set (one id, a run each).",
            show_default=False,
        ),
    ] = None,
    model: Annotated[
        list[str] | None,
        typer.Option("--model", "-m", help="Model string; repeat for several. Default: local."),
    ] = None,
    dataset: Annotated[
        Path | None, typer.Option(help="Your own JSONL/CSV test set, graded like the task.")
    ] = None,
    suite: Annotated[
        Path | None, typer.Option(help="Your own suite (CSV/JSONL with a config beside it).")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(help="A set written in a TOML file: models, tasks with their own options."),
    ] = None,
    judge: Annotated[
        str | None, typer.Option(help="Judge model: grade the stored answers after the run.")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="Use only N samples (balanced).")] = None,
    seed: Annotated[int | None, typer.Option(help="Generator seed for generated tasks.")] = None,
    n: Annotated[int | None, typer.Option("--n", help="Size of a generated test set.")] = None,
    prompt: Annotated[
        list[str] | None,
        typer.Option(help="Prompt variant (A or B) or a prompt file; several make a matrix."),
    ] = None,
    lang: Annotated[
        list[str] | None,
        typer.Option(help="Prompt language: en (default) or zh; several make a matrix."),
    ] = None,
    max_tokens: Annotated[int | None, typer.Option(help="Reply length limit.")] = None,
    temperature: Annotated[
        list[float] | None,
        typer.Option(help="Sampling temperature (default 0); several make a matrix."),
    ] = None,
    timeout: RequestTimeout = 120.0,
    concurrency: Concurrency = None,
    max_attempts: MaxAttempts = 4,
    samples: Annotated[
        int, typer.Option("--samples", help="Replies per item (use temperature > 0).")
    ] = 1,
    resume: Annotated[str | None, typer.Option(help="Resume this run (id, folder) or set.")] = None,
    retry_errors: Annotated[
        str | None, typer.Option(help="Re-ask only the failed calls of this run or set.")
    ] = None,
    rpm: Annotated[
        float | None, typer.Option(help="Requests per minute per model, spread evenly.")
    ] = None,
    tpm: Annotated[
        float | None, typer.Option(help="Tokens per minute per model, spread evenly.")
    ] = None,
    deadline: Annotated[
        float | None, typer.Option(help="Stop asking after this many seconds (resumable).")
    ] = None,
    max_failures: Annotated[
        int, typer.Option(help="Stop a model after this many failed attempts in a row.")
    ] = DEFAULT_MAX_FAILURES,
    estimate: Annotated[
        bool, typer.Option("--estimate", help="Print calls, tokens and cost; call nothing.")
    ] = False,
    detect: DetectOption = None,
    baseline: SizingBaseline = None,
    sequential: SequentialFlag = False,
    margin: MarginOption = None,
    sequential_batch: SequentialBatch = 20,
    prices: PricesOption = None,
    executor: Annotated[
        str, typer.Option(help="Who asks the models: local (this process) or ray (a cluster).")
    ] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(
            help="Ray cluster for --executor ray (default: RAY_ADDRESS, else a local one).",
            envvar="RAY_ADDRESS",
        ),
    ] = None,
    shard_size: Annotated[
        int, typer.Option(help="Items per Ray task (one model's shard) with --executor ray.")
    ] = 250,
    ray_runtime_env: RayRuntimeEnv = None,
    ray_forward_env: RayForwardEnv = None,
    ray_resources: RayResources = None,
    api_key_env: ApiKeyEnv = None,
    max_reply_bytes: Annotated[
        int,
        typer.Option(
            help="Largest reply accepted, compressed or inflated; a bigger one is a failed call."
        ),
    ] = DEFAULT_MAX_REPLY_BYTES,
    sandbox_limits: SandboxLimits = None,
    cache: Annotated[
        str,
        typer.Option(
            help="Reuse answers stored by earlier runs of this results folder: deterministic "
            "(temperature 0 or a fixed seed), always (sampling too), or off."
        ),
    ] = "deterministic",
    cache_share_keys: Annotated[
        bool,
        typer.Option("--cache-share-keys", help="Reuse answers paid with another API key too."),
    ] = False,
    batch: Annotated[
        bool,
        typer.Option(
            "--batch",
            help="Ask through the providers' batch APIs (OpenAI Batch, Anthropic Message "
            "Batches): batch prices, results within hours; a restart never submits twice.",
        ),
    ] = False,
    batch_size: Annotated[int, typer.Option(help="Requests per batch with --batch.")] = 10_000,
    batch_poll: Annotated[
        float, typer.Option(help="Seconds before the first poll of a batch (then ×1.5, ≤ 300).")
    ] = 5.0,
    results_dir: ResultsDir = DEFAULT_RESULTS,
    junit: JunitOption = None,
    json_events: JsonOption = False,
    otel_endpoint: OtelEndpoint = None,
    otel_content: OtelContent = False,
) -> None:
    """Ask every model every sample, store each raw answer, grade, and report; several tasks
    make a set (one id, each task a run of its own: `proctor.runs.sets`).

    Exits 0 only when every call was answered and graded; 3 when the run is incomplete, 4 when
    calls failed, 130 when interrupted (see the README's exit codes); a set exits with the
    first of its runs' codes that applies.

    \f
    (A typer command: each parameter is one option of `proctor run`, hence their number and
    the length of its signature; each run's plan is built by `proctor.runs.plan.build_plan`, as
    `proctor.evaluate` builds it, asked by `run_ask.ask` and reported by `run_ask.report_run`.
    Its body is long for the same reason: it turns each option into the plan's values
    (`Calling`, `Asking`, `Matrix`, `Paper`) in one place and picks the path (a turn run, a
    set, a sequential comparison, an estimate, a run); split, those values would only pass
    through another signature of the same length.)
    """
    if json_events:  # the same command, its events as JSON lines on stdout
        params = {**locals(), "json_events": False}
        from proctor.cli.json_events import as_json_lines

        return as_json_lines(run, params)
    from proctor.cli.run_support import (
        batch_policy,
        make_executor,
        print_estimate,
        print_sizing,
        refuse_unusable,
    )
    from proctor.prompts.arithmetic import check_lang
    from proctor.runs.costs import read_prices
    from proctor.runs.plan import Asking, Calling, Matrix, Paper, matrix_plan
    from proctor.tasks.registry import get_task
    from proctor.telemetry.settings import trace_settings

    if resume is not None and retry_errors is not None:
        raise typer.BadParameter("use either --resume or --retry-errors")
    ref, named = resume or retry_errors, list(tasks or [])
    task = named[0] if named else None
    if retry_errors is None and resumed_turn_run(
        ref, results_dir, timeout, max_attempts, traces_asked=otel_endpoint is not None
    ):
        return
    suite_run = None
    if suite is not None:
        from proctor.cli.suite import SuiteRun

        suite_run = SuiteRun.open(suite, task)
        task, dataset, max_tokens = "suite", suite, max_tokens or suite_run.max_tokens
    if ref is None and task is None and dataset is None and config is None:
        raise typer.BadParameter("name a task (e.g. arithmetic), --dataset FILE or --resume RUN")
    check_counts(max_attempts, max_reply_bytes, samples)
    price_table = read_prices(prices)  # a bad price table is refused before any call
    from proctor.calling.rate_limit import RateLimits
    from proctor.calling.retry import RetryPolicy
    from proctor.cli.cache import check_policy
    from proctor.providers.keys import parse_key_env

    chosen = make_executor(
        executor, ray_address, shard_size, ray_runtime_env, ray_forward_env, ray_resources
    )
    judge_model = suite_run.judge_model(judge) if suite_run is not None else judge
    calling = Calling(
        concurrency=concurrency, retry=RetryPolicy(max_attempts=max_attempts), epochs=samples,
        limits=RateLimits(rpm, tpm), breaker_threshold=max_failures,
        deadline_s=deadline, cache=check_policy(cache), cache_share_keys=cache_share_keys,
        batch=batch_policy(batch, batch_size, batch_poll, executor),
        api_key_env=parse_key_env(api_key_env or []),
        also_calls=(judge_model,) if judge_model else (),
        traces=trace_settings(otel_endpoint, otel_content),
    )  # fmt: skip
    matrix = Matrix(tuple(prompt or ()), tuple(lang or ()), tuple(temperature or ()))
    asking = Asking(matrix.prompts[0] if matrix.prompts else None,
                    check_lang(matrix.langs[0] if matrix.langs else "en"), max_tokens,
                    matrix.temperatures[0] if matrix.temperatures else 0.0, timeout,
                    max_reply_bytes)  # fmt: skip
    paper = Paper(dataset, seed, n, limit)
    set_ref = set_named(ref, results_dir)
    if len(named) > 1 or set_ref is not None or config is not None:
        from proctor.cli.run_set import set_command

        set_command(named, model, paper, asking, calling, results_dir, set_ref,
                   retry_errors is not None, chosen, prices, sandbox_limits, estimate,
                   judge=judge, suite=suite, config=config, price_table=price_table,
                   matrix=matrix)  # fmt: skip
        return
    if judge_model is not None and not estimate:
        # a judge without a key must not fail after the run
        refuse_unusable(judge_model, calling.api_key_env)
    t = with_sandbox_limits(get_task(task or "arithmetic"), sandbox_limits)
    plan = matrix_plan(t, model or ["local"], matrix, paper, asking, calling, results_dir)
    if sequential and not estimate:
        from proctor.cli.sequential import ask_sequential

        ask_sequential(plan, margin, sequential_batch, seed or 0, resume, terminal(), prices)
        return
    if estimate:
        print_estimate(plan, price_table, terminal(), check_set=asks_here(chosen))
        print_sizing(plan, price_table, terminal(), detect, baseline)
        return
    warn_same_samples(samples, min(matrix.temperatures, default=0.0))
    outcome = ask(plan, chosen, ref, retry_errors is not None, suite_run)
    print_outcome(outcome, retry_errors is not None)
    if suite_run is not None or judge is not None:
        from proctor.cli.suite import judge_after_run

        judge_after_run(
            suite_run, judge, results_dir, outcome.run_id, timeout, terminal(),
            key=outcome.keys.get(judge_model or ""),
        )  # fmt: skip
    report_run(outcome, results_dir, prices, sandbox_limits, terminal(stderr=True), junit)


for name, command in (
    ("score", score_cmd),
    ("report", report_cmd),
    ("list", list_cmd),
    ("audit", audit_cmd),
    ("compare", compare_cmd),
    ("gate", gate_cmd),
    ("judge", judge_cmd),
    ("view", view_cmd),
    ("export", export_cmd),
    ("dialogue", dialogue_cmd),
    ("workflow", workflow_cmd),
    ("validate", validate_cmd),
    ("leaderboard", leaderboard_cmd),
):
    app.command(name=name)(command)
for name, group in (
    ("cache", cache_app),
    ("import", import_app),
    ("new", new_app),
    ("review", review_app),
):
    app.add_typer(group, name=name)


def main() -> None:
    from proctor.cli.stop_signals import install, interrupted_exit_code, stop_signal_received

    install()  # SIGTERM and SIGHUP stop a command as Ctrl-C does, with their own exit codes
    try:
        app()
    except SystemExit as e:
        # typer ends any other command stopped by Ctrl-C with 130: a stop signal's own code
        # says what stopped it.
        if e.code == 130 and stop_signal_received():
            sys.exit(interrupted_exit_code())
        raise
    except ProctorError as e:
        from proctor._util.redact import scrubbed  # compiles its patterns: the error path only
        from proctor.cli.console import plain

        # One line, never wrapped: a CI log (or grep) must find the whole message.
        terminal(stderr=True).print(f"[red]error:[/] {plain(scrubbed(str(e)))}", soft_wrap=True)
        sys.exit(EXIT_USAGE)
    except KeyboardInterrupt:
        terminal(stderr=True).print(
            "interrupted: stored answers are kept; run the same command to resume"
        )
        sys.exit(interrupted_exit_code())
