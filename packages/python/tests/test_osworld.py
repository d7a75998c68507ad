"""OSWorld's harness, unchanged, on the server's guest protocol (--osworld): desktop_env's own
PythonController (its file, read from the desktop-env wheel that scripts/test-python.sh downloads
from PyPI with --no-deps: the package's dependencies are torch, transformers and some sixty more,
none of which that module imports) drives `computer-gateway` on its own Xvfb. Screenshots, pyautogui
code typed exactly into an xterm, the accessibility tree as OSWorld's own agent code linearises it,
files both ways, a recording, SetupController closing a window, and the refusal of a command that is not pyautogui code."""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import os
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import BIN, NODE, ROOT, serve_osworld, until
from conftest import GuestServer as Guest
from osworld_env import desktop_env_wheel, module_parts
from PIL import Image

PRELUDE = "import pyautogui; import time; pyautogui.FAILSAFE = False; "


@pytest.fixture(scope="module")
def osworld() -> Iterator[Any]:
    """desktop_env and mm_agents importable from the wheel itself (a zip on sys.path): only the
    modules the test uses are imported, and they import nothing beyond requests and Pillow."""
    wheel = str(desktop_env_wheel())
    sys.path.insert(0, wheel)
    try:
        module = importlib.import_module("desktop_env.controllers.python")
        yield module
    finally:
        sys.path.remove(wheel)


def linearize(wheel: Path) -> Callable[[str], str]:
    """mm_agents/agent.py's linearize_accessibility_tree, as written, with the namespaces it reads;
    the rest of that file imports every model vendor's SDK, so only these statements are run."""
    with zipfile.ZipFile(wheel) as archive:
        source = archive.read("mm_agents/agent.py").decode()
    tree = ast.parse(source)
    kept: list[ast.stmt] = [
        node
        for node in tree.body
        if (isinstance(node, ast.FunctionDef) and node.name == "linearize_accessibility_tree")
        or (
            isinstance(node, ast.Assign)
            and all(isinstance(t, ast.Name) and t.id.endswith(("_ubuntu", "_windows")) for t in node.targets)
        )
    ]
    heuristic = importlib.import_module("mm_agents.accessibility_tree_wrap.heuristic_retrieve")
    namespace: dict[str, Any] = {"ET": ET, "filter_nodes": heuristic.filter_nodes}
    exec(compile(ast.Module(body=kept, type_ignores=[]), "mm_agents/agent.py", "exec"), namespace)
    function: Callable[[str], str] = namespace["linearize_accessibility_tree"]
    return function


@pytest.fixture(scope="module")
def server() -> Iterator[Guest]:
    """The server with --osworld on an ephemeral port of its own, a token, --record and an
    application with an accessibility tree (yad's form) that /setup/launch may start."""
    with tempfile.TemporaryDirectory(prefix="cg-osworld-") as scratch:
        home = Path(scratch) / "home"
        (home / "Desktop").mkdir(parents=True)
        flags = [
            "--record", "--record-dir", str(Path(scratch) / "recordings"),
            "--allow-app", "form=yad --title=Shipping --form --field=Recipient --field=Express:CHK",
        ]  # fmt: skip
        with serve_osworld(home, flags) as served:
            yield served


def controller(osworld: Any, server: Guest) -> Any:
    """The harness's controller as DesktopEnv builds it, the token in the VM address (Basic auth)."""
    host, port = server.guest.removeprefix("http://").rsplit(":", 1)
    python = osworld.PythonController(vm_ip=f"osworld:{server.token}@{host}", server_port=int(port))
    python.retry_interval = 0.2
    return python


