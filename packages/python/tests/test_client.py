"""The clients on the real server: every route group (actions, batch, the seed path, each
dialect's translate and execute routes, adapters, accessibility, files, recordings, health),
errors as GatewayError with the server's status, code and whole body, screenshots as bytes and
PIL images at the size asked; then, over a scripted transport, Retry-After honoured and bounded,
and the fleet's lifecycle routes."""

from __future__ import annotations

import email.utils
import io
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from conftest import Gateway
from PIL import Image

from computer_gateway import AsyncClient, AsyncFleetClient, Client, FleetClient, GatewayError, retry_after_seconds
from computer_gateway._generated import ActionResponse, FleetPostDesktopsAnswer

CLICK = [{"action": "click_mouse", "button": "left", "coordinates": [100, 200]}]


@pytest.fixture
def client(gateway: Gateway) -> Iterator[Client]:
    with Client(gateway.url, token=gateway.token) as c:
        yield c


# One model's call per dialect, and the unified actions it becomes (on a 1000x1000 grid).
DIALECTS: list[tuple[str, Callable[[Client], Any], list[dict[str, Any]]]] = [
    (
        "anthropic",
        lambda c: c.post_computer_anthropic_translate(
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "left_click",
                "toolset_name": "computer",
                "input": {"coordinate": [100, 200]},
            },
            display_width_px=1000,
            display_height_px=1000,
        ),
        CLICK,
    ),
    (
        "openai",
        lambda c: c.post_computer_openai_translate(
            {"type": "click", "x": 100, "y": 200, "button": "left"}, display_width_px=1000, display_height_px=1000
        ),
        CLICK,
    ),
    (
        "gemini",
        lambda c: c.post_computer_gemini_translate(
            {"name": "click_at", "args": {"x": 100, "y": 200}}, display_width_px=1000, display_height_px=1000
        ),
        [{**CLICK[0], "screenshot": True}],
    ),
    (
        "uitars",
        lambda c: c.post_computer_uitars_translate(
            "Thought: the box.\nAction: click(start_box='(100,200)')", display_width_px=1000, display_height_px=1000
        ),
        CLICK,
    ),
    (
        "qwen",
        lambda c: c.post_computer_qwen_translate(
            '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [100, 200]}}\n</tool_call>',
            display_width_px=1008,
            display_height_px=1008,
        ),
        CLICK,
    ),
    (
        "pyautogui",
        lambda c: c.post_computer_pyautogui_translate("pyautogui.click(100, 200)", display_width_px=1000, display_height_px=1000),
        CLICK,
    ),
    (
        "glm",
        lambda c: c.post_computer_glm_translate(
            "<|begin_of_box|>left_click(start_box=[100,200])<|end_of_box|>", display_width_px=1000, display_height_px=1000
        ),
        CLICK,
    ),
    (
        "hud",
        lambda c: c.post_computer_hud_translate(
            {"type": "click", "point": {"x": 100, "y": 200}, "button": "left"}, display_width_px=1000, display_height_px=1000
        ),
        CLICK,
    ),
    (
        "conatus",
        lambda c: c.post_computer_conatus_translate(
            {"xy": [100, 200], "type": "left_mouse_click"}, display_width_px=1000, display_height_px=1000
        ),
        CLICK,
    ),
    (
        "cup",
        lambda c: c.post_computer_cup_translate(
            {"action": "press_keys", "keys": "ctrl+s"}, display_width_px=1000, display_height_px=1000
        ),
        [{"action": "press_key", "keys": ["ctrl+s"]}],
    ),
    (
        "operator",
        lambda c: c.post_computer_operator_translate(
            {"action": "click", "x": 100, "y": 200, "button": "left"}, display_width_px=1000, display_height_px=1000
        ),
        CLICK,
    ),
]


@pytest.mark.parametrize(("adapter", "call", "actions"), DIALECTS, ids=[d[0] for d in DIALECTS])
def test_each_dialect_translates(client: Client, adapter: str, call: Callable[[Client], Any], actions: list[Any]) -> None:
    answer = call(client)
    assert (answer["adapter"], answer["actions"]) == (adapter, actions)


def test_dialect_execute_routes_act(client: Client) -> None:
    answer = client.post_computer_openai({"type": "move", "x": 320, "y": 200}, display_width_px=640, display_height_px=400)
    assert answer["type"] == "computer_call_output"
    # (320, 200) of 640x400 is the centre of a 2x2 block of screen pixels: (641, 401).
    assert client.post_computer({"action": "get_cursor_position"})["cursor_position"] == [641, 401]
    client.post_computer_uitars("Action: hover(start_box='(250,250)')", screenshot=False)
    assert client.post_computer({"action": "get_cursor_position"})["cursor_position"] == [320, 200]
    results = client.post_computer_anthropic(
        [
            {
                "type": "tool_use",
                "id": "toolu_9",
                "name": "mouse_move",
                "toolset_name": "computer",
                "input": {"coordinate": [10, 20]},
            }
        ]
    )
    assert results == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_9",
            "toolset_name": "computer",
            "content": [{"type": "text", "text": "Moved the mouse."}],
        }
    ]


