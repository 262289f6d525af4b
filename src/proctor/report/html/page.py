"""The frame every HTML page shares: jinja2 with autoescape, our one script and one stylesheet
inlined, and a Content-Security-Policy that lets nothing else run.

The policy allows exactly the script and the stylesheet whose SHA-256 hashes it names. A
`<script>` that slipped into the page through model output (it cannot: all text is escaped, and
the sample browser uses textContent) would still not run, nor would an inline event handler,
a `style=""` attribute or anything fetched from the network.
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import cache
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

_SURROGATE = re.compile("[\ud800-\udfff]")


@cache
def asset(name: str) -> str:
    """A file of `static/`, as text."""
    return resources.files("proctor.report.html").joinpath("static", name).read_text("utf-8")


def _sha256(text: str) -> str:
    return (
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"
    )


@cache
def content_security_policy() -> str:
    """The policy of every page (also sent as a header by `proctor view`)."""
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {_sha256(asset('browser.js'))}",
            f"style-src {_sha256(asset('style.css'))}",
            "img-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
        ]
    )


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("proctor.report.html", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    return env


def render(template: str, **context: Any) -> str:
    """Render `template` with the shared frame; the result is safe to encode as UTF-8."""
    script, style = asset("browser.js"), asset("style.css")
    if "</" in script or "</" in style:  # pragma: no cover - a broken asset, not user input
        raise ValueError("an inlined asset must not contain '</'")
    html = (
        environment()
        .get_template(template)
        .render(
            csp=content_security_policy(),
            script=Markup(script),
            style=Markup(style),
            **context,
        )
    )
    return utf8_safe(html)


def utf8_safe(text: str) -> str:
    """Lone surrogates (which UTF-8 cannot encode) become U+FFFD; other text is unchanged."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text