@pytest.fixture
def xterm(server: Guest, tmp_path: Path) -> Iterator[Path]:
    """xterm at the top left running `cat > file`; (200, 150) is inside it. Ended by its PID."""
    file = tmp_path / "typed.txt"
    started = subprocess.run(
        [str(NODE), str(BIN), "exec", "--display", server.display, "--detach", "--",
         "xterm", "-u8", "-class", "OsTerm", "-geometry", "80x20+0+0", "-e", "sh", "-c", f"stty -ixon; exec cat > '{file}'"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    pid = int(started.stdout.strip())
    try:
        until(file.exists, 20, "xterm to start cat")
        time.sleep(0.5)
        yield file
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


def test_screenshot_is_the_screen_with_the_pointer(osworld: Any, server: Guest) -> None:
    python = controller(osworld, server)
    python.execute_python_command("pyautogui.moveTo(300, 200)")
    png = python.get_screenshot()
    assert png is not None
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.size == (python.get_vm_screen_size()["width"], python.get_vm_screen_size()["height"])
    assert image.getpixel((303, 208)) == (0, 0, 0), "the arrow just below the pointer's tip"
    assert httpx.get(f"{server.guest}/cursor_position", auth=("osworld", server.token)).json() == [300, 200]
    assert python.get_vm_platform() == "Linux"


def test_pyautogui_code_types_exactly(osworld: Any, server: Guest, xterm: Path) -> None:
    python = controller(osworld, server)
    text = "Grüße, 世界! a;b 'q' \"dq\" \\ $HOME {x}"
    answer = python.execute_python_command(f"pyautogui.click(200, 150); pyautogui.write({text!r})")
    assert answer == {"status": "success", "output": "", "error": "", "returncode": 0}
    python.execute_action({"action_type": "TYPING", "text": " + more\n"})
    python.execute_action({"action_type": "PRESS", "key": "enter"})
    expected = text + " + more\n\n"
    until(lambda: xterm.read_text("utf-8") == expected, 15, "xterm's cat to hold the text")
    assert xterm.read_text("utf-8") == expected


def test_the_tree_as_osworlds_agent_linearises_it(osworld: Any, server: Guest) -> None:
    python = controller(osworld, server)
    launched = httpx.post(f"{server.guest}/setup/launch", json={"command": ["form"]}, auth=("osworld", server.token), timeout=30)
    assert launched.status_code == 200, launched.text
    try:
        table = ""

        def shown() -> bool:
            nonlocal table
            tree = python.get_accessibility_tree()
            table = linearize(desktop_env_wheel())(tree)
            return "push-button\tOK" in table

        until(shown, 20, "yad's form in the linearised tree")
        rows = [row.split("\t") for row in table.splitlines()]
        assert rows[0] == ["tag", "name", "text", "class", "description", "position (top-left x&y)", "size (w&h)"]
        ok = next(row for row in rows if row[:2] == ["push-button", "OK"])
        x, y = ast.literal_eval(ok[5])
        width, height = ast.literal_eval(ok[6])
        assert x >= 0
        assert y >= 0
        assert width > 0
        assert height > 0
        assert any(row[:2] == ["check-box", "Express"] for row in rows)
    finally:
        httpx.post(f"{server.guest}/setup/activate_window", json={"window_name": "Shipping"}, auth=("osworld", server.token))
        python.execute_python_command("pyautogui.press('escape')")


def test_files_both_ways(osworld: Any, server: Guest) -> None:
    python = controller(osworld, server)
    content = bytes(range(256)) * 40
    # The field, then the file, as SetupController's MultipartEncoder sends them.
    uploaded = httpx.post(
        f"{server.guest}/setup/upload",
        data={"file_path": "~/Desktop/data.bin"},
        files={"file_data": ("data.bin", content)},
        auth=("osworld", server.token),
    )
    assert uploaded.status_code == 200
    assert uploaded.text == f"File Uploaded: {len(content)} bytes"
    assert (server.home / "Desktop" / "data.bin").read_bytes() == content
    assert python.get_file(str(server.home / "Desktop" / "data.bin")) == content
    assert python.get_vm_desktop_path() == str(server.home / "Desktop")
    tree = python.get_vm_directory_tree(str(server.home / "Desktop"))
    assert tree == {"type": "directory", "name": "Desktop", "children": [{"type": "file", "name": "data.bin"}]}
    outside = httpx.post(f"{server.guest}/file", data={"file_path": "/etc/passwd"}, auth=("osworld", server.token))
    assert outside.status_code == 403
    assert outside.json()["code"] == "ERR_PATH_FORBIDDEN"


def test_a_recording(osworld: Any, server: Guest, tmp_path: Path) -> None:
    python = controller(osworld, server)
    python.start_recording()
    for x in range(100, 600, 100):
        python.execute_python_command(f"pyautogui.moveTo({x}, 300)")
        time.sleep(0.2)
    video = tmp_path / "episode.mp4"
    python.end_recording(str(video))
    data = video.read_bytes()
    assert len(data) > 1000, "a video, not an empty file"
    assert data[4:8] == b"ftyp", "an MP4 file"


def test_setup_controller_closes_a_window(server: Guest, xterm: Path, tmp_path: Path) -> None:
    """SetupController's close_window step, as written in the wheel: the xterm is closed through the
    window manager (gone from the window list), and a second close of it is a 404 the step logs."""
    setup_class = module_parts(desktop_env_wheel(), "controllers/setup.py", ["SetupController"])["SetupController"]
    host, port = server.guest.removeprefix("http://").rsplit(":", 1)
    setup = setup_class(
        vm_ip=f"osworld:{server.token}@{host}", server_port=int(port), cache_dir=str(tmp_path), client_password="password"
    )
    headers = {"authorization": f"Bearer {server.token}"}

    def classes() -> list[str]:
        listed = httpx.post(f"{server.main}/computer", json={"action": "list_windows"}, headers=headers, timeout=10)
        return [window["class"] for window in listed.json()["windows"]]

    assert "OsTerm" in classes()
    setup._close_window_setup(window_name="OsTerm", by_class=True)
    assert "OsTerm" not in classes()
    again = httpx.post(
        f"{server.guest}/setup/close_window", json={"window_name": "OsTerm", "by_class": True}, auth=("osworld", server.token)
    )
    assert again.status_code == 404
    assert again.json()["code"] == "ERR_WINDOW_NOT_FOUND"


def test_other_commands_are_refused_without_the_shell(server: Guest) -> None:
    refused = httpx.post(
        f"{server.guest}/execute",
        json={"command": ["python", "-c", PRELUDE + "import os; os.system('touch /tmp/x')"], "shell": False},
        auth=("osworld", server.token),
    )
    assert refused.status_code == 403
    assert refused.json()["code"] == "ERR_SHELL_OFF"
    assert "--shell" in refused.json()["message"]
    assert httpx.post(f"{server.guest}/screen_size").status_code == 401, "the token is required"


def test_the_token_from_a_netrc_file(osworld: Any, server: Guest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """DesktopEnv splits its provider's address at ':' (host:server_port:…), so user info cannot ride
    in it there: requests takes the token from a netrc file instead, for the controllers unchanged."""
    host, port = server.guest.removeprefix("http://").rsplit(":", 1)
    netrc = tmp_path / "netrc"
    netrc.write_text(f"machine {host} login osworld password {server.token}\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    python = osworld.PythonController(vm_ip=host, server_port=int(port))
    python.retry_interval = 0.2
    assert python.get_vm_screen_size() == httpx.post(f"{server.guest}/screen_size", auth=("osworld", server.token)).json()
    monkeypatch.setenv("NETRC", str(tmp_path / "absent"))
    python.retry_times = 1
    assert python.get_vm_screen_size() is None, "without it, 401"
