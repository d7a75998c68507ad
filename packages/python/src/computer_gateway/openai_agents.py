"""A `Computer` and an `AsyncComputer` for the OpenAI Agents SDK (`pip install
'computer-gateway[openai-agents]'`), so `ComputerTool(GatewayComputer.connect(url, token=...))`
drives a real desktop in `Runner.run`. Every action of a computer_call (the GA batched
`actions[]` reach it one by one from the runner) goes through the server's OpenAI dialect,
POST /computer/openai, which owns the key names, the pixel-to-notch scrolling and the scaling
from `dimensions` (what the model sees) to the screen. A refused action raises a GatewayError."""

from __future__ import annotations

from typing import Any, Optional

from agents import AsyncComputer, Computer
from agents.computer import Button, Environment

from ._client import AsyncClient, Client, decode_image
from ._errors import GatewayError

__all__ = ["AsyncGatewayComputer", "GatewayComputer"]


def _action(kind: str, modifiers: Optional[list[str]] = None, **fields: Any) -> dict[str, Any]:
    action: dict[str, Any] = {"type": kind, **fields}
    # Modifiers held during a pointer action (the GA tool's `keys`), when the model named some.
    if modifiers:
        action["keys"] = modifiers
    return action


def _png(answer: Any) -> str:
    """The base64 PNG of a screenshot's answer: the runner adds the data: URL itself."""
    url = answer.get("output", {}).get("image_url") if isinstance(answer, dict) else None
    if not isinstance(url, str) or not url.startswith("data:image/png;base64,"):
        raise GatewayError(200, "ERR_NO_IMAGE", "the gateway answered a screenshot without a PNG image", answer)
    return url.split(",", 1)[1]


class GatewayComputer(Computer):
    """A desktop of computer-gateway as the Agents SDK's (blocking) Computer."""

    def __init__(self, client: Client, *, display: tuple[int, int], environment: Environment = "ubuntu") -> None:
        self.client = client
        self._display = display
        self._environment: Environment = environment

    @classmethod
    def connect(
        cls,
        base_url: str,
        *,
        token: Optional[str] = None,
        display: Optional[tuple[int, int]] = None,
        environment: Environment = "ubuntu",
    ) -> GatewayComputer:
        """The desktop at base_url; `display` is the screen as the model sees it (default the real one)."""
        client = Client(base_url, token=token)
        if display is None:
            screen = client.get_health().get("screen")
            if not screen:
                raise GatewayError(503, "ERR_NO_SCREEN", "the server does not know its screen size yet; pass display")
            display = (screen["width"], screen["height"])
        return cls(client, display=display, environment=environment)

    @property
    def environment(self) -> Environment:
        return self._environment

    @property
    def dimensions(self) -> tuple[int, int]:
        return self._display

    def _send(self, action: dict[str, Any], screenshot: bool = False) -> Any:
        width, height = self._display
        return self.client.post_computer_openai(
            action,  # type: ignore[arg-type]  # built from the SDK's own action fields
            display_width_px=width,
            display_height_px=height,
            screenshot=screenshot,
            format="png" if screenshot else None,
        )

    def screenshot(self) -> str:
        return _png(self._send(_action("screenshot"), screenshot=True))

    def screenshot_bytes(self) -> bytes:
        return decode_image(self.screenshot())

    def click(self, x: int, y: int, button: Button, *, keys: Optional[list[str]] = None) -> None:
        self._send(_action("click", keys, x=x, y=y, button=button))

    def double_click(self, x: int, y: int, *, keys: Optional[list[str]] = None) -> None:
        self._send(_action("double_click", keys, x=x, y=y))

    def scroll(self, x: int, y: int, scroll_x: int, scroll_y: int, *, keys: Optional[list[str]] = None) -> None:
        self._send(_action("scroll", keys, x=x, y=y, scroll_x=scroll_x, scroll_y=scroll_y))

    def type(self, text: str) -> None:
        self._send(_action("type", text=text))

    def wait(self) -> None:
        self._send(_action("wait"))

    def move(self, x: int, y: int, *, keys: Optional[list[str]] = None) -> None:
        self._send(_action("move", keys, x=x, y=y))

    def keypress(self, keys: list[str]) -> None:
        self._send(_action("keypress", keys=keys))

    def drag(self, path: list[tuple[int, int]], *, keys: Optional[list[str]] = None) -> None:
        self._send(_action("drag", keys, path=[{"x": x, "y": y} for x, y in path]))

    def close(self) -> None:
        self.client.close()


class AsyncGatewayComputer(AsyncComputer):
    """A desktop of computer-gateway as the Agents SDK's AsyncComputer."""

    def __init__(self, client: AsyncClient, *, display: tuple[int, int], environment: Environment = "ubuntu") -> None:
        self.client = client
        self._display = display
        self._environment: Environment = environment

    @classmethod
    async def connect(
        cls,
        base_url: str,
        *,
        token: Optional[str] = None,
        display: Optional[tuple[int, int]] = None,
        environment: Environment = "ubuntu",
    ) -> AsyncGatewayComputer:
        """The desktop at base_url; `display` is the screen as the model sees it (default the real one)."""
        client = AsyncClient(base_url, token=token)
        if display is None:
            screen = (await client.get_health()).get("screen")
            if not screen:
                raise GatewayError(503, "ERR_NO_SCREEN", "the server does not know its screen size yet; pass display")
            display = (screen["width"], screen["height"])
        return cls(client, display=display, environment=environment)

    @property
    def environment(self) -> Environment:
        return self._environment

    @property
    def dimensions(self) -> tuple[int, int]:
        return self._display

    async def _send(self, action: dict[str, Any], screenshot: bool = False) -> Any:
        width, height = self._display
        return await self.client.post_computer_openai(
            action,  # type: ignore[arg-type]  # built from the SDK's own action fields
            display_width_px=width,
            display_height_px=height,
            screenshot=screenshot,
            format="png" if screenshot else None,
        )

    async def screenshot(self) -> str:
        return _png(await self._send(_action("screenshot"), screenshot=True))

    async def click(self, x: int, y: int, button: Button, *, keys: Optional[list[str]] = None) -> None:
        await self._send(_action("click", keys, x=x, y=y, button=button))

    async def double_click(self, x: int, y: int, *, keys: Optional[list[str]] = None) -> None:
        await self._send(_action("double_click", keys, x=x, y=y))

    async def scroll(self, x: int, y: int, scroll_x: int, scroll_y: int, *, keys: Optional[list[str]] = None) -> None:
        await self._send(_action("scroll", keys, x=x, y=y, scroll_x=scroll_x, scroll_y=scroll_y))

    async def type(self, text: str) -> None:
        await self._send(_action("type", text=text))

    async def wait(self) -> None:
        await self._send(_action("wait"))

    async def move(self, x: int, y: int, *, keys: Optional[list[str]] = None) -> None:
        await self._send(_action("move", keys, x=x, y=y))

    async def keypress(self, keys: list[str]) -> None:
        await self._send(_action("keypress", keys=keys))

    async def drag(self, path: list[tuple[int, int]], *, keys: Optional[list[str]] = None) -> None:
        await self._send(_action("drag", keys, path=[{"x": x, "y": y} for x, y in path]))

    async def aclose(self) -> None:
        await self.client.aclose()
