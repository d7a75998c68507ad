"""The real server on a real desktop, for the tests: `computer-gateway` (bin/computer-gateway.js
on the project's Node) started with its own Xvfb and window manager, a token, /files under a
temporary home and an ephemeral port; stopped by its PID at the end of the session, on every
path. `terminal` opens an xterm running `cat > file` on that desktop (through `computer-gateway
exec`), so a test reads exactly what the keyboard sent; it is ended by its PID after the test."""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from replay import ModelServer

ROOT = Path(__file__).resolve().parents[3]
NODE = ROOT / "node_modules" / ".bin" / "node"
BIN = ROOT / "bin" / "computer-gateway.js"
LISTENING = re.compile(r"Server listening at (http://127\.0\.0\.1:\d+)")


@dataclass(frozen=True)
class Gateway:
    url: str
    token: str
    display: str
    home: Path


def until(check: Callable[[], bool], timeout: float, what: str) -> None:
    """Polls `check` until it holds; fails the test with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def stop(process: subprocess.Popen[bytes], grace: float = 15.0) -> None:
    """SIGTERM by PID, then SIGKILL to its whole process group if it outlives the grace."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)


@contextlib.contextmanager
def serve(home: Path, flags: list[str]) -> Iterator[Gateway]:
    """The server on its own display, its desktop's home `home`, until the block ends (SIGTERM by PID)."""
    token = secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="cg-python-log-") as scratch:
        log_path = Path(scratch) / "server.log"
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "XAUTHORITY", "API_TOKEN", "PORT")}
        env["API_TOKEN"] = token
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [str(NODE), str(BIN), "--port", "0", *flags, "--home", str(home), "--log-level", "info"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        try:
            found: list[str] = []

            def listening() -> bool:
                if process.poll() is not None:
                    raise AssertionError(f"the server exited ({process.returncode}):\n{log_path.read_text()[-3000:]}")
                match = LISTENING.search(log_path.read_text(errors="replace"))
                if match:
                    found.append(match[1])
                return bool(match)

            until(listening, 60, "the server to listen")
            url = found[0]
            health: dict[str, object] = {}

            def ready() -> bool:
                health.update(httpx.get(f"{url}/health", timeout=5).json())
                return health.get("ready") is True

            until(ready, 60, "the desktop to be ready")
            yield Gateway(url=url, token=token, display=str(health["display"]), home=home)
        finally:
            stop(process)


@dataclass(frozen=True)
class GuestServer:
    """The server and its OSWorld guest protocol (--osworld), each at its own URL."""

    main: str
    guest: str
    token: str
    display: str
    home: Path


def _listening(log: Path) -> tuple[str | None, str | None]:
    """The main server's URL and the guest protocol's, from the JSON log (the guest's lines carry component osworld)."""
    main = guest = None
    for line in log.read_text(errors="replace").splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            entry = json.loads(line)
            message = str(entry.get("msg", ""))
            if message.startswith("Server listening at "):
                url = message.removeprefix("Server listening at ")
                if entry.get("component") == "osworld":
                    guest = url
                else:
                    main = url
    return main, guest


@contextlib.contextmanager
def serve_osworld(home: Path, flags: list[str]) -> Iterator[GuestServer]:
    """The server with --osworld, both on ephemeral ports, its desktop's home `home`, until the
    block ends (SIGTERM by PID); `flags` are the rest of its command line."""
    token = secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="cg-osworld-log-") as scratch:
        log_path = Path(scratch) / "server.log"
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "XAUTHORITY", "API_TOKEN", "PORT", "ALLOW_APPS")}
        env["API_TOKEN"] = token
        args = ["--port", "0", "--osworld", "--osworld-port", "0", "--home", str(home), "--log-level", "info", *flags]
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [str(NODE), str(BIN), *args], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        try:

            def both() -> bool:
                if process.poll() is not None:
                    raise AssertionError(f"the server exited ({process.returncode}):\n{log_path.read_text()[-3000:]}")
                return None not in _listening(log_path)

            until(both, 60, "the server and its guest protocol to listen")
            main, guest = _listening(log_path)
            assert main is not None
            assert guest is not None
            health: dict[str, object] = {}

            def ready() -> bool:
                health.update(httpx.get(f"{main}/health", timeout=5).json())
                return health.get("ready") is True

            until(ready, 60, "the desktop to be ready")
            yield GuestServer(main=main, guest=guest, token=token, display=str(health["display"]), home=home)
        finally:
            stop(process)


@pytest.fixture(scope="session")
def gateway() -> Iterator[Gateway]:
    with tempfile.TemporaryDirectory(prefix="cg-python-") as scratch:
        home = Path(scratch) / "home"
        home.mkdir()
        with serve(home, ["--files"]) as served:
            yield served


@dataclass
class Terminal:
    file: Path
    pid: int

    def content(self) -> str:
        return self.file.read_text("utf-8") if self.file.exists() else ""

    def wait_for(self, expected: str, timeout: float = 10.0) -> str:
        """What the terminal sent on once it equals `expected` (or, after the deadline, whatever it holds)."""
        with contextlib.suppress(AssertionError):
            until(lambda: self.content() == expected, timeout, f"the terminal to hold {expected!r}")
        return self.content()


@pytest.fixture
def terminal(gateway: Gateway, tmp_path: Path) -> Iterator[Terminal]:
    """xterm at the screen's top left (about 500x300 px) running `cat > file`: (200, 150) is inside it."""
    file = tmp_path / "typed.txt"
    started = subprocess.run(
        [str(NODE), str(BIN), "exec", "--display", gateway.display, "--detach", "--",
         "xterm", "-u8", "-class", "PyTerm", "-geometry", "80x20+0+0",
         "-e", "sh", "-c", f"stty -ixon; exec cat > '{file}'"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    pid = int(started.stdout.strip())
    try:
        until(file.exists, 20, "xterm to start cat")
        # Its window is mapped and drawn: keys typed now reach cat.
        until(lambda: _window_of(gateway, "PyTerm"), 20, "xterm's window")
        yield Terminal(file=file, pid=pid)
    finally:
        try:
            os.kill(pid, signal.SIGTERM)
            until(lambda: not _alive(pid), 10, f"xterm {pid} to end")
        except ProcessLookupError:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie waits for its parent (computer-gateway exec, which has left): it is gone for X.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


def _window_of(gateway: Gateway, wm_class: str) -> bool:
    answer = httpx.post(
        f"{gateway.url}/computer",
        json={"action": "list_windows"},
        headers={"authorization": f"Bearer {gateway.token}"},
        timeout=10,
    ).json()
    return wm_class.lower() in str(answer).lower()


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    server = ModelServer()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def anyio_backend() -> str:
    """The async tests run on asyncio, as the SDKs do."""
    return "asyncio"
