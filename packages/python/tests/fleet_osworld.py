"""OSWorld's DesktopEnv on a real fleet's desktops, through computer_gateway.osworld's provider:
run by test/docker/fleet-osworld.ts against a fleet it starts with --osworld --shell on the Docker
engine (COMPUTER_GATEWAY_FLEET_URL, COMPUTER_GATEWAY_FLEET_KEY), from packages/python/.venv-osworld,
where desktop-env is installed from PyPI with every dependency it declares
(scripts/osworld-venv.sh); not collected by a bare `pytest`, which has no fleet.

DesktopEnv is the installed one (`desktop_env.desktop_env`, imported by fleet_desktop_env as a
user's program imports it), so the provider is called exactly as OSWorld calls one: a desktop
claimed at construction, a revert (the fleet's reset) before each task after the first, a
desktop ended by close(). Every task of the set scored by OSWorld's installed metrics: each reset →
the scripted agent's steps → evaluate() == 1.0; the LibreOffice Calc and Writer, Thunar, Firefox
and PDF viewer (Atril) tasks, which only this full desktop image can run, then each reset again
and left undone: 0.0."""

from __future__ import annotations

import importlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from osworld_env import load_task, task_names

from computer_gateway import FleetClient
from computer_gateway.osworld import fleet_desktop_env

PAUSE = 0.4
# Every task of the set, the first one writing ~/hello.txt, which the next one's fresh desktop lacks.
TASKS = ["echo_to_file", *(name for name in task_names() if name != "echo_to_file")]
# The tasks of the full desktop's applications (the set's others are left undone in
# test_osworld_tasks.py), left undone after their setup: each must score 0.0, so their metrics can fail.
UNDONE = ["calc_sum_total", "writer_add_paragraph", "thunar_rename", "firefox_form_download", "atril_save_copy"]


@pytest.fixture(scope="module")
def fleet() -> Iterator[FleetClient]:
    url, key = os.environ.get("COMPUTER_GATEWAY_FLEET_URL"), os.environ.get("COMPUTER_GATEWAY_FLEET_KEY")
    if not url or not key:
        pytest.fail("set COMPUTER_GATEWAY_FLEET_URL and COMPUTER_GATEWAY_FLEET_KEY to a fleet started with --osworld --shell")
    with FleetClient(url, token=key) as client:
        yield client


def _ids(fleet: FleetClient) -> list[str]:
    return [desktop["id"] for desktop in fleet.get_desktops()["desktops"]]


def _home(env: Any) -> set[str]:
    tree = env.controller.get_vm_directory_tree("~")
    assert tree is not None, "the guest answered the home's listing"
    return {entry["name"] for entry in tree["children"]}


def test_tasks_on_fleet_desktops_reset_between_them_and_ended_by_close(fleet: FleetClient, tmp_path: Path) -> None:
    tasks = {name: load_task(name) for name in TASKS}
    netrc_before = os.environ.get("NETRC")
    settings = fleet._settings
    env: Any = fleet_desktop_env(
        settings.base_url,
        settings.token,
        screen_size=(1280, 800),
        cache_dir=str(tmp_path / "cache"),
        require_a11y_tree=False,
        labels={"test": "fleet-osworld"},
    )
    try:
        # desktop-env is in .venv-osworld alone (the lint venv has no torch), so it is looked up, not imported at the top.
        installed = importlib.import_module("desktop_env.desktop_env")
        assert type(env) is installed.DesktopEnv, "OSWorld's class as installed"
        assert "site-packages" in (installed.__file__ or ""), installed.__file__
        desktop = env.provider.desktop
        desktop_id = desktop.id
        assert _ids(fleet) == [desktop_id], "constructing DesktopEnv claimed one desktop"
        assert env.vm_ip == "127.0.0.1"
        assert (env.chromium_port, env.vnc_port, env.vlc_port) == (0, 0, 0), "the ports a fleet desktop does not serve"
        assert env.server_port == int(desktop.view["osworld_url"].rsplit(":", 1)[1])
        tokens = [desktop.view["token"]]
        scores: dict[str, float] = {}
        # Wall time of each reset (a fresh desktop, then the task's setup) and each step less the
        # pause DesktopEnv.step sleeps (the action, then the observation: a screenshot).
        resets: list[float] = []
        steps: list[float] = []
        for index, name in enumerate(TASKS):
            task, actions = tasks[name]
            started = time.monotonic()
            observation = env.reset(task_config=task)
            resets.append(time.monotonic() - started)
            assert observation["screenshot"][:8] == b"\x89PNG\r\n\x1a\n", name
            assert observation["instruction"] == task["instruction"]
            if index:
                # Every task after the first reverted: the fleet's reset, a fresh desktop under the same id.
                assert desktop.id == desktop_id
                assert desktop.view["token"] not in tokens, f"{name}: a fresh desktop, with a token of its own"
                tokens.append(desktop.view["token"])
                assert env.server_port == int(desktop.view["osworld_url"].rsplit(":", 1)[1])
            if index == 1:
                # The first task's file, made in the desktop's home, is not in this one's (read through the guest, so a refusal would fail here too).
                assert "hello.txt" not in _home(env), "a reset left the last episode's file behind"
            for action in actions:
                started = time.monotonic()
                env.step(action, PAUSE)
                if not action.startswith("time.sleep("):
                    # The scripted agent's waits for an application are not steps of the desktop's.
                    steps.append(time.monotonic() - started - PAUSE)
            scores[name] = env.evaluate()
            if name == "echo_to_file":
                assert "hello.txt" in _home(env)
        assert scores == dict.fromkeys(TASKS, 1.0)
        times = os.environ.get("COMPUTER_GATEWAY_OSWORLD_TIMES")
        if times:
            Path(times).write_text(json.dumps({"reset_s": resets, "step_s": steps}))
        undone: dict[str, float] = {}
        for name in UNDONE:
            task, _ = tasks[name]
            env.reset(task_config=task)
            env.step("WAIT", PAUSE)
            undone[name] = env.evaluate()
        assert undone == dict.fromkeys(UNDONE, 0.0)
        assert _ids(fleet) == [desktop_id], "one desktop all along, under one id"
    finally:
        env.close()
    assert _ids(fleet) == [], "close() ended the desktop"
    assert os.environ.get("NETRC") == netrc_before, "the desktop's netrc entry went with it"
