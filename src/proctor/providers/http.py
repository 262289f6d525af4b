"""The HTTP plumbing every API adapter shares: one pooled JSON client, one POST that turns
transport failures into Transient errors, and the readers of what servers send back (usage,
Retry-After) with the API key scrubbed from any error text. Adapters keep only their wire
format and their error classes.

The wire is aiohttp, spoken directly: httpx's async client spends more CPU per request than the
network takes at 64 requests in flight (encode/httpx#3215, and its request/URL building on top),
and a harness that waits on servers must add close to nothing. httpx remains the client when a
test hands the adapter an `httpx` transport (`MockTransport`) or aiohttp is missing; both paths
send the same bytes and return the same `HttpReply`."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, Protocol
from urllib.parse import urlparse

import httpx

from proctor.errors import ProviderError, RateLimited, Transient
from proctor.types import Usage

try:
    import aiohttp
    from yarl import URL
except ImportError:  # pragma: no cover - aiohttp is a dependency; httpx is the fallback
    aiohttp = None  # type: ignore[assignment]

_RAW = 20_000
"""How much of a server's error text is read: redaction runs on this much, then the message is
cut to `MESSAGE_LIMIT`, so a key can never be split by the cut and survive in part."""
MESSAGE_LIMIT = 400


@dataclass(frozen=True)
class HttpReply:
    """A whole response: status, headers (names in lower case) and body."""

    status_code: int
    headers: Mapping[str, str]
    content: bytes
    reason_phrase: str = ""

    def json(self) -> Any:
        """The body as JSON; ValueError when it is not (bad JSON or bad UTF-8)."""
        return json.loads(self.content)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


class JsonClient(Protocol):
    async def post(self, path: str, body: dict[str, Any], timeout_s: float) -> HttpReply: ...

    async def send(
        self, method: str, path: str, content: bytes | None, content_type: str, timeout_s: float
    ) -> HttpReply:
        """Any request (a batch API's GET, a file upload); failures as `post`'s."""
        ...

    async def aclose(self) -> None: ...


def encode_body(body: dict[str, Any]) -> bytes:
    """The request body, byte for byte what httpx's `json=` sends."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def json_client(
    base_url: str,
    headers: dict[str, str],
    *,
    transport: httpx.AsyncBaseTransport | None,
    trust_env: bool,
    max_connections: int | None = None,
) -> JsonClient:
    """A pooled client for one API: aiohttp, or httpx when a transport is given (tests) or
    aiohttp is not installed. `trust_env`: take proxies (and CA settings) from the environment."""
    root = base_url.rstrip("/") + "/"
    if transport is None and aiohttp is not None:
        return AiohttpJsonClient(root, headers, trust_env=trust_env, limit=max_connections or 0)
    return HttpxJsonClient(root, headers, transport, trust_env, max_connections)


class AiohttpJsonClient:
    """One aiohttp session per event loop, made on first use (a session belongs to its loop)."""

    def __init__(self, root: str, headers: dict[str, str], *, trust_env: bool, limit: int) -> None:
        self._root = root
        self._headers = {"User-Agent": "proctor", "Accept": "application/json", **headers}
        self._trust_env = trust_env
        self._limit = limit
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _get_session(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            # The certificate store httpx would use (certifi; SSL_CERT_FILE when trusted), built
            # only for https: loading it costs ~60 ms.
            ssl = (
                httpx.create_ssl_context(trust_env=self._trust_env)
                if self._root.startswith("https:")
                else True
            )
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._limit, keepalive_timeout=30.0, ssl=ssl),
                headers=self._headers,
                trust_env=self._trust_env,
                timeout=aiohttp.ClientTimeout(total=None),
            )
            self._loop = loop
        return self._session

    async def post(self, path: str, body: dict[str, Any], timeout_s: float) -> HttpReply:
        return await self.send("POST", path, encode_body(body), "application/json", timeout_s)

    async def send(
        self, method: str, path: str, content: bytes | None, content_type: str, timeout_s: float
    ) -> HttpReply:
        session = self._get_session()
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=timeout_s, sock_read=timeout_s)
        headers = {"Content-Type": content_type} if content is not None else {}
        try:
            async with session.request(
                method,
                URL(self._root + path, encoded=True),
                data=content,
                headers=headers,
                timeout=timeout,
                allow_redirects=False,
            ) as resp:
                content = await resp.read()
                return HttpReply(
                    resp.status,
                    {k.lower(): v for k, v in resp.headers.items()},
                    content,
                    resp.reason or "",
                )
        except (TimeoutError, aiohttp.ServerTimeoutError) as e:
            raise Transient(f"timed out after {timeout_s:g} s ({type(e).__name__})") from e
        except (aiohttp.ClientError, OSError) as e:
            raise Transient(f"connection failed: {type(e).__name__}: {e}") from e

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None


class HttpxJsonClient:
    def __init__(
        self,
        root: str,
        headers: dict[str, str],
        transport: httpx.AsyncBaseTransport | None,
        trust_env: bool,
        max_connections: int | None,
    ) -> None:
        keepalive = max_connections if max_connections is not None else 256
        self._client = httpx.AsyncClient(
            base_url=root,
            headers=headers,
            limits=httpx.Limits(
                max_connections=max_connections, max_keepalive_connections=keepalive
            ),
            transport=transport,
            timeout=None,
            trust_env=trust_env,
        )

    async def post(self, path: str, body: dict[str, Any], timeout_s: float) -> HttpReply:
        return await self.send("POST", path, encode_body(body), "application/json", timeout_s)

    async def send(
        self, method: str, path: str, content: bytes | None, content_type: str, timeout_s: float
    ) -> HttpReply:
        headers = {"Content-Type": content_type} if content is not None else {}
        try:
            resp = await self._client.request(
                method,
                path,
                content=content,
                headers=headers,
                timeout=httpx.Timeout(timeout_s),
            )
        except httpx.TimeoutException as e:
            raise Transient(f"timed out after {timeout_s:g} s ({type(e).__name__})") from e
        except httpx.TransportError as e:
            raise Transient(f"connection failed: {type(e).__name__}: {e}") from e
        except httpx.RequestError as e:  # e.g. a body that cannot be decoded
            raise Transient(f"request failed: {type(e).__name__}: {e}") from e
        return HttpReply(
            resp.status_code,
            {k.lower(): v for k, v in resp.headers.items()},
            resp.content,
            resp.reason_phrase,
        )

    async def aclose(self) -> None:
        await self._client.aclose()


async def post_json(
    client: JsonClient, path: str, body: dict[str, Any], timeout_s: float
) -> tuple[HttpReply, float]:
    """POST `body`; the whole response and its latency in seconds. A request that never got a
    whole response (timeout, refused or reset connection, undecodable body) is Transient."""
    start = time.perf_counter()
    reply = await client.post(path, body, timeout_s)
    return reply, time.perf_counter() - start


def json_object(value: object) -> dict[str, Any]:
    """A received JSON object, or {} for anything else: a reader never trusts a body's shape."""
    return value if isinstance(value, dict) else {}


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
