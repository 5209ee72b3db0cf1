"""A stand-in for a local OpenAI-compatible chat server (Ollama, vLLM), started by the tests on 127.0.0.1 at a random
port in a thread: it records every request and answers as the test says (spans, slowly, a 500, junk)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class LlmStub:
    base_url: str = ""
    mode: str = "spans"  # spans | slow | fail | junk | not-chat | redirect (to ``location``)
    location: str = ""
    content: str = '{"spans": []}'  # the assistant's answer in "spans" mode
    delay_s: float = 3.0  # how long "slow" waits before answering
    requests: list[dict] = field(default_factory=list)  # each: path, body (parsed JSON or None)

    def answer_spans(self, *entries: dict) -> None:
        self.mode = "spans"
        self.content = json.dumps({"spans": list(entries)}, ensure_ascii=False)

    def user_prompt(self, n: int = -1) -> str:
        return self.requests[n]["body"]["messages"][-1]["content"]


@contextmanager
def llm_stub() -> Iterator[LlmStub]:
    stub = LlmStub()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def do_POST(self):  # noqa: N802 (http.server's name)
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            stub.requests.append({"path": self.path, "body": body})
            if stub.mode == "slow":
                time.sleep(stub.delay_s)
            if stub.mode == "fail":
                self._send(500, b'{"error": "model not loaded"}')
            elif stub.mode == "junk":
                self._send(200, json.dumps({"choices": [{"message": {"role": "assistant", "content":
                                            "Sure! The aspects are staff and seats."}}]}).encode())
            elif stub.mode == "redirect":
                self.send_response(302)  # urllib's default handler would follow it (as a GET)
                self.send_header("Location", stub.location)
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif stub.mode == "not-chat":
                self._send(200, b"<html>gateway</html>", "text/html")
            else:
                self._send(200, json.dumps({"id": "stub", "object": "chat.completion", "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": stub.content},
                     "finish_reason": "stop"}]}).encode())

        def do_GET(self):  # noqa: N802
            stub.requests.append({"path": self.path, "body": None, "method": "GET"})
            self._send(404, b"{}")

        def _send(self, status: int, payload: bytes, kind: str = "application/json") -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except OSError:  # the client gave up (timed out) first
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.block_on_close = False
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stub.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
