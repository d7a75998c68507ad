"""Claude's bash and text editor tools (computer_gateway.anthropic) in the Anthropic SDK's own loop
(client.beta.messages.tool_runner), the model replayed over HTTP, on a server started with
--shell and --files whose home belongs to a user made for the test (the shell never runs as
root): the editor writes a script, bash runs it, and the model is sent its output; a failing
edit is answered with is_error and the run goes on. Sync and async."""

from __future__ import annotations

import os
import pwd
import secrets
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest
from conftest import Gateway, serve
from replay import ModelServer, anthropic_message

from computer_gateway import AsyncClient, Client
from computer_gateway.anthropic import (
    AsyncGatewayBashTool,
    AsyncGatewayTextEditorTool,
    GatewayBashTool,
    GatewayTextEditorTool,
)

SCRIPT = 'import os\nprint("made by the editor", 6 * 7, os.getcwd())\n'
PROMPT: list[Any] = [{"role": "user", "content": "Write a script and run it"}]


@pytest.fixture(scope="module")
def shell_gateway() -> Iterator[Gateway]:
    if os.geteuid() != 0:
        pytest.fail("these tests make a user to own the desktop's home: run them as root (as CI does)")
    name = f"cgpy{secrets.token_hex(4)}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", name], check=True)
    try:
        user = pwd.getpwnam(name)
        with tempfile.TemporaryDirectory(prefix="cg-python-shell-") as scratch:
            # The user passes through the scratch directory to its own home.
            os.chmod(scratch, 0o755)
            home = Path(scratch) / "home"
            home.mkdir(mode=0o700)
            os.chown(home, user.pw_uid, user.pw_gid)
            with serve(home, ["--shell", "--files"]) as served:
                yield served
    finally:
        subprocess.run(["userdel", name], check=True)


def tool_use(id: str, name: str, input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def script(model_server: ModelServer, file: str) -> None:
    model_server.script(
        anthropic_message(1, [tool_use("toolu_1", "str_replace_based_edit_tool", {"command": "create", "path": file, "file_text": SCRIPT})], "tool_use"),
        anthropic_message(2, [tool_use("toolu_2", "str_replace_based_edit_tool", {"command": "str_replace", "path": file, "old_str": "absent", "new_str": "x"})], "tool_use"),
        anthropic_message(3, [tool_use("toolu_3", "bash", {"command": f"python3 {file}; echo to stderr >&2"})], "tool_use"),
        anthropic_message(4, [{"type": "text", "text": "It printed 42."}], "end_turn"),
    )  # fmt: skip


def check(gateway: Gateway, model_server: ModelServer, file: str, texts: list[str]) -> None:
    assert texts == ["It printed 42."]
    assert model_server.requests[0]["tools"] == [
        {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
        {"type": "bash_20250124", "name": "bash"},
    ]
    answered = [request["messages"][-1]["content"][0] for request in model_server.requests[1:]]
    assert answered == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": f"File created successfully at: {file}"}]},
        {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": True, "content": [
            {"type": "text", "text": f"No replacement was performed, old_str `absent` did not appear verbatim in {file}."}]},
        {"type": "tool_result", "tool_use_id": "toolu_3", "content": [
            {"type": "text", "text": f"made by the editor 42 {gateway.home}\nto stderr"}]},
    ]  # fmt: skip
    written = gateway.home / file
    assert written.read_text() == SCRIPT
    assert written.stat().st_uid == gateway.home.stat().st_uid != 0


def texts_of(messages: list[Any]) -> list[str]:
    return [block.text for message in messages for block in message.content if block.type == "text"]


def test_editor_and_bash_in_tool_runner(shell_gateway: Gateway, model_server: ModelServer) -> None:
    script(model_server, "hello.py")
    with Client(shell_gateway.url, token=shell_gateway.token) as desktop:
        client = anthropic.Anthropic(base_url=model_server.url, api_key="test-key", max_retries=0)
        runner = client.beta.messages.tool_runner(
            model="claude-opus-4-7",
            max_tokens=1024,
            tools=[GatewayTextEditorTool(desktop), GatewayBashTool(desktop)],
            messages=PROMPT,
        )
        check(shell_gateway, model_server, "hello.py", texts_of(list(runner)))


@pytest.mark.anyio
async def test_async_editor_and_bash_in_tool_runner(shell_gateway: Gateway, model_server: ModelServer) -> None:
    script(model_server, "hello_async.py")
    async with AsyncClient(shell_gateway.url, token=shell_gateway.token) as desktop:
        client = anthropic.AsyncAnthropic(base_url=model_server.url, api_key="test-key", max_retries=0)
        runner = client.beta.messages.tool_runner(
            model="claude-opus-4-7",
            max_tokens=1024,
            tools=[AsyncGatewayTextEditorTool(desktop), AsyncGatewayBashTool(desktop)],
            messages=PROMPT,
        )
        texts = texts_of([message async for message in runner])
        check(shell_gateway, model_server, "hello_async.py", texts)
