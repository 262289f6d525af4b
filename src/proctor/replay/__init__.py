"""Replay recorded replies as an OpenAI-compatible server on 127.0.0.1, so a task can be run
through the CLI (`proctor run … -m openai-compat/NAME@URL`) against replies written by hand or
kept from an earlier run, without any model:

    python -m proctor.replay --replies FILE [--model NAME] [--port 0]

FILE is a JSON object ``{marker: reply}`` of strings; each prompt gets the reply of the longest
marker its last user message contains (`reply_for`). The first line on stdout is the base URL
("http://127.0.0.1:PORT/v1"); SIGTERM or SIGINT stops the server cleanly.

The server is the standard library's `http.server.ThreadingHTTPServer`, not aiohttp nor
uvicorn: a reply is a dictionary look-up, so an event loop buys nothing, and a blocking server
on its own thread needs no dependency at all (uvicorn is only in the dev extra) and starts in a
few milliseconds. Nothing in proctor imports this room: it is a tool a user starts.
"""

from proctor.replay.replies import NO_REPLY, Replies, load_replies, reply_for
from proctor.replay.server import ReplayServer, serve_replies

__all__ = ["NO_REPLY", "ReplayServer", "Replies", "load_replies", "reply_for", "serve_replies"]
