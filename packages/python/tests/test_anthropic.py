"""The Anthropic SDK's own loop (client.beta.messages.tool_runner) over our computer tools, the
model replayed over HTTP: one assistant message holding several tool uses (click, type, key,
cursor position, screenshot) is answered in one user message with a tool_result for each, in
order, with the effects on the desktop (the terminal holds exactly what was typed). The toolset
(computer_toolset_20260801) and the computer tool (computer_20251124), sync and async; a refused
call is answered with is_error and our message, and the run goes on."""

from __future__ import annotations

import base64
from typing import Any

import anthropic
import pytest
from conftest import Gateway, Terminal
from replay import ModelServer, anthropic_message

from computer_gateway import AsyncClient, Client
from computer_gateway.anthropic import (
    AsyncGatewayComputerTool,
    AsyncGatewayComputerToolset,
    GatewayComputerTool,
    GatewayComputerToolset,
)

TEXT = "héllo from tool_runner 世界"
PROMPT: list[Any] = [{"role": "user", "content": "Type into the terminal"}]


def member(id: str, name: str, input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": name, "toolset_name": "computer", "input": input}


def computer(id: str, input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": "computer", "input": input}


TOOLSET_TURN = [
    member("toolu_01", "left_click", {"coordinate": [200, 150]}),
    member("toolu_02", "type", {"text": TEXT}),
    member("toolu_03", "key", {"text": "Return"}),
    member("toolu_04", "cursor_position", {}),
    member("toolu_05", "screenshot", {}),
    member("toolu_06", "key", {"text": "ctrl+nokey"}),
]
TOOL_TURN = [
    computer("toolu_11", {"action": "left_click", "coordinate": [160, 120]}),
    computer("toolu_12", {"action": "type", "text": TEXT}),
    computer("toolu_13", {"action": "key", "text": "Return"}),
    computer("toolu_14", {"action": "screenshot"}),
    computer("toolu_15", {"action": "key", "text": "ctrl+nokey"}),
]


def script(model_server: ModelServer, turn: list[dict[str, Any]]) -> None:
    model_server.script(
        anthropic_message(1, [{"type": "text", "text": "On it."}, *turn], "tool_use"),
        anthropic_message(2, [{"type": "text", "text": "Done."}], "end_turn"),
    )


def results(model_server: ModelServer) -> list[dict[str, Any]]:
    """The tool_result blocks of the request after the tool uses: all in its one last user message."""
    assert model_server.paths == ["/v1/messages", "/v1/messages"]
    last = model_server.requests[1]["messages"][-1]
    assert last["role"] == "user"
    return [block for block in last["content"] if block.get("type") == "tool_result"]


def text_of(result: dict[str, Any]) -> str:
    return " ".join(str(block.get("text", "")) for block in result["content"] if block.get("type") == "text")


def is_png(result: dict[str, Any]) -> bool:
    images = [block for block in result["content"] if block.get("type") == "image"]
    return len(images) == 1 and base64.b64decode(images[0]["source"]["data"]).startswith(b"\x89PNG")


def check_toolset(terminal: Terminal, model_server: ModelServer, texts: list[str]) -> None:
    assert texts == ["On it.", "Done."]
    assert terminal.wait_for(TEXT + "\n") == TEXT + "\n"
    answered = results(model_server)
    assert [r["tool_use_id"] for r in answered] == [f"toolu_0{i}" for i in range(1, 7)]
    assert [r.get("is_error", False) for r in answered] == [False] * 5 + [True]
    assert text_of(answered[3]) == "X=200,Y=150"
    assert is_png(answered[4])
    assert "unknown key 'nokey'" in text_of(answered[5])


def check_tool(terminal: Terminal, model_server: ModelServer, texts: list[str]) -> None:
    assert texts == ["On it.", "Done."]
    assert terminal.wait_for(TEXT + "\n") == TEXT + "\n"
    answered = results(model_server)
    assert [r["tool_use_id"] for r in answered] == [f"toolu_1{i}" for i in range(1, 6)]
    assert [r.get("is_error", False) for r in answered] == [False] * 4 + [True]
    assert is_png(answered[3])
    assert "unknown key 'nokey'" in text_of(answered[4])
    # The tool definition tells the model the display its coordinates are in.
    assert model_server.requests[0]["tools"] == [
        {"type": "computer_20251124", "name": "computer", "display_width_px": 1024, "display_height_px": 640}
    ]


def texts_of(messages: list[Any]) -> list[str]:
    return [block.text for message in messages for block in message.content if block.type == "text"]


def anthropic_client(model_server: ModelServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=model_server.url, api_key="test-key", max_retries=0)


def test_toolset_in_tool_runner(gateway: Gateway, terminal: Terminal, model_server: ModelServer) -> None:
    script(model_server, TOOLSET_TURN)
    with Client(gateway.url, token=gateway.token) as desktop:
        toolset = GatewayComputerToolset(desktop, confirm=lambda context: True)
        runner = anthropic_client(model_server).beta.messages.tool_runner(
            model="claude-opus-4-7", max_tokens=1024, tools=[toolset], messages=PROMPT
        )
        check_toolset(terminal, model_server, texts_of(list(runner)))


def test_computer_20251124_in_tool_runner(gateway: Gateway, terminal: Terminal, model_server: ModelServer) -> None:
    script(model_server, TOOL_TURN)
    with Client(gateway.url, token=gateway.token) as desktop:
        tool = GatewayComputerTool(desktop, display=(1024, 640))
        runner = anthropic_client(model_server).beta.messages.tool_runner(
            model="claude-opus-4-7", max_tokens=1024, tools=[tool], messages=PROMPT
        )
        check_tool(terminal, model_server, texts_of(list(runner)))


@pytest.mark.anyio
async def test_async_toolset_in_tool_runner(gateway: Gateway, terminal: Terminal, model_server: ModelServer) -> None:
    script(model_server, TOOLSET_TURN)

    async def confirm(context: Any) -> bool:
        return True

    async with AsyncClient(gateway.url, token=gateway.token) as desktop:
        toolset = AsyncGatewayComputerToolset(desktop, confirm=confirm)
        client = anthropic.AsyncAnthropic(base_url=model_server.url, api_key="test-key", max_retries=0)
        runner = client.beta.messages.tool_runner(model="claude-opus-4-7", max_tokens=1024, tools=[toolset], messages=PROMPT)
        check_toolset(terminal, model_server, texts_of([message async for message in runner]))


@pytest.mark.anyio
async def test_async_computer_20251124_in_tool_runner(gateway: Gateway, terminal: Terminal, model_server: ModelServer) -> None:
    script(model_server, TOOL_TURN)
    async with AsyncClient(gateway.url, token=gateway.token) as desktop:
        tool = AsyncGatewayComputerTool(desktop, display=(1024, 640))
        client = anthropic.AsyncAnthropic(base_url=model_server.url, api_key="test-key", max_retries=0)
        runner = client.beta.messages.tool_runner(model="claude-opus-4-7", max_tokens=1024, tools=[tool], messages=PROMPT)
        check_tool(terminal, model_server, texts_of([message async for message in runner]))
