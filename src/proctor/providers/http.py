"""The HTTP plumbing every API adapter shares: one pooled JSON client, one POST that turns
transport failures into Transient errors, and the readers of what servers send back (usage,
Retry-After) with the API key scrubbed from any error text. Adapters keep only their wire
format and their error classes."""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlparse

import httpx

from proctor.errors import ProviderError, RateLimited, Transient
from proctor.providers.aiohttp_transport import lean_transport
from proctor.types import Usage

_RAW = 20_000
"""How much of a server's error text is read: redaction runs on this much, then the message is
cut to `MESSAGE_LIMIT`, so a key can never be split by the cut and survive in part."""
MESSAGE_LIMIT = 400


def json_client(
    base_url: str,
    headers: dict[str, str],
    *,
    transport: httpx.AsyncBaseTransport | None,
    trust_env: bool,
    max_connections: int | None = None,
) -> httpx.AsyncClient:
    """A pooled client for one API. Without a given transport, requests go through aiohttp when
    it is installed (httpx's own async pool is CPU-bound at high concurrency, encode/httpx#3215);
    aiohttp then reads the proxy settings itself, so httpx must not route them too."""
    if transport is None:
        transport = lean_transport(trust_env=trust_env, limit=max_connections or 0)
        if transport is not None:
            trust_env = False
    keepalive = max_connections if max_connections is not None else 256
    return httpx.AsyncClient(
        base_url=base_url.rstrip("/") + "/",
        headers=headers,
        limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=keepalive),
        transport=transport,
        timeout=None,
        trust_env=trust_env,
    )


async def post_json(
    client: httpx.AsyncClient, path: str, body: dict[str, Any], timeout_s: float
) -> tuple[httpx.Response, float]:
    """POST `body`; the response and its latency in seconds. A request that never got a whole
    response (timeout, refused or reset connection, undecodable body) is Transient."""
    start = time.perf_counter()
    try:
        resp = await client.post(path, json=body, timeout=httpx.Timeout(timeout_s))
    except httpx.TimeoutException as e:
        raise Transient(f"timed out after {timeout_s:g} s ({type(e).__name__})") from e
    except httpx.TransportError as e:
        raise Transient(f"connection failed: {type(e).__name__}: {e}") from e
    except httpx.RequestError as e:  # e.g. a body that cannot be decoded
        raise Transient(f"request failed: {type(e).__name__}: {e}") from e
    return resp, time.perf_counter() - start


def is_loopback(url: str) -> bool:
    host = urlparse(url).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


def parse_usage(raw: object, prompt_key: str, completion_key: str) -> Usage:
    """Token counts from a reply's usage object; a malformed count reads as 0 (the reply itself
    is still good, and a missing count is never invented)."""
    if not isinstance(raw, dict):
        return Usage()

    def count(key: str) -> int:
        value = raw.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            return 0
        return int(value)

    return Usage(prompt_tokens=count(prompt_key), completion_tokens=count(completion_key))


def redacted(error: ProviderError, secret: str) -> ProviderError:
    """The same error with every occurrence of the API key replaced: some servers echo the key
    back in their error messages, and error text is stored and printed."""
    message = str(error)
    if len(message) <= MESSAGE_LIMIT and (not secret or secret not in message):
        return error
    clean = message.replace(secret, "[redacted]") if secret else message
    if len(clean) > MESSAGE_LIMIT:
        clean = clean[: MESSAGE_LIMIT - 1] + "…"
    if isinstance(error, RateLimited):
        return RateLimited(clean, status=error.status, retry_after_s=error.retry_after_s)
    return type(error)(clean, status=error.status)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
