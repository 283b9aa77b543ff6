"""A real HTTP server on loopback that plays scripted (streaming) responses; no pytest needed.

A test queues `ScriptedResponse`s (status, headers, raw chunks, framing, delays, a dropped
connection after N chunks); each request takes the next one, and every request received is kept
in `requests` (method, path, headers, body) to assert on. Each chunk is written and flushed on
its own, so the client sees the stream arrive in pieces.

    with SSEServer() as server:
        server.respond(sse_response([sse_event({"a": 1})]))
        ...  # POST to server.url + "/v1/chat/completions"
        assert server.requests[0].json()["stream"] is True
"""

from __future__ import annotations

import json
import select
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Framing = Literal["chunked", "close", "length"]


@dataclass
class ScriptedResponse:
    """One scripted response.

    `framing`: `chunked` (HTTP/1.1 chunked transfer coding), `close` (the body ends when the
    connection closes) or `length` (a Content-Length body). `delay` seconds pass before every
    chunk after the first. `drop_after=N` writes N chunks, then cuts the connection without
    finishing the body.
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/event-stream"})
    chunks: list[bytes | str] = field(default_factory=list)
    framing: Framing = "chunked"
    delay: float = 0.0
    drop_after: int | None = None


@dataclass
class ReceivedRequest:
    """A request the server received; header names are lower-cased."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)


def sse_event(data: Any, event: str | None = None) -> str:
    """One SSE event: an optional `event:` line, a `data:` line (JSON unless a str), a blank line."""
    text = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n"


def split_pieces(text: str, size: int) -> list[str]:
    """`text` cut into pieces of `size` characters, ignoring line boundaries."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def sse_response(chunks: Sequence[bytes | str], **options: Any) -> ScriptedResponse:
    """A 200 `text/event-stream` response writing `chunks` one by one."""
    return ScriptedResponse(chunks=list(chunks), **options)


def json_response(
    status: int, payload: Any, headers: dict[str, str] | None = None
) -> ScriptedResponse:
    """A non-streamed JSON response, e.g. a vendor's 429 error body."""
    return ScriptedResponse(
        status=status,
        headers={"Content-Type": "application/json", **(headers or {})},
        chunks=[json.dumps(payload)],
        framing="length",
    )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: SSEServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet when a client hangs up (tests do that on purpose); report anything else."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def do_POST(self) -> None:
        """Record the request and play the next scripted response."""
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        owner = self.server.owner
        headers = {name.lower(): value for name, value in self.headers.items()}
        owner.record(ReceivedRequest(self.command, self.path, headers, body))
        self._play(owner.next_response(), owner.stopping)

    do_GET = do_POST

    def _play(self, response: ScriptedResponse, stopping: threading.Event) -> None:
        chunks = [c.encode() if isinstance(c, str) else c for c in response.chunks]
        self.send_response(response.status)
        for name, value in response.headers.items():
            self.send_header(name, value)
        if response.framing == "length":
            self.send_header("Content-Length", str(sum(len(c) for c in chunks)))
        elif response.framing == "chunked":
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        try:
            self.wfile.flush()
            for number, chunk in enumerate(chunks):
                if response.drop_after is not None and number >= response.drop_after:
                    return self._drop()
                if number and response.delay and not self._pause(response.delay, stopping):
                    return self._drop()
                if response.framing == "chunked":
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                else:
                    self.wfile.write(chunk)
                self.wfile.flush()
            if response.drop_after is not None:
                return self._drop()
            if response.framing == "chunked":
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _pause(self, seconds: float, stopping: threading.Event) -> bool:
        """Wait `seconds`; False as soon as the server stops or the client hangs up."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([self.connection], [], [], min(left, 0.02))
            if readable and not self.connection.recv(1, socket.MSG_PEEK):
                self.server.owner.note_hangup()
                return False
            if stopping.is_set():
                return False
        return True

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class SSEServer:
    """An HTTP/1.1 server on 127.0.0.1 (a free port) in a background thread."""

    def __init__(self) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )
        self._lock = threading.Lock()
        self._responses: deque[ScriptedResponse] = deque()
        self.requests: list[ReceivedRequest] = []
        self._hangups = threading.Condition(self._lock)
        self.hangups = 0
        """How many times a client closed its connection while a scripted delay was running."""
        self.stopping = threading.Event()
        """Set by `stop`; interrupts scripted delays so no handler outlives the server for long."""

    @property
    def url(self) -> str:
        """The base URL, e.g. `http://127.0.0.1:54321`."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def respond(self, *responses: ScriptedResponse) -> None:
        """Queue responses for the next requests, in order."""
        with self._lock:
            self._responses.extend(responses)

    def next_response(self) -> ScriptedResponse:
        """The next queued response; a 500 saying so when none is left."""
        with self._lock:
            if self._responses:
                return self._responses.popleft()
        return json_response(500, {"error": {"message": "no scripted response left"}})

    def record(self, request: ReceivedRequest) -> None:
        """Keep `request` in `requests`."""
        with self._lock:
            self.requests.append(request)

    def note_hangup(self) -> None:
        """Count a client that hung up mid-response."""
        with self._hangups:
            self.hangups += 1
            self._hangups.notify_all()

    def wait_for_hangup(self, timeout: float = 5.0) -> bool:
        """Whether a client hangs up mid-response within `timeout` seconds (or already did)."""
        with self._hangups:
            return self._hangups.wait_for(lambda: self.hangups > 0, timeout)

    def start(self) -> SSEServer:
        """Start serving in the background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, interrupt scripted delays and close the listening socket."""
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> SSEServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
