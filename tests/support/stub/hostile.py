"""The stub's hostile replies (`ReplyFault`): what a broken or malicious server sends back.

Each is built from the reply the stub would have given (`text`), so a client that survives the
fault can still be checked: where the reply is kept, it still holds the right answer."""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import zlib
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from support.stub.config import ReplyFault, StubConfig

Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]
Gone = Callable[[], bool]
"""Whether the client has left (or the stub is closing): an endless body must then stop, as
uvicorn drops what is sent to a closed connection without a word."""

_JSON = (b"content-type", b"application/json")
MARKUP = "[/bold][link=file:///etc/passwd]click[/link][red]"
ESCAPES = "\x1b[31m\x1b]0;pwned\x07\x1b[2J\r\x9b1A\u202e"
"""Colour, window title, clear screen, carriage return, a C1 CSI and a direction override."""
_DRIP_S = 0.01


def _document(content: object, model: str, usage: object) -> dict[str, Any]:
    return {
        "id": "chatcmpl-stub-hostile",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": usage,
    }


def _usage(prompt: object = 7, completion: object = 9) -> dict[str, object]:
    return {"prompt_tokens": prompt, "completion_tokens": completion}


def _dumps(document: object) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode()


def key_forms(authorization: str) -> list[str]:
    """The request's key as a server may echo it: as is, escaped, and base64 of the header."""
    key = authorization.removeprefix("Bearer ").strip()
    escaped = key.replace("-", "\\u002d")
    encoded = base64.b64encode(f"Authorization: {authorization}".encode()).decode()
    return [key, escaped, encoded]


_LOOK_ALIKE = str.maketrans("aceopxyABCEHKMOPTXsi", "асеорхуАВСЕНКМОРТХѕі")
"""Latin letters written with the Cyrillic letters a font shows the same."""


def disguised_key_forms(authorization: str) -> list[str]:
    """The request's key as a server that means to slip it past a filter may echo it: each
    form differs from the key in a way the eye (or a program that reads it back) undoes."""
    key = authorization.removeprefix("Bearer ").strip()
    half = len(key) // 2
    return [
        key[::-1],  # reversed
        "-".join(key),  # a dash between every two characters
        " ".join(key),  # a space between every two characters
        key[:half] + "\u200b" + key[half:],  # a zero-width space inside
        "\u2060".join(key),  # a word joiner (invisible) between every two characters
        key.replace("-", "\u2011"),  # U+2011 non-breaking hyphens for its dashes
        "\u2011".join(key),  # ... and between every two characters
        key.swapcase(),  # its letter case changed
        key.translate(_LOOK_ALIKE),  # Cyrillic look-alike letters
        "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in key),  # full-width
        "\u200b".join(key[::-1]).upper(),  # reversed, upper case, zero-width spaces
    ]


