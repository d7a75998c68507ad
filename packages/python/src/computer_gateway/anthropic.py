"""Claude's computer tools over computer-gateway, for the Anthropic SDK's tool runner
(`client.beta.messages.tool_runner`; `pip install 'computer-gateway[anthropic]'`):

- `GatewayComputerToolset` / `AsyncGatewayComputerToolset`: the computer toolset
  (`computer_toolset_20260801`). The SDK's `execute` override, as it documents for a remote
  desktop, forwards every member call as its tool_use block to POST /computer/anthropic and hands
  the SDK what a member returns (nothing for a pure action, an image for screenshot and zoom, a
  point for cursor_position).
- `GatewayComputerTool` / `AsyncGatewayComputerTool`: the older `computer` tools
  (computer_20251124, computer_20250124, computer_20241022), whose definition names the display
  the model is told; each call's input goes to POST /computer/anthropic?tool_version=… and our
  tool_result content (the text and the screenshot) goes back.

Our refusal or failure (any 4xx/5xx but a refused token) becomes a ToolError with our message,
which the runner answers with is_error and goes on; a refused token (401/403), a timeout or no
server stay GatewayErrors, which end the run: the model cannot fix them.

- `GatewayBashTool` / `AsyncGatewayBashTool` (bash_20250124, the server's --shell) and
  `GatewayTextEditorTool` / `AsyncGatewayTextEditorTool` (text_editor_20250728,
  `str_replace_based_edit_tool`, the server's --files): each call's input goes to
  POST /computer/anthropic?tool_version=…, where it runs as the desktop's user in its home, and our
  tool_result content goes back; a tool_result the server marks is_error (a command its timeout
  killed) becomes a ToolError, so the model is told it failed."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Literal, Optional, TypeVar, cast

from anthropic.lib.tools import BetaAsyncBuiltinFunctionTool, BetaBuiltinFunctionTool
from anthropic.lib.tools._beta_functions import BetaFunctionToolResultType
from anthropic.tools import ToolError
from anthropic.tools.computer import (
    BetaAbstractComputerToolset20260801,
    BetaAsyncAbstractComputerToolset20260801,
    BetaAsyncComputerConfirmCallable,
    BetaComputerConfirmCallable,
    BetaComputerCursorPositionResult,
    BetaComputerMemberResult,
    BetaScreenshotResult,
    BetaToolConfigs,
    BetaToolsetCallContext,
)
from anthropic.types.beta import BetaComputerToolsetConfigsParam, BetaToolUnionParam

from ._client import AsyncClient, Client
from ._errors import GatewayError

__all__ = [
    "AsyncGatewayBashTool",
    "AsyncGatewayComputerTool",
    "AsyncGatewayComputerToolset",
    "AsyncGatewayTextEditorTool",
    "BashToolVersion",
    "ComputerToolVersion",
    "GatewayBashTool",
    "GatewayComputerTool",
    "GatewayComputerToolset",
    "GatewayTextEditorTool",
    "TextEditorToolVersion",
    "computer_tool",
]

ComputerToolVersion = Literal["computer_20251124", "computer_20250124", "computer_20241022"]
BashToolVersion = Literal["bash_20250124", "bash_20241022"]
TextEditorToolVersion = Literal["text_editor_20250728", "text_editor_20250429", "text_editor_20250124", "text_editor_20241022"]
ImageFormat = Literal["png", "jpeg", "webp"]
T = TypeVar("T")
CURSOR = re.compile(r"^X=(-?\d+),Y=(-?\d+)$")


def computer_tool(version: ComputerToolVersion, display: tuple[int, int]) -> BetaToolUnionParam:
    """The `tools[]` entry of an older computer tool, naming the display the model is told."""
    return cast(
        BetaToolUnionParam,
        {"type": version, "name": "computer", "display_width_px": display[0], "display_height_px": display[1]},
    )


def _as_tool_error(error: GatewayError) -> Exception:
    if error.status >= 400 and error.status not in (401, 403):
        return ToolError([{"type": "text", "text": error.message}])
    return error


def _call(send: Callable[[], T]) -> T:
    try:
        return send()
    except GatewayError as error:
        raise _as_tool_error(error) from error


async def _acall(send: Callable[[], Awaitable[T]]) -> T:
    try:
        return await send()
    except GatewayError as error:
        raise _as_tool_error(error) from error


def _display_query(display: Optional[tuple[int, int]]) -> dict[str, Any]:
    return {"display_width_px": display[0], "display_height_px": display[1]} if display else {}


def _member_result(name: str, results: Any) -> BetaComputerMemberResult:
    """What the SDK wants of a member, from our tool_result block."""
    first = results[0]["content"][0] if results and results[0].get("content") else {}
    if name in ("screenshot", "zoom"):
        source = first.get("source", {})
        return BetaScreenshotResult(data=source["data"], media_type=source["media_type"])
    if name == "cursor_position":
        found = CURSOR.match(str(first.get("text", "")))
        if not found:
            raise GatewayError(200, "ERR_BAD_ANSWER", f"cursor_position answered {first!r}", results)
        return BetaComputerCursorPositionResult(x=int(found[1]), y=int(found[2]))
    # A pure action: the SDK writes its own acknowledgment.
    return None


def _tool_use_block(context: BetaToolsetCallContext, name: str, input: Any) -> dict[str, Any]:
    # The model's own input, as it wrote it: the server parses it exactly as the SDK did.
    tool_use = context.tool_use
    raw = tool_use.input if tool_use is not None else input.model_dump(mode="json", exclude_unset=True)
    return {
        "type": "tool_use",
        "id": tool_use.id if tool_use is not None else "toolu_local",
        "name": name,
        "toolset_name": "computer",
        "input": raw,
    }


class GatewayComputerToolset(BetaAbstractComputerToolset20260801):
    """The computer toolset on a desktop of computer-gateway, for `tool_runner(tools=[toolset])`."""

    def __init__(
        self,
        client: Client,
        *,
        display: Optional[tuple[int, int]] = None,
        format: Optional[ImageFormat] = None,
        quality: Optional[int] = None,
        configs: Optional[BetaComputerToolsetConfigsParam] = None,
        confirm: Optional[BetaComputerConfirmCallable] = None,
        tool_configs: Optional[BetaToolConfigs] = None,
    ) -> None:
        """`display`: the size of the screenshots Claude is shown (default the screen, scaled down to
        Anthropic's image limits by the server); `confirm` as the SDK wants it while key/type are on."""
        super().__init__(configs=configs, confirm=confirm, tool_configs=tool_configs)
        self.client = client
        self._query: dict[str, Any] = {**_display_query(display), "format": format, "quality": quality}

    def execute(self, context: BetaToolsetCallContext, name: Any, input: Any) -> BetaComputerMemberResult:
        block = _tool_use_block(context, str(name), input)
        results = _call(lambda: self.client.post_computer_anthropic(cast(Any, block), **self._query))
        return _member_result(str(name), results)


class AsyncGatewayComputerToolset(BetaAsyncAbstractComputerToolset20260801):
    """The computer toolset on a desktop of computer-gateway, for the async tool runner."""

    def __init__(
        self,
        client: AsyncClient,
        *,
        display: Optional[tuple[int, int]] = None,
        format: Optional[ImageFormat] = None,
        quality: Optional[int] = None,
        configs: Optional[BetaComputerToolsetConfigsParam] = None,
        confirm: Optional[BetaAsyncComputerConfirmCallable] = None,
        tool_configs: Optional[BetaToolConfigs] = None,
    ) -> None:
        super().__init__(configs=configs, confirm=confirm, tool_configs=tool_configs)
        self.client = client
        self._query: dict[str, Any] = {**_display_query(display), "format": format, "quality": quality}

    async def execute(self, context: BetaToolsetCallContext, name: Any, input: Any) -> BetaComputerMemberResult:
        block = _tool_use_block(context, str(name), input)
        results = await _acall(lambda: self.client.post_computer_anthropic(cast(Any, block), **self._query))
        return _member_result(str(name), results)


class GatewayComputerTool(BetaBuiltinFunctionTool):
    """An older `computer` tool (computer_20251124 by default) on a desktop of computer-gateway."""

    def __init__(self, client: Client, *, display: tuple[int, int], version: ComputerToolVersion = "computer_20251124") -> None:
        self.client = client
        self.version: ComputerToolVersion = version
        self.display = display

    def to_dict(self) -> BetaToolUnionParam:
        return computer_tool(self.version, self.display)

    def call(self, input: object) -> BetaFunctionToolResultType:
        answer = _call(
            lambda: self.client.post_computer_anthropic(
                cast(Any, input), tool_version=self.version, **_display_query(self.display)
            )
        )
        return cast(Iterable[Any], cast(Any, answer)["content"])


class AsyncGatewayComputerTool(BetaAsyncBuiltinFunctionTool):
    """An older `computer` tool on a desktop of computer-gateway, for the async tool runner."""

    def __init__(
        self, client: AsyncClient, *, display: tuple[int, int], version: ComputerToolVersion = "computer_20251124"
    ) -> None:
        self.client = client
        self.version: ComputerToolVersion = version
        self.display = display

    def to_dict(self) -> BetaToolUnionParam:
        return computer_tool(self.version, self.display)

    async def call(self, input: object) -> BetaFunctionToolResultType:
        answer = await _acall(
            lambda: self.client.post_computer_anthropic(
                cast(Any, input), tool_version=self.version, **_display_query(self.display)
            )
        )
        return cast(Iterable[Any], cast(Any, answer)["content"])


def _editor_name(version: TextEditorToolVersion) -> str:
    # The model knows the two newest versions by another name than the older ones.
    return "str_replace_based_edit_tool" if version in ("text_editor_20250728", "text_editor_20250429") else "str_replace_editor"


def _content(answer: Any) -> BetaFunctionToolResultType:
    """Our tool_result's content; one marked is_error is the model's to hear as a failure."""
    content = cast(list[Any], answer["content"])
    if answer.get("is_error"):
        raise ToolError(content)
    return cast(Iterable[Any], content)


class GatewayBashTool(BetaBuiltinFunctionTool):
    """Claude's bash tool (bash_20250124) on a desktop of computer-gateway started with --shell:
    a persistent session as the desktop's user, in its home, on its display."""

    def __init__(self, client: Client, *, version: BashToolVersion = "bash_20250124") -> None:
        self.client = client
        self.version: BashToolVersion = version

    def to_dict(self) -> BetaToolUnionParam:
        return cast(BetaToolUnionParam, {"type": self.version, "name": "bash"})

    def call(self, input: object) -> BetaFunctionToolResultType:
        return _content(_call(lambda: self.client.post_computer_anthropic(cast(Any, input), tool_version=self.version)))


class AsyncGatewayBashTool(BetaAsyncBuiltinFunctionTool):
    """Claude's bash tool on a desktop of computer-gateway, for the async tool runner."""

    def __init__(self, client: AsyncClient, *, version: BashToolVersion = "bash_20250124") -> None:
        self.client = client
        self.version: BashToolVersion = version

    def to_dict(self) -> BetaToolUnionParam:
        return cast(BetaToolUnionParam, {"type": self.version, "name": "bash"})

    async def call(self, input: object) -> BetaFunctionToolResultType:
        return _content(await _acall(lambda: self.client.post_computer_anthropic(cast(Any, input), tool_version=self.version)))


class GatewayTextEditorTool(BetaBuiltinFunctionTool):
    """Claude's text editor (text_editor_20250728, `str_replace_based_edit_tool`) over the home of a
    desktop of computer-gateway started with --files: view, create, str_replace, insert."""

    def __init__(self, client: Client, *, version: TextEditorToolVersion = "text_editor_20250728") -> None:
        self.client = client
        self.version: TextEditorToolVersion = version

    def to_dict(self) -> BetaToolUnionParam:
        return cast(BetaToolUnionParam, {"type": self.version, "name": _editor_name(self.version)})

    def call(self, input: object) -> BetaFunctionToolResultType:
        return _content(_call(lambda: self.client.post_computer_anthropic(cast(Any, input), tool_version=self.version)))


class AsyncGatewayTextEditorTool(BetaAsyncBuiltinFunctionTool):
    """Claude's text editor on a desktop of computer-gateway, for the async tool runner."""

    def __init__(self, client: AsyncClient, *, version: TextEditorToolVersion = "text_editor_20250728") -> None:
        self.client = client
        self.version: TextEditorToolVersion = version

    def to_dict(self) -> BetaToolUnionParam:
        return cast(BetaToolUnionParam, {"type": self.version, "name": _editor_name(self.version)})

    async def call(self, input: object) -> BetaFunctionToolResultType:
        return _content(await _acall(lambda: self.client.post_computer_anthropic(cast(Any, input), tool_version=self.version)))
