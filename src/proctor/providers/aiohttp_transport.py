"""An httpx transport that sends each request through one shared aiohttp session.

httpx's own async connection pool costs a lot of CPU at high concurrency (encode/httpx#3215:
at 64 requests in flight it, not the network, bounded a run). The adapters keep speaking httpx
(requests, responses, exceptions, `MockTransport` in tests); only the wire underneath changes.
aiohttp's failures are mapped onto the httpx exceptions the adapters already classify."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

try:
    import aiohttp
    from yarl import URL
except ImportError:  # pragma: no cover - aiohttp is a dependency; plain httpx is the fallback
    aiohttp = None  # type: ignore[assignment]

# Set by httpx from the body; aiohttp computes its own framing for the bytes it is given.
_FRAMING = frozenset({"content-length", "transfer-encoding"})


def lean_transport(*, trust_env: bool, limit: int = 0) -> httpx.AsyncBaseTransport | None:
    """The aiohttp transport, or None (use httpx's own pool) when aiohttp is not installed."""
    if aiohttp is None:
        return None
    return AiohttpTransport(trust_env=trust_env, limit=limit)


class AiohttpTransport(httpx.AsyncBaseTransport):
    def __init__(self, *, trust_env: bool, limit: int = 0, keepalive_s: float = 30.0) -> None:
        self._trust_env = trust_env
        self._limit = limit
        self._keepalive_s = keepalive_s
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _get_session(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            connector = aiohttp.TCPConnector(
                limit=self._limit,
                keepalive_timeout=self._keepalive_s,
                # The same certificate store httpx would use (certifi, SSL_CERT_FILE if trusted).
                ssl=httpx.create_ssl_context(trust_env=self._trust_env),
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                trust_env=self._trust_env,  # proxies from the environment, as httpx would
                auto_decompress=False,  # httpx decodes the body by its content-encoding
                timeout=aiohttp.ClientTimeout(total=None),
            )
            self._loop = loop
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        session = self._get_session()
        t: dict[str, Any] = request.extensions.get("timeout") or {}
        timeout = aiohttp.ClientTimeout(
            total=None,
            sock_connect=t.get("connect"),
            sock_read=t.get("read"),
        )
        headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() not in _FRAMING]
        body = await request.aread()
        try:
            async with session.request(
                request.method,
                URL(str(request.url), encoded=True),
                headers=headers,
                data=body or None,
                timeout=timeout,
                allow_redirects=False,
            ) as resp:
                content = await resp.read()
                status = resp.status
                raw_headers = list(resp.raw_headers)
                reason = resp.reason or ""
                version = f"HTTP/{resp.version.major}.{resp.version.minor}" if resp.version else ""
        except aiohttp.ConnectionTimeoutError as e:
            raise httpx.ConnectTimeout(str(e) or "connect timed out", request=request) from e
        except (TimeoutError, aiohttp.ServerTimeoutError) as e:
            raise httpx.ReadTimeout(str(e) or "read timed out", request=request) from e
        except aiohttp.ClientConnectorError as e:
            raise httpx.ConnectError(str(e), request=request) from e
        except (
            aiohttp.ServerDisconnectedError,
            aiohttp.ClientPayloadError,
            aiohttp.ClientResponseError,
        ) as e:
            raise httpx.RemoteProtocolError(str(e) or type(e).__name__, request=request) from e
        except (aiohttp.ClientError, OSError) as e:
            raise httpx.ReadError(str(e) or type(e).__name__, request=request) from e
        extensions: dict[str, Any] = {"reason_phrase": reason.encode("ascii", "replace")}
        if version:
            extensions["http_version"] = version.encode("ascii")
        return httpx.Response(
            status,
            headers=raw_headers,
            stream=httpx.ByteStream(content),
            request=request,
            extensions=extensions,
        )

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None