@functools.lru_cache(maxsize=2)
def gzip_bomb(inflated: int) -> bytes:
    """A gzip body that inflates to about `inflated` bytes of one JSON reply."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [packer.compress(b'{"choices":[{"message":{"role":"assistant","content":"')]
    chunk = b"A" * (1 << 20)
    left = inflated
    while left > 0:
        parts.append(packer.compress(chunk[: min(left, len(chunk))]))
        left -= len(chunk)
    parts.append(packer.compress(b'"},"finish_reason":"stop"}]}'))
    parts.append(packer.flush())
    return b"".join(parts)


async def send_reply_fault(
    kind: ReplyFault, config: StubConfig, text: str, authorization: str, send: Send, gone: Gone
) -> None:
    """Act out `kind`; `text` is the reply the stub would have sent."""
    model = config.model
    if kind == "surrogate":
        # json.dumps escapes the lone surrogate as \ud800: valid JSON, invalid Unicode.
        body = json.dumps(_document("\ud800 " + text, model, _usage())).encode()
    elif kind == "usage_inf":
        body = _dumps(_document(text, model, _usage("INF", 9))).replace(b'"INF"', b"1e999")
    elif kind == "usage_nan":
        body = _dumps(_document(text, model, _usage("NAN", 9))).replace(b'"NAN"', b"NaN")
    elif kind == "usage_huge":
        body = _dumps(_document(text, model, _usage("BIG", "HUGE")))
        body = body.replace(b'"BIG"', b"1" * 30).replace(b'"HUGE"', b"7" * 5000)
    elif kind == "usage_junk":
        body = _dumps(_document(text, model, _usage(-3, "12") | {"total_tokens": True}))
    elif kind == "deep":
        depth = 100_000
        body = b'{"choices": ' + b"[" * depth + b"]" * depth + b"}"
    elif kind == "wrong_types":
        body = _dumps({"choices": {"0": {"message": {"content": 42}}}, "model": model})
    elif kind == "not_utf8":
        body = _dumps(_document("\x00MARK " + text, model, _usage()))
        body = body.replace(b"\\u0000MARK", b"\xff\xfe\xc3(")
    elif kind == "markup_reply":
        body = _dumps(_document(f"{MARKUP}{ESCAPES} {text}", f"{MARKUP}{ESCAPES}", _usage()))
    elif kind == "echo_key":
        forms = " | ".join(key_forms(authorization))
        body = _dumps(_document(f"{text}\nkey: {forms}", f"stub {forms}", _usage()))
    elif kind == "echo_key_error":
        forms = " | ".join(key_forms(authorization))
        error = {"error": {"message": f"upstream refused {forms}", "type": "server_error"}}
        await _send(send, 500, _dumps(error))
        return
    elif kind == "echo_key_disguised":
        forms = " | ".join(disguised_key_forms(authorization))
        body = _dumps(_document(f"{text}\nkey: {forms}", f"stub {forms}", _usage()))
    elif kind == "echo_key_disguised_error":
        forms = " | ".join(disguised_key_forms(authorization))
        error = {"error": {"message": f"upstream refused {forms}", "type": "server_error"}}
        await _send(send, 500, _dumps(error))
        return
    elif kind == "markup_error":
        error = {"error": {"message": f"bad key {MARKUP}{ESCAPES}", "type": "auth"}}
        await _send(send, 401, _dumps(error))
        return
    elif kind == "redirect":
        headers = [(b"location", b"http://elsewhere.invalid/v1/chat/completions")]
        await _send(send, 302, b"", headers)
        return
    elif kind == "gzip_bomb":
        await _send(send, 200, gzip_bomb(config.bomb_bytes), [(b"content-encoding", b"gzip")])
        return
    elif kind == "huge":
        await _send_chunked(send, text, config.huge_bytes, gone)
        return
    else:  # "endless"
        await _send_endless(send, gone)
        return
    await _send(send, 200, body)


async def _send(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [_JSON, *(headers or []), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _send_chunked(send: Send, text: str, size: int, gone: Gone) -> None:
    """A valid reply of about `size` bytes, sent in pieces with no Content-Length."""
    await send({"type": "http.response.start", "status": 200, "headers": [_JSON]})
    head = b'{"choices":[{"message":{"role":"assistant","content":"'
    await send({"type": "http.response.body", "body": head, "more_body": True})
    piece = b"B" * (1 << 20)
    sent = len(head)
    while sent < size:
        if gone():
            return
        part = piece[: min(len(piece), size - sent)]
        await send({"type": "http.response.body", "body": part, "more_body": True})
        sent += len(part)
    tail = json.dumps(text)[1:].encode() + b'},"finish_reason":"stop"}]}'
    await send({"type": "http.response.body", "body": tail})


async def _send_endless(send: Send, gone: Gone) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [_JSON]})
    head = b'{"choices":[{"message":{"content":"'
    await send({"type": "http.response.body", "body": head, "more_body": True})
    while not gone():
        await asyncio.sleep(_DRIP_S)
        await send({"type": "http.response.body", "body": b"drip ", "more_body": True})