def test_actions_batch_and_the_seed_path(client: Client) -> None:
    assert client.post_computer({"action": "move_mouse", "coordinates": [10, 20]}) == {
        "output": "moved to (10, 20)", "error": None, "base64_image": None, "cursor_position": [10, 20],
    }  # fmt: skip
    assert client.post_computer_batch({"actions": [{"action": "move_mouse", "coordinates": [5, 6]}, {"action": "get_cursor_position"}]}) == {
        "results": [
            {"output": "moved to (5, 6)", "error": None, "base64_image": None, "cursor_position": [5, 6]},
            {"output": "cursor at (5, 6)", "error": None, "base64_image": None, "cursor_position": [5, 6]},
        ],
        "failed_index": None,
    }  # fmt: skip
    assert client.post_v1_instance_by_instance_id_computer("any", {"action": "move_mouse", "coordinates": [7, 8]})[
        "cursor_position"
    ] == [7, 8]


def test_health_adapters_and_accessibility(client: Client) -> None:
    health = client.get_health()
    assert (health["status"], health["ready"], health["screen"]) == ("ok", True, {"width": 1280, "height": 800})
    names = [a["name"] for a in client.get_adapters()["adapters"]]
    assert [d[0] for d in DIALECTS if d[0] not in names] == []
    tree = client.get_accessibility()
    assert isinstance(tree, dict)
    assert tree["screen"] == {"w": 1280, "h": 800}


def test_files_round_trip(client: Client, gateway: Gateway) -> None:
    data = bytes(range(256)) * 3
    assert client.upload_file("notes/é 1.bin", data) == {"path": "notes/é 1.bin", "size": 768}
    assert (gateway.home / "notes" / "é 1.bin").read_bytes() == data
    assert client.download_file("notes/é 1.bin") == data
    listing = client.list_files(path="notes")
    assert [(e["name"], e["kind"], e["size"]) for e in listing["entries"]] == [("é 1.bin", "file", 768)]
    assert client.delete_file("notes/é 1.bin") == {"path": "notes/é 1.bin", "kind": "file"}
    with pytest.raises(GatewayError) as caught:
        client.download_file("notes/é 1.bin")
    assert (caught.value.status, caught.value.code) == (404, "ERR_FILE_NOT_FOUND")


def test_errors_carry_the_servers_body_and_code(client: Client, gateway: Gateway) -> None:
    with pytest.raises(GatewayError) as caught:
        client.post_computer({"action": "press_key", "keys": ["ctrl", "nokey"]})
    message = "unknown key 'nokey' (closest known names: oskey, home, keya)"
    assert (caught.value.status, caught.value.code, str(caught.value)) == (400, "ERR_UNKNOWN_KEY", message)
    assert caught.value.body == {"statusCode": 400, "code": "ERR_UNKNOWN_KEY", "error": "Bad Request", "message": message}
    with pytest.raises(GatewayError) as recordings:
        client.get_recordings()
    assert recordings.value.status == 404
    assert "--record" in recordings.value.message
    with Client(gateway.url, token="not-the-token-at-all") as stranger, pytest.raises(GatewayError) as refused:
        stranger.get_adapters()
    assert (refused.value.status, refused.value.code) == (401, refused.value.body["code"])
    with Client("http://127.0.0.1:9", retries=0) as nowhere, pytest.raises(GatewayError) as unreachable:
        nowhere.get_health()
    assert (unreachable.value.status, unreachable.value.code) == (0, "ERR_NETWORK")
    with pytest.raises(ValueError, match="http"):
        Client("ftp://127.0.0.1")


def test_screenshots_as_bytes_and_images(client: Client) -> None:
    png = client.screenshot()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert Image.open(io.BytesIO(png)).size == (1280, 800)
    assert client.screenshot_image(display_width_px=640, display_height_px=400).size == (640, 400)
    jpeg = client.screenshot(format="jpeg")
    assert jpeg.startswith(b"\xff\xd8")


@pytest.mark.anyio
async def test_the_async_client(gateway: Gateway) -> None:
    async with AsyncClient(gateway.url, token=gateway.token) as c:
        assert (await c.get_health())["ready"] is True
        moved = await c.post_computer_batch({"actions": [{"action": "move_mouse", "coordinates": [3, 4]}]})
        assert moved["results"][0]["cursor_position"] == [3, 4]
        assert (await c.screenshot_image()).size == (1280, 800)
        with pytest.raises(GatewayError) as caught:
            await c.post_computer({"action": "press_key", "keys": ["nokey"]})
        assert caught.value.code == "ERR_UNKNOWN_KEY"


# Over a scripted transport: what the server cannot easily be made to answer.


def scripted(answers: list[httpx.Response], seen: list[httpx.Request]) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers.pop(0)

    return httpx.MockTransport(handle)


WAITED: ActionResponse = {"output": "waited 0 ms", "error": None, "base64_image": None, "cursor_position": [1, 2]}
BUSY = {"statusCode": 503, "code": "ERR_DESKTOP_STARTING", "error": "Service Unavailable", "message": "the desktop is starting"}


