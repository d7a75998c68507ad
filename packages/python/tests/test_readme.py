"""The README's Python examples, as written, each in a Python of its own: README_PYTHON, the
fresh virtual environment the built wheel was installed into (scripts/test-python.sh), or this
one. Against the real server, with an xterm at the screen's top left, each one's effect is
checked in that terminal; the model examples talk to a scripted model (OPENAI_BASE_URL,
ANTHROPIC_BASE_URL) that clicks into the terminal and types."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import Gateway, Terminal
from replay import ModelServer, anthropic_message, openai_computer_call, openai_message, openai_response

README = Path(__file__).resolve().parents[1] / "README.md"
PYTHON = os.environ.get("README_PYTHON") or sys.executable


def examples() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", README.read_text("utf-8"), flags=re.S | re.M)


def toolset_turn(text: str) -> list[dict[str, Any]]:
    def member(n: int, name: str, input: dict[str, Any]) -> dict[str, Any]:
        return {"type": "tool_use", "id": f"toolu_0{n}", "name": name, "toolset_name": "computer", "input": input}

    return [
        member(1, "left_click", {"coordinate": [200, 150]}),
        member(2, "type", {"text": text}),
        member(3, "key", {"text": "Return"}),
    ]


# Each example: a line it holds, what the scripted model answers, what the terminal then holds, what it prints.
CASES: list[tuple[str, list[dict[str, Any]], str, str]] = [
    ("from computer_gateway import Client, GatewayError", [], "héllo from the client 世界\n",
     "{'width': 1280, 'height': 800}\n400 ERR_UNKNOWN_KEY\n"),
    ("from computer_gateway.openai_agents import GatewayComputer", [
        openai_response(1, [openai_computer_call("call_1", [
            {"type": "click", "button": "left", "x": 160, "y": 120},
            {"type": "type", "text": "héllo from the agent 世界\n"},
        ])]),
        openai_response(2, [openai_message("Typed it.")]),
    ], "héllo from the agent 世界\n", "Typed it.\n"),
    ("from computer_gateway.anthropic import GatewayBashTool, GatewayComputerToolset, GatewayTextEditorTool", [
        anthropic_message(1, toolset_turn("héllo from Claude 世界"), "tool_use"),
        anthropic_message(2, [{"type": "text", "text": "Typed it."}], "end_turn"),
    ], "héllo from Claude 世界\n", "tool_use\nend_turn\n"),
    ("import computer_gateway.pyautogui as pyautogui", [], "héllo 世界\n", "Point(x=200, y=150)\n"),
]  # fmt: skip


def test_the_readme_has_one_example_per_case() -> None:
    found = examples()
    assert len(found) == len(CASES)
    assert [line in example for example, (line, *_) in zip(found, CASES, strict=True)] == [True] * len(CASES)


def test_the_examples_import_the_installed_package(tmp_path: Path) -> None:
    location = subprocess.run(
        [PYTHON, "-c", "import computer_gateway; print(computer_gateway.__file__)"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True,
    ).stdout.strip()  # fmt: skip
    prefix = subprocess.run(
        [PYTHON, "-c", "import sys; print(sys.prefix)"], capture_output=True, text=True, check=True
    ).stdout.strip()
    if os.environ.get("README_PYTHON"):
        # The wheel's copy, not this source tree's.
        assert location.startswith(prefix + "/lib/")
    else:
        assert location.endswith("computer_gateway/__init__.py")


@pytest.mark.parametrize("index", range(len(CASES)), ids=["client", "openai-agents", "anthropic", "pyautogui"])
def test_each_example_runs(index: int, gateway: Gateway, terminal: Terminal, model_server: ModelServer, tmp_path: Path) -> None:
    _, replies, typed, printed = CASES[index]
    model_server.script(*replies)
    script = tmp_path / "example.py"
    script.write_text(examples()[index], "utf-8")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "COMPUTER_GATEWAY_"))},
        "COMPUTER_GATEWAY_URL": gateway.url,
        "COMPUTER_GATEWAY_TOKEN": gateway.token,
        "OPENAI_BASE_URL": f"{model_server.url}/v1",
        "OPENAI_API_KEY": "test-key",
        "OPENAI_AGENTS_DISABLE_TRACING": "1",
        "ANTHROPIC_BASE_URL": model_server.url,
        "ANTHROPIC_API_KEY": "test-key",
        "PYTHONWARNINGS": "ignore",
    }
    ran = subprocess.run([PYTHON, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert (ran.returncode, ran.stderr) == (0, "")
    assert ran.stdout == printed
    assert terminal.wait_for(typed) == typed
    assert model_server.replies == []
