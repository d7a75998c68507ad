"""The clients: one HTTP exchange per route of the generated mixins (_generated.py), with the
token, a deadline per attempt, and retries of what the server refused before doing anything (503:
the desktop is starting or restarting; 429: too many at once) after the Retry-After it names,
bounded. Any other 4xx/5xx, and no answer at all, raise a GatewayError."""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Optional
from urllib.parse import quote

import httpx

from ._errors import GatewayError, error_from_answer, parse_body
from ._generated import AsyncRoutes, FleetAsyncRoutes, FleetSyncRoutes, SyncRoutes

if TYPE_CHECKING:
    from PIL.Image import Image

# Answers that say nothing ran, so sending the request again is safe.
RETRIED = (429, 503)
ImageFormat = Literal["png", "jpeg", "webp"]


def retry_after_seconds(header: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP date; None when absent or unreadable."""
    if header is None:
        return None
    value = header.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


class _Settings:
    def __init__(
        self,
        base_url: str,
        token: Optional[str],
        timeout: float,
        retries: int,
        retry_delay: float,
        max_retry_delay: float,
    ) -> None:
        url = httpx.URL(base_url)
        if url.scheme not in ("http", "https"):
            raise ValueError(f"computer-gateway: base_url must be http(s), e.g. http://127.0.0.1:8000; got {base_url!r}")
        if retries < 0 or retry_delay < 0 or max_retry_delay < 0:
            raise ValueError("computer-gateway: retries, retry_delay and max_retry_delay must be 0 or more")
        self.base_url = str(url).rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retries = retries
        self.retry_delay = retry_delay
        self.max_retry_delay = max_retry_delay

    def headers(self, extra: Optional[Mapping[str, str]]) -> dict[str, str]:
        headers = {"accept": "application/json"}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        headers.update(extra or {})
        return headers

    def wait(self, response: httpx.Response, attempt: int) -> Optional[float]:
        """Seconds to wait before the next attempt, or None when this answer is final."""
        if response.status_code not in RETRIED or attempt >= self.retries:
            return None
        named = retry_after_seconds(response.headers.get("retry-after"))
        return min(self.retry_delay if named is None else named, self.max_retry_delay)


def _content(body: Any, media: Optional[str]) -> dict[str, Any]:
    if body is None or media is None:
        return {}
    if media == "bytes":
        return {"content": body, "headers": {"content-type": "application/octet-stream"}}
    if isinstance(body, str):
        return {"content": body.encode("utf-8"), "headers": {"content-type": "text/plain; charset=utf-8"}}
    return {"json": body}


def _query(query: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in query.items() if value is not None}


def _answer(response: httpx.Response, read: str) -> Any:
    if response.is_success:
        if read == "none" or response.status_code == 204:
            return None
        if read == "bytes":
            return response.content
        return parse_body(response.content, response.headers.get("content-type", ""))
    raise error_from_answer(response.status_code, parse_body(response.content, response.headers.get("content-type", "")))


def _no_answer(url: str, error: httpx.TransportError, timeout: float) -> GatewayError:
    if isinstance(error, httpx.TimeoutException):
        return GatewayError(0, "ERR_TIMEOUT", f"no answer from {url} within {timeout} s (timeout)")
    return GatewayError(0, "ERR_NETWORK", f"could not reach {url}: {error}")


def decode_image(data: str) -> bytes:
    """A screenshot's base64 (or data: URL) as its bytes."""
    if data.startswith("data:"):
        data = data.split(",", 1)[1]
    return base64.b64decode(data, validate=True)


def to_image(data: bytes) -> Image:
    """Screenshot bytes as a PIL image; needs Pillow (pip install 'computer-gateway[image]')."""
    try:
        from PIL import Image as PILImage
    except ImportError as error:
        raise ImportError("computer-gateway: screenshots as images need Pillow: pip install 'computer-gateway[image]'") from error
    import io

    image = PILImage.open(io.BytesIO(data))
    image.load()
    return image


class _SyncHTTP:
    def __init__(
        self,
        base_url: str,
        *,
        token: Optional[str] = None,
        timeout: float = 60.0,
        retries: int = 3,
        retry_delay: float = 1.0,
        max_retry_delay: float = 30.0,
        transport: Optional[httpx.BaseTransport] = None,
    ) -> None:
        self._settings = _Settings(base_url, token, timeout, retries, retry_delay, max_retry_delay)
        self._http = httpx.Client(timeout=timeout, transport=transport)

    def _request(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any],
        body: Any,
        media: Optional[Literal["json", "bytes"]],
        read: Literal["auto", "bytes", "none"],
        headers: Optional[Mapping[str, str]],
    ) -> Any:
        url = self._settings.base_url + path
        content = _content(body, media)
        sent = self._settings.headers({**content.pop("headers", {}), **(headers or {})})
        for attempt in range(self._settings.retries + 1):
            try:
                response = self._http.request(method, url, params=_query(query), headers=sent, **content)
            except httpx.TransportError as error:
                raise _no_answer(url, error, self._settings.timeout) from error
            wait = self._settings.wait(response, attempt)
            if wait is None:
                return _answer(response, read)
            time.sleep(wait)
        raise AssertionError("unreachable: the last attempt's answer is final")

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class _AsyncHTTP:
    def __init__(
        self,
        base_url: str,
        *,
        token: Optional[str] = None,
        timeout: float = 60.0,
        retries: int = 3,
        retry_delay: float = 1.0,
        max_retry_delay: float = 30.0,
        transport: Optional[httpx.AsyncBaseTransport] = None,
    ) -> None:
        self._settings = _Settings(base_url, token, timeout, retries, retry_delay, max_retry_delay)
        self._http = httpx.AsyncClient(timeout=timeout, transport=transport)

    async def _request(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any],
        body: Any,
        media: Optional[Literal["json", "bytes"]],
        read: Literal["auto", "bytes", "none"],
        headers: Optional[Mapping[str, str]],
    ) -> Any:
        url = self._settings.base_url + path
        content = _content(body, media)
        sent = self._settings.headers({**content.pop("headers", {}), **(headers or {})})
        for attempt in range(self._settings.retries + 1):
            try:
                response = await self._http.request(method, url, params=_query(query), headers=sent, **content)
            except httpx.TransportError as error:
                raise _no_answer(url, error, self._settings.timeout) from error
            wait = self._settings.wait(response, attempt)
            if wait is None:
                return _answer(response, read)
            await asyncio.sleep(wait)
        raise AssertionError("unreachable: the last attempt's answer is final")

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Any:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()


