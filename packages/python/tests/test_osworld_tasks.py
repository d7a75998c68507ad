"""The task set in OSWorld's format (tests/osworld_tasks: config steps, evaluator with desktop_env's
getters and metrics), each run as OSWorld runs a task, by DesktopEnv's own reset, step and evaluate
(read from the desktop-env wheel: see osworld_env.py for why not DesktopEnv itself) against
`computer-gateway --osworld --shell` on its own Xvfb: SetupController carries out the config, a
scripted agent's fixed actions (`<task>.actions.json`, pyautogui code as a model would answer)
go through DesktopEnv.step, and OSWorld's metric scores the result 1.0. Doing nothing scores 0.0
on a handful, so the evaluators can fail.

Only the tasks whose related_apps are the terminal and Mousepad run here (local_task_names: the
minimal desktop has xterm-class apps alone); the LibreOffice Calc and Writer, Thunar, Firefox and
Atril tasks run on the full desktop image, through the fleet (fleet_osworld.py), with OSWorld's
installed metrics."""

from __future__ import annotations

import ast
import contextlib
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import serve_osworld, until
from osworld_env import load_task, local_task_names, make_env, task_names, wheel_on_path

import computer_gateway.pyautogui as our_pyautogui

PAUSE = 0.4
# Tasks whose untouched state the evaluator must score 0.0: every one that compares a file the
# task makes with one its setup wrote (a missing file, a file unchanged, an editor's file unsaved),
# a file not renamed, a setting unchanged, a mode unchanged.
UNDONE = [
    "echo_to_file",
    "sort_lines",
    "uppercase",
    "unicode_text",
    "copy_file",
    "mousepad_edit",
    "rename_file",
    "edit_config",
    "make_executable",
]


@dataclass(frozen=True)
class Desktop:
    main: str
    guest_host: str
    guest_port: int
    token: str
    home: Path
    wheel: Path


@pytest.fixture(scope="module")
def desktop() -> Iterator[Desktop]:
    """The server with --osworld and --shell, its home owned by a user made for the test (the shell
    never runs as root); the token in a netrc file for OSWorld's requests."""
    if os.geteuid() != 0:
        pytest.fail("these tests make a user to own the desktop's home: run them as root (as CI does)")
    name = f"cgos{secrets.token_hex(4)}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", name], check=True)
    saved_netrc = os.environ.get("NETRC")
    try:
        user = pwd.getpwnam(name)
        with tempfile.TemporaryDirectory(prefix="cg-osworld-tasks-") as scratch, wheel_on_path() as wheel:
            os.chmod(scratch, 0o755)
            home = Path(scratch) / "home"
            home.mkdir(mode=0o700)
            os.chown(home, user.pw_uid, user.pw_gid)
            with serve_osworld(home, ["--shell"]) as served:
                host, port = served.guest.removeprefix("http://").rsplit(":", 1)
                netrc = Path(scratch) / "netrc"
                netrc.write_text(f"machine {host} login osworld password {served.token}\n")
                netrc.chmod(0o600)
                os.environ["NETRC"] = str(netrc)
                yield Desktop(main=served.main, guest_host=host, guest_port=int(port), token=served.token, home=home, wheel=wheel)
    finally:
        if saved_netrc is None:
            os.environ.pop("NETRC", None)
        else:
            os.environ["NETRC"] = saved_netrc
        subprocess.run(["userdel", name], check=True)


def _window_pids(desktop: Desktop) -> set[int]:
    answer = httpx.post(
        f"{desktop.main}/computer",
        json={"action": "list_windows"},
        headers={"authorization": f"Bearer {desktop.token}"},
        timeout=10,
    ).json()
    return {window["pid"] for window in answer["windows"] if window["pid"] is not None}


@pytest.fixture
def fresh(desktop: Desktop) -> Iterator[Desktop]:
    """Each task on the desktop as it was before it (OSWorld reverts its VM): every window the
    task opened ended by its PID, and the home emptied of what the task made."""
    before = _window_pids(desktop)
    try:
        yield desktop
    finally:
        for pid in _window_pids(desktop) - before:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        until(lambda: not (_window_pids(desktop) - before), 15, "the task's windows to close")
        for entry in desktop.home.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()


def _env(desktop: Desktop, task: dict[str, Any], cache: Path) -> Any:
    return make_env(desktop.wheel, desktop.guest_host, desktop.guest_port, cache, [task])


def test_the_set_is_twenty_tasks_in_osworlds_format() -> None:
    names = task_names()
    assert len(names) >= 20
    for name in names:
        task, actions = load_task(name)
        assert {"id", "instruction", "config", "evaluator", "related_apps", "snapshot"} <= task.keys(), name
        assert actions, f"{name} has a scripted solution"
        assert all(
            step["type"] in {"launch", "execute", "execute_with_verification", "activate_window"} for step in task["config"]
        ), name
        for action in actions:
            assert _dialect_only(action), f"{name}: {action!r} is pyautogui and time calls alone"


def _dialect_only(action: str) -> bool:
    """Whether every statement of a step calls pyautogui or time (or is WAIT, DONE, FAIL): what
    the guest reads itself. Other Python goes to the desktop's `python`, which the image does not
    have (nor pyautogui, which DesktopEnv imports first): such a step would fail, unseen, as
    DesktopEnv.step does not look at the answer."""
    if action in {"WAIT", "DONE", "FAIL"}:
        return True
    return all(
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Attribute)
        and isinstance(statement.value.func.value, ast.Name)
        and statement.value.func.value.id in {"pyautogui", "time"}
        for statement in ast.parse(action).body
    )


@pytest.mark.parametrize("name", local_task_names())
def test_the_scripted_agent_scores_one(fresh: Desktop, name: str, tmp_path: Path) -> None:
    task, actions = load_task(name)
    env = _env(fresh, task, tmp_path)
    observation = env.reset(task_config=task)
    assert observation["screenshot"][:8] == b"\x89PNG\r\n\x1a\n"
    assert observation["instruction"] == task["instruction"]
    for action in actions:
        env.step(action, PAUSE)
    assert env.evaluate() == 1.0


@pytest.mark.parametrize("name", UNDONE)
def test_doing_nothing_scores_zero(fresh: Desktop, name: str, tmp_path: Path) -> None:
    task, _ = load_task(name)
    env = _env(fresh, task, tmp_path)
    env.reset(task_config=task)
    env.step("WAIT", PAUSE)
    assert env.evaluate() == 0.0


@pytest.mark.parametrize("name", local_task_names())
def test_the_same_actions_through_our_pyautogui_dialect_score_one(fresh: Desktop, name: str, tmp_path: Path) -> None:
    """The same task set up by OSWorld's reset, its scripted actions run as the Python they are
    with this package's pyautogui drop-in in place of pyautogui: every call goes to the main
    port's pyautogui dialect (POST /computer/pyautogui) with the main token, none through the
    guest's /execute; OSWorld's metric scores the result 1.0 as before."""
    task, actions = load_task(name)
    env = _env(fresh, task, tmp_path)
    env.reset(task_config=task)
    our_pyautogui.configure(fresh.main, token=fresh.token)
    for action in actions:
        exec(action, {"pyautogui": our_pyautogui, "time": time})
        time.sleep(PAUSE)
    assert env.evaluate() == 1.0
