"""The OpenAI Agents SDK's own loop (Runner.run) with ComputerTool over our Computer and
AsyncComputer: a scripted model (the Responses API replayed over HTTP) clicks into a terminal,
in the 1024x640 screen it is told, and types; the terminal receives the text exactly, the
pointer is where the click was scaled to on the 1280x800 screen, and the model is answered with
the screenshot taken after the call."""

from __future__ import annotations

import base64

import pytest
from agents import Agent, ComputerTool, RunConfig, Runner
from agents.models.openai_responses import OpenAIResponsesModel
from conftest import Gateway, Terminal
from openai import AsyncOpenAI
from replay import ModelServer, openai_computer_call, openai_message, openai_response

from computer_gateway import Client
from computer_gateway.openai_agents import AsyncGatewayComputer, GatewayComputer

TEXT = "héllo from Runner.run 世界\n"


def script(model_server: ModelServer) -> None:
    model_server.script(
        openai_response(1, [openai_computer_call("call_1", [
            {"type": "click", "button": "left", "x": 160, "y": 120},
            {"type": "type", "text": TEXT},
        ])]),
        openai_response(2, [openai_message("Typed it.")]),
    )  # fmt: skip


def agent(model_server: ModelServer, tool: ComputerTool) -> Agent:  # type: ignore[type-arg]
    client = AsyncOpenAI(base_url=f"{model_server.url}/v1", api_key="test-key", max_retries=0)
    return Agent(name="operator", model=OpenAIResponsesModel("gpt-5.4", client), tools=[tool])


def check(gateway: Gateway, terminal: Terminal, model_server: ModelServer, output: object) -> None:
    assert output == "Typed it."
    assert terminal.wait_for(TEXT) == TEXT
    with Client(gateway.url, token=gateway.token) as client:
        assert client.post_computer({"action": "get_cursor_position"})["cursor_position"] == [200, 150]
    assert model_server.paths == ["/v1/responses", "/v1/responses"]
    # The second request answers the computer_call with the screenshot after it, a PNG.
    outputs = [item for item in model_server.requests[1]["input"] if item.get("type") == "computer_call_output"]
    assert [item["call_id"] for item in outputs] == ["call_1"]
    url = outputs[0]["output"]["image_url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]).startswith(b"\x89PNG\r\n\x1a\n")


def test_runner_run_with_the_blocking_computer(gateway: Gateway, terminal: Terminal, model_server: ModelServer) -> None:
    script(model_server)
    computer = GatewayComputer.connect(gateway.url, token=gateway.token, display=(1024, 640))
    try:
        assert computer.dimensions == (1024, 640)
        result = Runner.run_sync(
            agent(model_server, ComputerTool(computer)), "Type into the terminal", run_config=RunConfig(tracing_disabled=True)
        )
    finally:
        computer.close()
    check(gateway, terminal, model_server, result.final_output)


@pytest.mark.anyio
async def test_runner_run_with_the_async_computer(gateway: Gateway, terminal: Terminal, model_server: ModelServer) -> None:
    script(model_server)
    computer = await AsyncGatewayComputer.connect(gateway.url, token=gateway.token, display=(1024, 640))
    try:
        result = await Runner.run(
            agent(model_server, ComputerTool(computer)), "Type into the terminal", run_config=RunConfig(tracing_disabled=True)
        )
    finally:
        await computer.aclose()
    check(gateway, terminal, model_server, result.final_output)