def test_503_and_429_are_retried_after_retry_after() -> None:
    seen: list[httpx.Request] = []
    past = email.utils.formatdate(time.time() - 60, usegmt=True)
    answers = [
        httpx.Response(503, json=BUSY, headers={"retry-after": "0"}),
        httpx.Response(429, json={**BUSY, "statusCode": 429}, headers={"retry-after": past}),
        httpx.Response(200, json=WAITED),
    ]
    with Client("http://gateway.test", token="t" * 16, transport=scripted(answers, seen)) as c:
        assert c.post_computer({"action": "wait", "duration": 0}) == WAITED
    assert [json.loads(r.content) for r in seen] == [{"action": "wait", "duration": 0}] * 3
    assert {r.headers["authorization"] for r in seen} == {"Bearer " + "t" * 16}


def test_retry_waits_are_bounded_and_the_last_answer_raises() -> None:
    seen: list[httpx.Request] = []
    answers = [httpx.Response(503, json=BUSY, headers={"retry-after": "3600"}) for _ in range(3)]
    started = time.monotonic()
    with (
        Client("http://gateway.test", retries=2, max_retry_delay=0.05, transport=scripted(answers, seen)) as c,
        pytest.raises(GatewayError) as caught,
    ):
        c.get_health()
    assert time.monotonic() - started < 2
    assert (len(seen), caught.value.status, caught.value.code, caught.value.body) == (3, 503, "ERR_DESKTOP_STARTING", BUSY)


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        (None, None),
        ("7", 7.0),
        (" 0 ", 0.0),
        ("soon", None),
        ("Thu, 01 Jan 1970 00:01:40 GMT", 0.0),
        ("Thu, 01 Jan 1970 00:01:40 GMT", 40.0),
    ],
)
def test_retry_after_values(header: str | None, seconds: float | None) -> None:
    now = 60.0 if seconds == 40.0 else 1e9
    assert retry_after_seconds(header, now=now) == seconds


# A desktop's view as the fleet answers it (fleet/openapi.yaml's DesktopView).
FLEET_DESKTOP: FleetPostDesktopsAnswer = {
    "id": "d1",
    "status": "running",
    "screen": "1280x800",
    "created_at": "2026-11-28T16:00:00.000Z",
    "expires_at": "2026-11-28T17:00:00.000Z",
    "labels": {"run": "7"},
    "desktop": "full",
    "browser": "firefox",
    "autostart": [],
    "url": "http://127.0.0.1:32768",
    "token": "t" * 32,
}


def test_the_fleet_lifecycle_routes() -> None:
    seen: list[httpx.Request] = []
    answers = [
        httpx.Response(201, json=FLEET_DESKTOP),
        httpx.Response(200, json={"desktops": [FLEET_DESKTOP]}),
        httpx.Response(200, json=FLEET_DESKTOP),
        httpx.Response(200, json={**FLEET_DESKTOP, "status": "paused"}),
        httpx.Response(200, json=FLEET_DESKTOP),
        httpx.Response(200, json={**FLEET_DESKTOP, "token": "u" * 32}),
        httpx.Response(204),
    ]
    with FleetClient("http://fleet.test/", token="k" * 16, transport=scripted(answers, seen)) as fleet:
        assert fleet.post_desktops({"screen": "1280x800"}) == FLEET_DESKTOP
        assert fleet.get_desktops() == {"desktops": [FLEET_DESKTOP]}
        assert fleet.get_desktops_by_id("d1") == FLEET_DESKTOP
        assert fleet.post_desktops_by_id_pause("d1") == {**FLEET_DESKTOP, "status": "paused"}
        assert fleet.post_desktops_by_id_resume("d1") == FLEET_DESKTOP
        assert fleet.post_desktops_by_id_reset("d1") == {**FLEET_DESKTOP, "token": "u" * 32}
        fleet.delete_desktops_by_id("d1")
        desktop = fleet.desktop("d1")
        assert isinstance(desktop, Client)
        desktop.close()
    assert [(r.method, str(r.url)) for r in seen] == [
        ("POST", "http://fleet.test/desktops"),
        ("GET", "http://fleet.test/desktops"),
        ("GET", "http://fleet.test/desktops/d1"),
        ("POST", "http://fleet.test/desktops/d1/pause"),
        ("POST", "http://fleet.test/desktops/d1/resume"),
        ("POST", "http://fleet.test/desktops/d1/reset"),
        ("DELETE", "http://fleet.test/desktops/d1"),
    ]


@pytest.mark.anyio
async def test_the_async_fleet_client_reaches_a_desktop_through_the_fleet() -> None:
    seen: list[httpx.Request] = []
    fleet = AsyncFleetClient("http://fleet.test", token="k" * 16)
    desktop = fleet.desktop("d/1")
    desktop._http = httpx.AsyncClient(transport=scripted([httpx.Response(200, json={"ready": True})], seen))
    assert dict(await desktop.get_health()) == {"ready": True}
    assert [(r.method, str(r.url), r.headers["authorization"]) for r in seen] == [
        ("GET", "http://fleet.test/desktops/d%2F1/health", "Bearer " + "k" * 16)
    ]
    await desktop.aclose()
    await fleet.aclose()
