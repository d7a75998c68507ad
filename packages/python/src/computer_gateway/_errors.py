"""What a refused or failed request raises: the server's status, its stable error code and its
message (written for a person), with the whole answer kept for callers that need more (an
adapter's native result, a batch's failed_index)."""

from __future__ import annotations

import json
from typing import Any


class GatewayError(Exception):
    """A 4xx/5xx answer, or no answer at all (status 0: ERR_TIMEOUT, ERR_NETWORK)."""

    def __init__(self, status: int, code: str, message: str, body: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.body = body

    def __repr__(self) -> str:
        return f"GatewayError(status={self.status}, code={self.code!r}, message={self.message!r})"


def error_from_answer(status: int, body: Any) -> GatewayError:
    found = _find_error(body)
    code = found[0] if found and found[0] else f"HTTP_{status}"
    message = found[1] if found else f"the gateway answered {status}"
    return GatewayError(status, code, message, body)


def parse_body(content: bytes, content_type: str) -> Any:
    """JSON when the answer says so (text if it does not parse), else text."""
    text = content.decode("utf-8", errors="replace")
    if "json" in content_type and text:
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def _find_error(body: Any) -> tuple[str | None, str] | None:
    """The code and message of any of our error forms: ErrorBody, an adapter's native error, text."""
    if isinstance(body, str):
        return (None, body.strip()) if body.strip() else None
    if isinstance(body, list):
        for item in body:
            found = _find_error(item)
            if found:
                return found
        return None
    if not isinstance(body, dict):
        return None
    message = body.get("message")
    code = body.get("code")
    if isinstance(message, str) and isinstance(code, str):
        return (code, message)
    error = body.get("error")
    if isinstance(error, dict):
        return _find_error(error)
    if isinstance(error, str) and error:
        return (None, error)
    # Anthropic's tool_result with is_error: its text blocks are the message.
    content = body.get("content")
    if body.get("is_error") is True and isinstance(content, list):
        text = "\n".join(str(c.get("text")) for c in content if isinstance(c, dict) and c.get("type") == "text")
        if text:
            return (None, text)
    return (None, message) if isinstance(message, str) else None