class Client(_SyncHTTP, SyncRoutes):
    """Every route of a desktop's server, blocking: `Client("http://127.0.0.1:8000", token=...)`."""

    def __enter__(self) -> Client:
        return self

    def screenshot(
        self,
        *,
        display_width_px: Optional[int] = None,
        display_height_px: Optional[int] = None,
        format: ImageFormat = "png",
    ) -> bytes:
        """The screen now, encoded as `format`, scaled to the display given (default the real screen)."""
        answer = self.post_computer(
            {"action": "take_screenshot"},
            display_width_px=display_width_px,
            display_height_px=display_height_px,
            format=format,
        )
        image = answer.get("base64_image")
        if not image:
            raise GatewayError(200, "ERR_NO_IMAGE", "the gateway answered a screenshot without an image", answer)
        return decode_image(image)

    def screenshot_image(self, *, display_width_px: Optional[int] = None, display_height_px: Optional[int] = None) -> Image:
        """The screen now as a PIL image (needs Pillow)."""
        return to_image(self.screenshot(display_width_px=display_width_px, display_height_px=display_height_px))


class AsyncClient(_AsyncHTTP, AsyncRoutes):
    """Every route of a desktop's server, for asyncio: `async with AsyncClient(url, token=...) as c:`."""

    async def __aenter__(self) -> AsyncClient:
        return self

    async def screenshot(
        self,
        *,
        display_width_px: Optional[int] = None,
        display_height_px: Optional[int] = None,
        format: ImageFormat = "png",
    ) -> bytes:
        """The screen now, encoded as `format`, scaled to the display given (default the real screen)."""
        answer = await self.post_computer(
            {"action": "take_screenshot"},
            display_width_px=display_width_px,
            display_height_px=display_height_px,
            format=format,
        )
        image = answer.get("base64_image")
        if not image:
            raise GatewayError(200, "ERR_NO_IMAGE", "the gateway answered a screenshot without an image", answer)
        return decode_image(image)

    async def screenshot_image(self, *, display_width_px: Optional[int] = None, display_height_px: Optional[int] = None) -> Image:
        """The screen now as a PIL image (needs Pillow)."""
        return to_image(await self.screenshot(display_width_px=display_width_px, display_height_px=display_height_px))


class FleetClient(_SyncHTTP, FleetSyncRoutes):
    """The fleet's lifecycle (create, get, list, end desktops); `desktop(id)` is a Client for one of them."""

    def __enter__(self) -> FleetClient:
        return self

    def desktop(self, desktop_id: str) -> Client:
        """A Client for one desktop's API, through the fleet with the fleet's key."""
        s = self._settings
        return Client(
            f"{s.base_url}/desktops/{quote(desktop_id, safe='')}",
            token=s.token,
            timeout=s.timeout,
            retries=s.retries,
            retry_delay=s.retry_delay,
            max_retry_delay=s.max_retry_delay,
        )


class AsyncFleetClient(_AsyncHTTP, FleetAsyncRoutes):
    """The fleet's lifecycle, for asyncio; `desktop(id)` is an AsyncClient for one of its desktops."""

    async def __aenter__(self) -> AsyncFleetClient:
        return self

    def desktop(self, desktop_id: str) -> AsyncClient:
        """An AsyncClient for one desktop's API, through the fleet with the fleet's key."""
        s = self._settings
        return AsyncClient(
            f"{s.base_url}/desktops/{quote(desktop_id, safe='')}",
            token=s.token,
            timeout=s.timeout,
            retries=s.retries,
            retry_delay=s.retry_delay,
            max_retry_delay=s.max_retry_delay,
        )
