"""A drop-in for the `pyautogui` module that drives a remote desktop: code a model wrote for
pyautogui runs unchanged with `import computer_gateway.pyautogui as pyautogui`. Each call is
written back as the pyautogui line it stands for and sent to the server's pyautogui dialect,
POST /computer/pyautogui, which owns pyautogui's key names, buttons, scroll clicks and argument
binding; the server types text exactly (any Unicode, newlines included), which a real pyautogui
cannot.

Where the desktop is: `configure(base_url, token=...)`, else the environment's
COMPUTER_GATEWAY_URL (default http://127.0.0.1:8000) and COMPUTER_GATEWAY_TOKEN. Coordinates are
the real screen's pixels, as pyautogui's are. A refused call raises a GatewayError."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Optional, Union

from ._client import Client
from ._errors import GatewayError

if TYPE_CHECKING:
    from PIL.Image import Image

# pyautogui's module attributes that agents set: kept for compatibility; the server paces input
# itself and has no fail-safe corner.
PAUSE: float = 0.0
FAILSAFE: bool = False
MINIMUM_DURATION: float = 0.0


class Point(NamedTuple):
    x: int
    y: int


class Size(NamedTuple):
    width: int
    height: int


class FailSafeException(Exception):
    """pyautogui's fail-safe: never raised here (there is no local mouse to fling to a corner)."""


_client: Optional[Client] = None

Number = Union[int, float]


def configure(base_url: Optional[str] = None, *, token: Optional[str] = None, client: Optional[Client] = None) -> Client:
    """Point the module at a desktop; returns the Client it uses from now on."""
    global _client
    if client is None:
        url = base_url or os.environ.get("COMPUTER_GATEWAY_URL") or "http://127.0.0.1:8000"
        client = Client(url, token=token if token is not None else os.environ.get("COMPUTER_GATEWAY_TOKEN"))
    _client = client
    return client


def _connection() -> Client:
    return _client if _client is not None else configure()


def _call(name: str, *args: Any, **kwargs: Any) -> Any:
    """Sends `pyautogui.name(args…, kw=…)` as one line of literal Python (None arguments left out)."""
    parts = [repr(a) for a in args] + [f"{key}={value!r}" for key, value in kwargs.items() if value is not None]
    return _connection().post_computer_pyautogui(f"pyautogui.{name}({', '.join(parts)})", screenshot=False)


def _xy(x: Any, y: Any) -> tuple[Any, Any]:
    """pyautogui takes a point as x, as (x, y) in x, or as x and y."""
    if isinstance(x, (tuple, list)) and y is None:
        return x[0], x[1]
    return x, y


def click(
    x: Any = None,
    y: Optional[Number] = None,
    clicks: int = 1,
    interval: float = 0.0,
    button: str = "left",
    duration: float = 0.0,
    **_: Any,
) -> None:
    x, y = _xy(x, y)
    _call("click", x=x, y=y, clicks=clicks if clicks != 1 else None, button=button if button != "left" else None)


def leftClick(x: Any = None, y: Optional[Number] = None, interval: float = 0.0, duration: float = 0.0, **_: Any) -> None:
    x, y = _xy(x, y)
    _call("leftClick", x=x, y=y)


def rightClick(x: Any = None, y: Optional[Number] = None, interval: float = 0.0, duration: float = 0.0, **_: Any) -> None:
    x, y = _xy(x, y)
    _call("rightClick", x=x, y=y)


def middleClick(x: Any = None, y: Optional[Number] = None, interval: float = 0.0, duration: float = 0.0, **_: Any) -> None:
    x, y = _xy(x, y)
    _call("middleClick", x=x, y=y)


def doubleClick(
    x: Any = None, y: Optional[Number] = None, interval: float = 0.0, button: str = "left", duration: float = 0.0, **_: Any
) -> None:
    x, y = _xy(x, y)
    _call("doubleClick", x=x, y=y, button=button if button != "left" else None)


def tripleClick(
    x: Any = None, y: Optional[Number] = None, interval: float = 0.0, button: str = "left", duration: float = 0.0, **_: Any
) -> None:
    x, y = _xy(x, y)
    _call("tripleClick", x=x, y=y, button=button if button != "left" else None)


