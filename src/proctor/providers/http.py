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
import errno
import importlib.util
import json
import math
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlparse

from proctor._util.redact import REDACTED, scrub
from proctor._util.untrusted import Refused, decode_utf8, loads_bounded
from proctor.errors import BadReply, BadRequest, ProviderError, RateLimited, Transient
from proctor.types import DEFAULT_MAX_REPLY_BYTES, Usage

if TYPE_CHECKING:  # imported by the client that speaks them: `proctor --help` needs neither
    import ssl

    import aiohttp
    import httpx

_RAW = 20_000
"""How much of a server's error text is read: redaction runs on this much, then the message is
cut to `MESSAGE_LIMIT`, so a key can never be split by the cut and survive in part."""
MESSAGE_LIMIT = 400
MAX_TOKEN_COUNT = 10**12
"""The largest token count believed: no reply has a trillion tokens; a larger count is a broken
server (a 30-digit integer, 1e999) and reads as unknown."""


@dataclass(frozen=True)
class HttpReply:
    """A whole response: status, headers (names in lower case) and body."""

    status_code: int
    headers: Mapping[str, str]
    content: bytes
    reason_phrase: str = ""

    def json(self) -> Any:
        """The body as JSON: bytes that are not UTF-8 are replaced (`bad_bytes` counts them),
        nesting is bounded and a huge integer reads as infinite. ValueError when it is not JSON;
        its subclass `untrusted.Refused` when it nests too deep."""
        return loads_bounded(self.text, big_int_is_error=False)

    @property
    def text(self) -> str:
        return decode_utf8(self.content)[0]

    @property
    def bad_bytes(self) -> int:
        """How many bytes of the body were not UTF-8 (replaced by U+FFFD in `text`)."""
        return decode_utf8(self.content)[1]


@dataclass(frozen=True)
class HttpRequest:
    """One request to an API: a chat call's POST, a batch API's GET or file upload."""

    method: str
    path: str
    content: bytes | None = None
    content_type: str = "application/json"

    @property
    def headers(self) -> dict[str, str]:
        return {"Content-Type": self.content_type} if self.content is not None else {}


class JsonClient(Protocol):
    async def send(self, request: HttpRequest, timeout_s: float, max_bytes: int) -> HttpReply:
        """The whole reply to `request`. A request that never got a whole response (timeout,
        refused or reset connection, undecodable body) is Transient; one whose body is larger
        than `max_bytes` (as sent or inflated) is BadReply."""
        ...

    async def aclose(self) -> None: ...


_BODY_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
"""What `json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)` uses, made
once (dumps with options builds a new encoder for every request)."""


def encode_body(body: dict[str, Any]) -> bytes:
    """The request body, byte for byte what httpx's `json=` sends."""
    return _BODY_ENCODER.encode(body).encode()


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
    if transport is None and importlib.util.find_spec("aiohttp") is not None:
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
        import aiohttp

        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            # The certificate store httpx would use (certifi; SSL_CERT_FILE when trusted), built
            # only for https: loading it (and importing httpx) costs ~100 ms.
            ssl = _https_context(self._trust_env) if self._root.startswith("https:") else True
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._limit, keepalive_timeout=30.0, ssl=ssl),
                headers=self._headers,
                trust_env=self._trust_env,
                timeout=aiohttp.ClientTimeout(total=None),
            )
            self._loop = loop
        return self._session

    async def send(self, request: HttpRequest, timeout_s: float, max_bytes: int) -> HttpReply:
        import aiohttp
        from yarl import URL

        session = self._get_session()
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=timeout_s, sock_read=timeout_s)
        try:
            async with session.request(
                request.method,
                URL(self._root + request.path, encoded=True),
                data=request.content,
                headers=request.headers,
                timeout=timeout,
                allow_redirects=False,
            ) as resp:
                # aiohttp (>= 3.13.3) inflates a compressed body a bounded piece at a time, so
                # counting what comes out bounds memory whatever the compression ratio.
                content = await read_capped(resp.content.iter_any(), resp.content_length, max_bytes)
                return HttpReply(
                    resp.status,
                    {k.lower(): v for k, v in resp.headers.items()},
                    content,
                    resp.reason or "",
                )
        except (TimeoutError, aiohttp.ServerTimeoutError) as e:
            raise Transient(f"timed out after {timeout_s:g} s ({type(e).__name__})") from e
        except aiohttp.ClientConnectorError as e:
            raise Transient(connect_failure(e.host, e.port, e.os_error)) from e
        except (aiohttp.ClientError, OSError) as e:
            raise Transient(f"connection failed: {type(e).__name__}: {e}") from e

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None


def _https_context(trust_env: bool) -> ssl.SSLContext:
    import httpx

    return httpx.create_ssl_context(trust_env=trust_env)


class HttpxJsonClient:
    def __init__(
        self,
        root: str,
        headers: dict[str, str],
        transport: httpx.AsyncBaseTransport | None,
        trust_env: bool,
        max_connections: int | None,
    ) -> None:
        import httpx

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

    async def send(self, request: HttpRequest, timeout_s: float, max_bytes: int) -> HttpReply:
        import httpx

        built = self._client.build_request(
            request.method,
            request.path,
            content=request.content,
            headers=request.headers,
            timeout=httpx.Timeout(timeout_s),
        )
        try:
            resp = await self._client.send(built, stream=True)
            try:
                declared = resp.headers.get("content-length")
                content = await read_capped(
                    resp.aiter_bytes(),
                    int(declared) if declared and declared.isdigit() else None,
                    max_bytes,
                )
            finally:
                await resp.aclose()
        except httpx.TimeoutException as e:
            raise Transient(f"timed out after {timeout_s:g} s ({type(e).__name__})") from e
        except httpx.TransportError as e:
            raise Transient(f"connection failed: {type(e).__name__}: {e}") from e
        except httpx.RequestError as e:  # e.g. a body that cannot be decoded
            raise Transient(f"request failed: {type(e).__name__}: {e}") from e
        return HttpReply(
            resp.status_code,
            {k.lower(): v for k, v in resp.headers.items()},
            content,
            resp.reason_phrase,
        )

    async def aclose(self) -> None:
        await self._client.aclose()


