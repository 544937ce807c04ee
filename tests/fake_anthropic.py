"""A small local stand-in for the Anthropic Messages API, to drive the real ``claude`` CLI in tests.

Every request is recorded (method, path, JSON body). ``POST .../messages`` answers one
assistant turn, as server-sent events when the body asks for ``stream`` (the event sequence of
https://docs.anthropic.com/en/api/messages-streaming: ``message_start``,
``content_block_start``, ``content_block_delta``, ``content_block_stop``, ``message_delta``,
``message_stop``) and as one JSON message otherwise. Anything else gets ``200 {}``.

In *follow* mode the reply plays a model that opens the first note a notesdb line names: a
``Read`` tool call on the path exactly as the line gives it, until a tool result is in the
conversation. Standard library only.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY = "FAKE-REPLY-OK"
NOTE_PATH = re.compile(r'Notes that may cover this: "[^"]*" \(([^)]+)\)')


def texts(body: dict[str, Any]) -> list[str]:
    """Every text and tool-result string in a request body's messages and system prompt."""
    out: list[str] = []
    system = body.get("system")
    for b in [system] if isinstance(system, str) else system or []:
        out.append(b if isinstance(b, str) else b.get("text", ""))
    for m in body.get("messages") or []:
        content = m.get("content")
        for b in [{"type": "text", "text": content}] if isinstance(content, str) else content or []:
            if b.get("type") == "text":
                out.append(b.get("text", ""))
            elif b.get("type") == "tool_result":
                c = b.get("content")
                out.append(c if isinstance(c, str) else json.dumps(c))
    return out


def _follow(body: dict[str, Any]) -> list[dict[str, Any]]:
    msgs = body.get("messages") or []
    if any(isinstance(m.get("content"), list) and any(b.get("type") == "tool_result" for b in m["content"])
           for m in msgs):  # fmt: skip
        return []
    for t in texts(body):
        hit = NOTE_PATH.search(t)
        if hit:
            return [{"type": "tool_use", "id": "toolu_fake_read", "name": "Read", "input": {"file_path": hit.group(1)}}]
    return []


class FakeAnthropic:
    """The fake API on 127.0.0.1 (a free port) in a background thread; ``requests`` holds what
    it received, in order."""

    def __init__(self, follow: bool = False) -> None:
        self.requests: list[dict[str, Any]] = []
        self.follow = follow
        lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    out = b""
                    while (n := int(self.rfile.readline().strip() or b"0", 16)) > 0:
                        out += self.rfile.read(n)
                        self.rfile.readline()
                    self.rfile.readline()
                    return out
                n = int(self.headers.get("Content-Length") or 0)
                return self.rfile.read(n) if n else b""

            def _send(self, data: bytes, kind: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("request-id", "req_fake_" + uuid.uuid4().hex[:12])
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                with lock:
                    fake.requests.append({"method": self.command, "path": self.path, "body": None})
                self._send(b"{}", "application/json")

            do_HEAD = do_GET

            def do_POST(self) -> None:
                raw = self._body()
                try:
                    body = json.loads(raw) if raw else {}
                except ValueError:
                    body = {}
                with lock:
                    fake.requests.append({"method": "POST", "path": self.path, "body": body})
                path = self.path.split("?")[0]
                if path.endswith("/count_tokens"):
                    return self._send(b'{"input_tokens": 42}', "application/json")
                if not path.endswith("/messages"):
                    return self._send(b"{}", "application/json")
                tools = _follow(body) if fake.follow else []
                stop = "tool_use" if tools else "end_turn"
                usage = {"input_tokens": 10, "output_tokens": 5,
                         "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}  # fmt: skip
                msg = {"id": "msg_fake_" + uuid.uuid4().hex[:16], "type": "message", "role": "assistant",
                       "model": body.get("model", "claude-fake"), "content": [], "stop_reason": None,
                       "stop_sequence": None, "usage": usage}  # fmt: skip
                if not body.get("stream"):
                    msg.update(content=[{"type": "text", "text": REPLY}, *tools], stop_reason=stop)
                    return self._send(json.dumps(msg).encode(), "application/json")
                events: list[tuple[str, dict[str, Any]]] = [
                    ("message_start", {"type": "message_start", "message": msg}),
                    ("content_block_start", {"type": "content_block_start", "index": 0,
                                             "content_block": {"type": "text", "text": ""}}),
                    ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                             "delta": {"type": "text_delta", "text": REPLY}}),
                    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ]  # fmt: skip
                for i, t in enumerate(tools, 1):
                    events += [
                        ("content_block_start", {"type": "content_block_start", "index": i,
                                                 "content_block": dict(t, input={})}),
                        ("content_block_delta", {"type": "content_block_delta", "index": i,
                                                 "delta": {"type": "input_json_delta",
                                                           "partial_json": json.dumps(t["input"])}}),
                        ("content_block_stop", {"type": "content_block_stop", "index": i}),
                    ]  # fmt: skip
                events += [
                    ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                       "usage": {"output_tokens": 5}}),
                    ("message_stop", {"type": "message_stop"}),
                ]  # fmt: skip
                data = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()
                self._send(data, "text/event-stream")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeAnthropic":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def message_bodies(self) -> list[dict[str, Any]]:
        """The bodies of the Messages requests received so far."""
        return [r["body"] for r in self.requests if isinstance(r["body"], dict) and "messages" in r["body"]]
