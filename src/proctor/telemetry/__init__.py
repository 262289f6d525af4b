"""OpenTelemetry traces of a run (`proctor run --otel-endpoint URL`): a side output, as
samples.jsonl is. The run's wiring (`proctor.runs.ask`) hands each stored answer and each grade
to `RunSpans`, which exports run → sample → call spans with the GenAI semantic conventions over
OTLP/HTTP. The SDK (the optional extra `otel`) is imported only when the option is given.

    settings.py    the option read: the endpoint's URL checked, the extra checked installed
    attributes.py  pure: a stored answer, its grade and its request → span attributes
    spans.py       the spans of one session of a run, made on a thread of their own and
                   exported by the SDK's batch processor
    export.py      the OTLP/HTTP exporter, watched: its first failure kept, said once
"""