async def post_json(
    client: JsonClient,
    path: str,
    body: dict[str, Any],
    timeout_s: float,
    max_bytes: int = DEFAULT_MAX_REPLY_BYTES,
) -> tuple[HttpReply, float]:
    """POST `body`; the whole response and its latency in seconds. A request that never got a
    whole response (timeout, refused or reset connection, undecodable body) is Transient; one
    whose body is larger than `max_bytes` (as sent or inflated) is BadReply."""
    start = time.perf_counter()
    reply = await client.send(HttpRequest("POST", path, encode_body(body)), timeout_s, max_bytes)
    return reply, time.perf_counter() - start


async def read_capped(chunks: AsyncIterator[bytes], declared: int | None, max_bytes: int) -> bytes:
    """The whole body from `chunks`, or BadReply as soon as it is over `max_bytes`: refused at
    once when its Content-Length says so, else when what has come (inflated) passes the cap."""
    if declared is not None and declared > max_bytes:
        raise BadReply(_too_large(max_bytes, f"its Content-Length says {declared:,} bytes"))
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > max_bytes:
            raise BadReply(_too_large(max_bytes, f"reading stopped at {size:,} bytes, inflated"))
        parts.append(chunk)
    return b"".join(parts)


def raise_for_redirect(resp: HttpReply) -> None:
    """A 3xx is never followed (a key must not travel to where a server points): BadRequest,
    which retrying cannot mend, naming where it pointed."""
    if 300 <= resp.status_code < 400:
        where = resp.headers.get("location", "")[:200] or "nowhere"
        raise BadRequest(
            f"HTTP {resp.status_code}: redirected to {where} (not followed: give the base URL "
            "the server answers at)",
            status=resp.status_code,
        )


def _too_large(max_bytes: int, why: str) -> str:
    return (
        f"reply larger than the {max_bytes:,}-byte cap ({why}); "
        "--max-reply-bytes raises the cap if the server is right"
    )


def connect_failure(host: str, port: int | None, error: OSError | None) -> str:
    """A failed connection in plain words: "connection refused at 127.0.0.1:8011"."""
    where = f"{host}:{port}" if port else host
    code = getattr(error, "errno", None)
    if code == errno.ECONNREFUSED:
        return f"connection refused at {where}"
    if isinstance(error, OSError) and error.strerror:
        return f"cannot connect to {where}: {error.strerror}"
    return f"cannot connect to {where}: {error}"


def json_object(value: object) -> dict[str, Any]:
    """A received JSON object, or {} for anything else: a reader never trusts a body's shape."""
    return value if isinstance(value, dict) else {}


def is_loopback(url: str) -> bool:
    host = urlparse(url).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


def token_count(value: object) -> int | None:
    """A token count as reported, or None (unknown) when it is not a finite, non-negative,
    whole number of at most `MAX_TOKEN_COUNT`: missing, a string, a bool, NaN, 1e999, -3, 2.5
    or a 30-digit integer all read as unknown, never as 0."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        return None
    if not 0 <= value <= MAX_TOKEN_COUNT:
        return None
    return int(value)


def parse_usage(raw: object, prompt_key: str, completion_key: str) -> Usage:
    """Token counts from a reply's usage object; a count that is not a count reads as unknown
    (the reply itself is still good, and a count is never invented)."""
    if not isinstance(raw, dict):
        return Usage(None, None)
    return Usage(token_count(raw.get(prompt_key)), token_count(raw.get(completion_key)))


def redacted(error: ProviderError, secret: str) -> ProviderError:
    """The same error with every occurrence of the API key replaced (also escaped or base64
    encoded: `proctor._util.redact`): some servers echo the key back in their error messages, and
    error text is stored and printed."""
    message = str(error)
    clean = message.replace(secret, REDACTED) if secret else message
    clean, found = scrub(clean)
    if len(message) <= MESSAGE_LIMIT and clean == message and not found:
        return error
    if len(clean) > MESSAGE_LIMIT:
        clean = clean[: MESSAGE_LIMIT - 1] + "…"
    if isinstance(error, RateLimited):
        return RateLimited(clean, status=error.status, retry_after_s=error.retry_after_s)
    return type(error)(clean, status=error.status)


def reply_notes(resp: HttpReply) -> tuple[str, ...]:
    """What reading the body changed, for the record: bytes that were not UTF-8."""
    bad = resp.bad_bytes
    return (f"{bad} byte(s) of the reply were not UTF-8 and read as U+FFFD",) if bad else ()


def parse_json_reply(resp: HttpReply) -> Any:
    """A 2xx body as JSON: BadReply when it nests too deep (asking again fetches the same),
    Transient when it is not JSON at all (a proxy's HTML page may pass)."""
    try:
        return resp.json()
    except Refused as e:
        raise BadReply(f"HTTP {resp.status_code}: reply {e}") from e
    except ValueError as e:
        raise Transient(f"HTTP {resp.status_code}: body is not JSON: {resp.text[:_RAW]!r}") from e


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
