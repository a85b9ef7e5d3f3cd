"""A throttled HTTP server on 127.0.0.1 that logs every request, for the browser tests.

It serves folders under URL prefixes and pages held in memory. A test can slow every response
down (bytes per second), make a path answer with an error status, and hold a response after a
given number of its bytes until the test lets it go on: the browser then has exactly that prefix
of the file, as on a slow network, and the test can look at what the page shows meanwhile.

Every request is logged with how many bytes were sent and how it ended ("complete", "aborted"
when the browser closed the connection first, "held" while it waits); tests wait on the log, not
on the clock.
"""

from __future__ import annotations

import mimetypes
import select
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".json": "application/json",
    ".html": "text/html; charset=utf-8",
    ".jpg": "image/jpeg",
    ".png": "image/png",
    ".webp": "image/webp",
    ".avif": "image/avif",
    ".jxl": "image/jxl",
    ".css": "text/css",
}


@dataclass
class Request:
    """One request as the server saw it."""

    seq: int
    path: str
    status: int = 0
    length: int = 0
    sent: int = 0
    # "sending", "held", "complete" or "aborted"
    state: str = "sending"
    headers: dict = field(default_factory=dict)


class LadderServer:
    """Serves `mounts` ({"/prefix/": folder}) and in-memory pages on 127.0.0.1."""

    def __init__(self, mounts: dict[str, Path]):
        self.mounts = {prefix: Path(folder) for prefix, folder in mounts.items()}
        self.pages: dict[str, bytes] = {}
        self.requests: list[Request] = []
        self.changed = threading.Condition()
        self.rate: float | None = None
        self.holds: dict[str, int] = {}
        self.failures: dict[str, int] = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # the log is `requests`, not stderr
                pass

            def do_GET(self):
                server._serve(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    # MARK: - Control

    def start(self) -> "LadderServer":
        self.thread.start()
        return self

    def stop(self):
        with self.changed:
            self.holds.clear()
            self.changed.notify_all()
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def url(self, path: str) -> str:
        return self.origin + path

    def page(self, path: str, html: str) -> str:
        """Serves `html` at `path` and returns its URL."""
        self.pages[path] = html.encode()
        return self.url(path)

    def reset(self):
        """Forgets the log, the rate, the holds and the failures (between tests)."""
        with self.changed:
            self.requests.clear()
            self.rate = None
            self.holds.clear()
            self.failures.clear()
            self.changed.notify_all()

    def hold(self, path: str, after: int):
        """Holds the responses to `path` once `after` bytes of the body are sent."""
        with self.changed:
            self.holds[path] = after
            self.changed.notify_all()

    def release(self, path: str):
        with self.changed:
            self.holds.pop(path, None)
            self.changed.notify_all()

    def fail(self, path: str, status: int = 404):
        with self.changed:
            self.failures[path] = status

    def wait_until(self, predicate, timeout: float = 60, what: str = "the server's log to change"):
        """Waits until `predicate(requests)` is true (re-checked at every change of the log)."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                result = predicate(self.requests)
                if result:
                    return result
                left = deadline - time.monotonic()
                if left <= 0:
                    paths = [(r.path, r.state, r.sent) for r in self.requests]
                    raise AssertionError(f"timed out waiting for {what}; requests: {paths}")
                self.changed.wait(min(left, 0.5))

    def requested(self, path_part: str) -> list[Request]:
        with self.changed:
            return [r for r in self.requests if path_part in r.path]

    def paths(self) -> list[str]:
        with self.changed:
            return [r.path for r in self.requests]

    # MARK: - Serving

    def _resolve(self, path: str) -> Path | None:
        for prefix, folder in self.mounts.items():
            if path.startswith(prefix):
                relative = path[len(prefix):]
                candidate = (folder / relative).resolve()
                if candidate.is_relative_to(folder.resolve()) and candidate.is_file():
                    return candidate
        return None

    def _serve(self, handler: BaseHTTPRequestHandler):
        path = urllib.parse.unquote(urllib.parse.urlsplit(handler.path).path)
        with self.changed:
            request = Request(seq=len(self.requests), path=path, headers=dict(handler.headers))
            self.requests.append(request)
            status = self.failures.get(path)
            self.changed.notify_all()
        body = None
        if status is None:
            if path in self.pages:
                body = self.pages[path]
                content_type = TYPES[".html"]
            elif (file := self._resolve(path)) is not None:
                body = file.read_bytes()
                content_type = TYPES.get(file.suffix, mimetypes.guess_type(file.name)[0] or "application/octet-stream")
            else:
                status = 404
        if body is None:
            message = f"{status} for {path}\n".encode()
            handler.send_response(status)
            handler.send_header("Content-Type", "text/plain")
            handler.send_header("Content-Length", str(len(message)))
            handler.end_headers()
            self._finish(request, status, message, handler)
            return
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
        handler.send_header("Cache-Control", "no-cache")
        handler.end_headers()
        self._finish(request, 200, body, handler)

    def _finish(self, request: Request, status: int, body: bytes, handler):
        with self.changed:
            request.status = status
            request.length = len(body)
            self.changed.notify_all()
        connection: socket.socket = handler.connection
        sent = 0
        try:
            handler.wfile.flush()
            while sent < len(body):
                with self.changed:
                    hold = self.holds.get(request.path)
                    rate = self.rate
                if hold is not None and sent >= hold:
                    self._set(request, state="held")
                    if not self._wait_while_held(request, connection):
                        self._set(request, state="aborted")
                        return
                    self._set(request, state="sending")
                    continue
                chunk = 16384 if rate is None else max(1024, int(rate / 20))
                if hold is not None:
                    chunk = min(chunk, hold - sent)
                chunk = min(chunk, len(body) - sent)
                connection.sendall(body[sent : sent + chunk])
                sent += chunk
                self._set(request, sent=sent)
                if rate is not None:
                    time.sleep(chunk / rate)
            self._set(request, state="complete")
        except (BrokenPipeError, ConnectionResetError, OSError):
            self._set(request, state="aborted")
            handler.close_connection = True

    def _wait_while_held(self, request: Request, connection: socket.socket) -> bool:
        """Waits until the hold on the request's path is lifted or moved past what was sent;
        False when the browser closed the connection meanwhile (it gave up on the response)."""
        while True:
            with self.changed:
                hold = self.holds.get(request.path)
                if hold is None or hold > request.sent:
                    return True
                self.changed.wait(0.05)
            readable, _, _ = select.select([connection], [], [], 0)
            if readable:
                try:
                    if connection.recv(1, socket.MSG_PEEK) == b"":
                        return False
                except OSError:
                    return False

    def _set(self, request: Request, **changes):
        with self.changed:
            for key, value in changes.items():
                setattr(request, key, value)
            self.changed.notify_all()