def moveTo(x: Any = None, y: Optional[Number] = None, duration: float = 0.0, **_: Any) -> None:
    x, y = _xy(x, y)
    _call("moveTo", x=x, y=y)


def moveRel(xOffset: Number = 0, yOffset: Number = 0, duration: float = 0.0, **_: Any) -> None:
    """Relative to where the pointer is now (read from the server)."""
    here = position()
    moveTo(here.x + xOffset, here.y + yOffset)


move = moveRel


def dragTo(x: Any = None, y: Optional[Number] = None, duration: float = 0.0, button: str = "left", **_: Any) -> None:
    x, y = _xy(x, y)
    _call("dragTo", x=x, y=y, button=button if button != "left" else None)


def dragRel(xOffset: Number = 0, yOffset: Number = 0, duration: float = 0.0, button: str = "left", **_: Any) -> None:
    here = position()
    dragTo(here.x + xOffset, here.y + yOffset, button=button)


drag = dragRel


def mouseDown(x: Any = None, y: Optional[Number] = None, button: str = "left", **_: Any) -> None:
    x, y = _xy(x, y)
    _call("mouseDown", x=x, y=y, button=button if button != "left" else None)


def mouseUp(x: Any = None, y: Optional[Number] = None, button: str = "left", **_: Any) -> None:
    x, y = _xy(x, y)
    _call("mouseUp", x=x, y=y, button=button if button != "left" else None)


def scroll(clicks: Number, x: Optional[Number] = None, y: Optional[Number] = None, **_: Any) -> None:
    _call("scroll", clicks, x=x, y=y)


def vscroll(clicks: Number, x: Optional[Number] = None, y: Optional[Number] = None, **_: Any) -> None:
    _call("vscroll", clicks, x=x, y=y)


def hscroll(clicks: Number, x: Optional[Number] = None, y: Optional[Number] = None, **_: Any) -> None:
    _call("hscroll", clicks, x=x, y=y)


def write(message: Union[str, Sequence[str]], interval: float = 0.0, **_: Any) -> None:
    """Types the text exactly; a list is pyautogui's list of key names, pressed in turn."""
    if isinstance(message, str):
        _call("write", message)
    else:
        _call("press", list(message))


typewrite = write


def press(keys: Union[str, Sequence[str]], presses: int = 1, interval: float = 0.0, **_: Any) -> None:
    _call("press", keys if isinstance(keys, str) else list(keys), presses=presses if presses != 1 else None)


def hotkey(*keys: str, **_: Any) -> None:
    _call("hotkey", *keys)


def keyDown(key: str, **_: Any) -> None:
    _call("keyDown", key)


def keyUp(key: str, **_: Any) -> None:
    _call("keyUp", key)


def sleep(seconds: float) -> None:
    time.sleep(seconds)


def size() -> Size:
    """The real screen, as the server reports it."""
    screen = _connection().get_health().get("screen")
    if not screen:
        raise GatewayError(503, "ERR_NO_SCREEN", "the server does not know its screen size yet (no desktop)")
    return Size(screen["width"], screen["height"])


def position() -> Point:
    """Where the pointer is."""
    cursor = _connection().post_computer({"action": "get_cursor_position"}).get("cursor_position")
    if not cursor:
        raise GatewayError(200, "ERR_NO_CURSOR", "the server answered get_cursor_position without a cursor")
    return Point(cursor[0], cursor[1])


def onScreen(x: Any, y: Optional[Number] = None) -> bool:
    x, y = _xy(x, y)
    width, height = size()
    return 0 <= x < width and 0 <= y < height


def screenshot(imageFilename: Optional[str] = None, region: Optional[tuple[int, int, int, int]] = None) -> Image:
    """The screen as a PIL image (needs Pillow), cropped to `region` (left, top, width, height), saved when named."""
    image = _connection().screenshot_image()
    if region is not None:
        left, top, width, height = region
        image = image.crop((left, top, left + width, top + height))
    if imageFilename:
        image.save(imageFilename)
    return image
