"""computer_gateway.osworld's parts that need no fleet: where a desktop's token is put for OSWorld's
`requests` (a netrc file of the module's own, by host), and what fleet_desktop_env refuses. The
provider on a real fleet is tests/fleet_osworld.py's (test/docker/fleet-osworld.ts)."""

from __future__ import annotations

import netrc
import os
import stat
from pathlib import Path
from typing import Any

import pytest
import requests

from computer_gateway.osworld import FleetOSWorldError, _Netrc, fleet_desktop_env


def test_a_token_is_in_a_private_netrc_file_while_held_and_netrc_restored_after(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETRC", "/elsewhere/netrc")
    tokens = _Netrc()
    first, second = object(), object()
    tokens.hold(first, "127.0.0.1", "tok-1")
    path = Path(os.environ["NETRC"])
    assert path != Path("/elsewhere/netrc")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert netrc.netrc(str(path)).authenticators("127.0.0.1") == ("osworld", "", "tok-1")
    # What requests sends to that host, as OSWorld's controllers call it (nothing but the URL).
    prepared = requests.Session().prepare_request(requests.Request("GET", "http://127.0.0.1:5000/screenshot"))
    assert prepared.headers["Authorization"] == requests.auth._basic_auth_str("osworld", "tok-1")
    # A reset: the same holder, a fresh desktop's token.
    tokens.hold(first, "127.0.0.1", "tok-2")
    assert netrc.netrc(str(path)).authenticators("127.0.0.1") == ("osworld", "", "tok-2")
    # Another desktop of the same host in this process: refused, the first one's entry kept.
    with pytest.raises(FleetOSWorldError) as refused:
        tokens.hold(second, "127.0.0.1", "tok-3")
    assert str(refused.value) == (
        "another fleet desktop of 127.0.0.1 is open in this process: requests finds a desktop's token by host "
        "(netrc), so close that DesktopEnv first, or run each DesktopEnv in a process of its own"
    )
    tokens.hold(second, "localhost", "tok-4")
    assert {host: netrc.netrc(str(path)).authenticators(host) for host in ("127.0.0.1", "localhost")} == {
        "127.0.0.1": ("osworld", "", "tok-2"),
        "localhost": ("osworld", "", "tok-4"),
    }
    tokens.release(first)
    assert netrc.netrc(str(path)).authenticators("127.0.0.1") is None
    tokens.release(second)
    assert not path.exists()
    assert not path.parent.exists()
    assert os.environ["NETRC"] == "/elsewhere/netrc"


@pytest.mark.parametrize("taken", ["provider_name", "path_to_vm", "region"])
def test_fleet_desktop_env_sets_the_provider_itself(taken: str) -> None:
    kwargs: dict[str, Any] = {taken: "vmware"}
    with pytest.raises(TypeError) as refused:
        fleet_desktop_env("http://127.0.0.1:8100", "key", **kwargs)
    assert str(refused.value) == f"fleet_desktop_env sets {taken} itself: the desktop is the fleet's"
