"""A scripted model over real HTTP: the OpenAI Responses API (POST /v1/responses) and the
Anthropic Messages API (POST /v1/messages) answered, in turn, with the replies a test queued,
every request kept for the test to read. The SDKs reach it through their base URL (in-process)
or OPENAI_BASE_URL / ANTHROPIC_BASE_URL (a README example in its own process), so their own
loops, parsing and tool dispatch run unchanged. A request beyond the script is answered 500."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USAGE_OPENAI = {
    "input_tokens": 1,
    "output_tokens": 1,
    "total_tokens": 2,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens_details": {"reasoning_tokens": 0},
}


def openai_response(number: int, output: list[dict[str, Any]]) -> dict[str, Any]:
    """A whole Responses API answer holding `output`."""
    return {
        "id": f"resp_{number}",
        "object": "response",
        "created_at": 1700000000,
        "model": "gpt-5.4",
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": USAGE_OPENAI,
    }


def openai_computer_call(call_id: str, actions: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "computer_call",
        "id": f"cu_{call_id}",
        "call_id": call_id,
        "status": "completed",
        "pending_safety_checks": [],
        "actions": actions,
    }


def openai_message(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "msg_final",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def anthropic_message(number: int, content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
    """A whole Messages API answer holding `content`."""
    return {
        "id": f"msg_{number}",
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-4-7",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


class ModelServer:
    def __init__(self) -> None:
        self.replies: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(body)
                    server.paths.append(self.path)
                    reply = server.replies.pop(0) if server.replies else None
                status, answer = (200, reply) if reply is not None else (500, {"error": {"message": "no reply left"}})
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}"
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._thread.start()

    def script(self, *replies: dict[str, Any]) -> None:
        with self._lock:
            self.replies = list(replies)
            self.requests = []
            self.paths = []

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(5)
