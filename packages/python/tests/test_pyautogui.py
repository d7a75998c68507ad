"""computer_gateway.pyautogui runs the calls a pyautogui-writing model emits on the desktop:
Unicode typed exactly into a terminal (which a real pyautogui cannot), clicks and moves where
they say, keys by pyautogui's names, the screen's size and a screenshot; a call the server
refuses raises a GatewayError with its message."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import Gateway, Terminal

import computer_gateway.pyautogui as pyautogui
from computer_gateway import Client, GatewayError


@pytest.fixture
def desktop(gateway: Gateway) -> Iterator[Client]:
    client = pyautogui.configure(gateway.url, token=gateway.token)
    try:
        yield client
    finally:
        client.close()


def test_write_types_unicode_exactly_into_a_terminal(desktop: Client, terminal: Terminal) -> None:
    pyautogui.click(200, 150)
    pyautogui.write("héllo 世界\n")
    assert terminal.wait_for("héllo 世界\n") == "héllo 世界\n"


def test_the_calls_of_a_model_written_script(desktop: Client, terminal: Terminal) -> None:
    pyautogui.moveTo(200, 150)
    assert pyautogui.position() == (200, 150)
    pyautogui.moveRel(10, -20)
    assert pyautogui.position() == (210, 130)
    pyautogui.click((220, 140))
    assert pyautogui.position() == (220, 140)
    pyautogui.typewrite("quote ' and \\ tab\t")
    pyautogui.press("enter")
    pyautogui.write(["a", "b"])
    pyautogui.press(["enter"])
    pyautogui.hotkey("shift", "c")
    pyautogui.keyDown("shift")
    pyautogui.press("d")
    pyautogui.keyUp("shift")
    pyautogui.press("enter", presses=2)
    expected = "quote ' and \\ tab\t\nab\nCD\n\n"
    assert terminal.wait_for(expected) == expected


def test_size_and_screenshot(desktop: Client) -> None:
    assert pyautogui.size() == (1280, 800)
    image = pyautogui.screenshot(region=(0, 0, 100, 50))
    assert image.size == (100, 50)
    assert pyautogui.onScreen(1279, 799)
    assert not pyautogui.onScreen(1280, 0)


def test_a_refused_call_raises_the_servers_error(desktop: Client) -> None:
    with pytest.raises(GatewayError) as caught:
        pyautogui.hotkey("ctrl", "nokey")
    message = "unknown key 'nokey' (closest known names: oskey, home, keya)"
    assert (caught.value.status, caught.value.code, caught.value.message) == (400, "ERR_UNKNOWN_KEY", message)
    assert caught.value.body == {"statusCode": 400, "code": "ERR_UNKNOWN_KEY", "error": "Bad Request", "message": message}
