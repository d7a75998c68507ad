"""OSWorld's `DesktopEnv` on the fleet's desktops: a `desktop_env` provider over the fleet's HTTP
API, for a fleet started with `--osworld` (each desktop serves OSWorld's guest protocol) and
`--shell` (the tasks' setup steps run commands).

    env = fleet_desktop_env("http://127.0.0.1:8100", key, screen_size=(1280, 800))
    observation = env.reset(task_config=task)   # setup through the desktop's guest protocol
    env.step("pyautogui.click(200, 150)")
    score = env.evaluate()                      # OSWorld's own metrics
    env.close()                                 # the desktop is ended

Starting the emulator claims a desktop (`POST /desktops` with the screen DesktopEnv asks for),
reverting to the snapshot is the fleet's reset (`POST /desktops/{id}/reset`: a fresh desktop
under the same id, with a new address and token), and stopping it ends it (`DELETE`).

`desktop_env` is OSWorld's package (`pip install desktop-env`), imported only when
`fleet_desktop_env` is called: this package does not depend on it."""

from __future__ import annotations

import importlib
import os
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional
from urllib.parse import urlsplit

from ._client import FleetClient

# The ports of DesktopEnv's address that a fleet desktop does not serve: Chrome's remote debugging
# (the fleet serves a Chromium desktop's DevTools at /desktops/{id}/browser/cdp instead), noVNC and
# VLC's web interface. Port 0 is one nothing listens on: a task that needs one fails at connecting.
UNSERVED_PORT = 0
# A cold desktop may take the fleet's --start-timeout (180 s by default) to be ready.
READY_TIMEOUT = 240.0


class FleetOSWorldError(RuntimeError):
    """The fleet cannot give DesktopEnv a desktop: it runs without --osworld, the desktop ended, or
    another desktop of the same host holds this process's netrc entry."""


class _Netrc:
    """The desktops' tokens, where OSWorld's HTTP client finds them. DesktopEnv splits its
    provider's address at ':' (`host:server_port:chromium_port:vnc_port:vlc_port`) and its
    controllers and getters call `requests` with `http://{host}:{port}` and nothing else, so no
    password can ride in the address (`requests` sends a URL's user info as Basic auth only with a
    ':' in it). `requests` reads the netrc file `NETRC` names for every request, by host: this
    process's `NETRC` names one file, owned by this module, for as long as a fleet desktop is
    open, with one line per host. A netrc entry is per host, not per port, so one process drives
    one fleet desktop per host at a time (OSWorld's parallel runners run one DesktopEnv per process)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[object, str]] = {}
        self._directory: Optional[Path] = None
        self._saved: Optional[str] = None

    def hold(self, owner: object, host: str, token: str) -> None:
        with self._lock:
            held = self._entries.get(host)
            if held is not None and held[0] is not owner:
                raise FleetOSWorldError(
                    f"another fleet desktop of {host} is open in this process: requests finds a desktop's token by host "
                    "(netrc), so close that DesktopEnv first, or run each DesktopEnv in a process of its own"
                )
            self._entries[host] = (owner, token)
            self._write()

    def release(self, owner: object) -> None:
        with self._lock:
            self._entries = {host: held for host, held in self._entries.items() if held[0] is not owner}
            self._write()

    def _write(self) -> None:
        if not self._entries:
            if self._directory is not None:
                (self._directory / "netrc").unlink(missing_ok=True)
                self._directory.rmdir()
                self._directory = None
                if self._saved is None:
                    os.environ.pop("NETRC", None)
                else:
                    os.environ["NETRC"] = self._saved
            return
        if self._directory is None:
            self._directory = Path(tempfile.mkdtemp(prefix="computer-gateway-osworld-"))
            self._saved = os.environ.get("NETRC")
        path = self._directory / "netrc"
        # Written beside and renamed: a request meanwhile reads the old file or the new, never half.
        scratch = self._directory / "netrc.new"
        lines = "".join(f"machine {host} login osworld password {token}\n" for host, (_, token) in self._entries.items())
        scratch.write_text(lines)
        scratch.chmod(0o600)
        scratch.replace(path)
        os.environ["NETRC"] = str(path)


_NETRC = _Netrc()


class FleetDesktop:
    """One fleet desktop as DesktopEnv's provider sees it: claimed, reset, ended; its guest
    protocol's address and token."""

    def __init__(
        self,
        fleet: FleetClient,
        *,
        ttl_seconds: Optional[int] = None,
        labels: Optional[Mapping[str, str]] = None,
        ready_timeout: float = READY_TIMEOUT,
    ) -> None:
        self.fleet = fleet
        self.ttl_seconds = ttl_seconds
        self.labels = dict(labels or {})
        self.ready_timeout = ready_timeout
        self.screen: Optional[tuple[int, int]] = None
        self.id: Optional[str] = None
        self.view: dict[str, Any] = {}

    def start(self) -> None:
        """Claims a desktop of the screen DesktopEnv asked for; one already claimed is kept (DesktopEnv
        starts the emulator again after each revert, which here has already put a fresh desktop in place)."""
        if self.id is None:
            body: dict[str, Any] = {}
            if self.screen is not None:
                body["screen"] = f"{self.screen[0]}x{self.screen[1]}"
            if self.ttl_seconds is not None:
                body["ttl_seconds"] = self.ttl_seconds
            if self.labels:
                body["labels"] = self.labels
            view: dict[str, Any] = dict(self.fleet.post_desktops(body))  # type: ignore[arg-type]
            self.id = str(view["id"])
            self._take(view)

    def reset(self) -> None:
        """The fleet's reset: a fresh desktop under the same id (its home, processes and token new)."""
        if self.id is None:
            raise FleetOSWorldError("no fleet desktop to reset: DesktopEnv has not started one, or closed it")
        self._take(dict(self.fleet.post_desktops_by_id_reset(self.id)))

    def stop(self) -> None:
        """Ends the desktop (its container and home removed); one already ended is left as it is."""
        desktop_id, self.id = self.id, None
        try:
            if desktop_id is not None:
                self.fleet.delete_desktops_by_id(desktop_id)
        finally:
            _NETRC.release(self)
            self.view = {}

    def address(self) -> str:
        """`host:guest_port:chromium_port:vnc_port:vlc_port`, as DesktopEnv splits it."""
        guest = urlsplit(str(self.view["osworld_url"]))
        return f"{guest.hostname}:{guest.port}:{UNSERVED_PORT}:{UNSERVED_PORT}:{UNSERVED_PORT}"

    def _take(self, view: dict[str, Any]) -> None:
        """Waits for the desktop (a cold start answers `starting`) and puts its token where OSWorld's requests read it."""
        assert self.id is not None
        deadline = time.monotonic() + self.ready_timeout
        while view.get("status") == "starting":
            if time.monotonic() > deadline:
                raise FleetOSWorldError(f"fleet desktop {self.id} was not running after {self.ready_timeout} s")
            time.sleep(0.5)
            view = dict(self.fleet.get_desktops_by_id(self.id))
        if view.get("status") != "running":
            raise FleetOSWorldError(f"fleet desktop {self.id} is {view.get('status')}: {view.get('reason', 'no reason given')}")
        if not view.get("osworld_url"):
            raise FleetOSWorldError(
                "the fleet's desktops do not serve OSWorld's guest protocol: start the fleet with --osworld "
                "(and --shell, which OSWorld's task setups need to run commands)"
            )
        self.view = view
        host = urlsplit(str(view["osworld_url"])).hostname or ""
        _NETRC.hold(self, host, str(view["token"]))


def _provider_classes() -> tuple[type, type]:
    """The VMManager and Provider of desktop_env.providers.base, over a FleetDesktop; made when first
    asked for, so that importing this module does not import desktop_env."""
    base = importlib.import_module("desktop_env.providers.base")
    manager_base: Any = base.VMManager
    provider_base: Any = base.Provider

    class FleetVMManager(manager_base):  # type: ignore[misc]
        """The fleet keeps its own registry of desktops: there is no VM file to register, so a
        "VM path" is where desktops come from, `<fleet>/desktops`."""

        def __init__(self, desktop: FleetDesktop) -> None:
            self.desktop = desktop

        def initialize_registry(self, **kwargs: Any) -> None:
            pass

        def add_vm(self, vm_path: str, **kwargs: Any) -> None:
            pass

        def delete_vm(self, vm_path: str, **kwargs: Any) -> None:
            pass

        def occupy_vm(self, vm_path: str, pid: int, **kwargs: Any) -> None:
            pass

        def list_free_vms(self, **kwargs: Any) -> list[str]:
            return [self.get_vm_path()]

        def check_and_clean(self, **kwargs: Any) -> None:
            pass

        def get_vm_path(self, **kwargs: Any) -> str:
            # DesktopEnv asks with the screen it wants: the desktop is claimed with it.
            screen = kwargs.get("screen_size")
            if screen is not None:
                self.desktop.screen = (int(screen[0]), int(screen[1]))
            return f"{self.desktop.fleet._settings.base_url}/desktops"

    class FleetProvider(provider_base):  # type: ignore[misc]
        def __init__(self, desktop: FleetDesktop) -> None:
            super().__init__(region=None)
            self.desktop = desktop

        def start_emulator(self, path_to_vm: str, headless: bool, os_type: str = "Ubuntu") -> None:
            self.desktop.start()

        def get_ip_address(self, path_to_vm: str) -> str:
            return self.desktop.address()

        def save_state(self, path_to_vm: str, snapshot_name: str) -> None:
            raise NotImplementedError("a fleet desktop has no snapshots to save: reset gives a fresh desktop")

        def revert_to_snapshot(self, path_to_vm: str, snapshot_name: str) -> str:
            self.desktop.reset()
            return path_to_vm

        def stop_emulator(self, path_to_vm: str, *args: Any, **kwargs: Any) -> None:
            self.desktop.stop()

    return FleetVMManager, FleetProvider


# DesktopEnv's constructor looks its provider up in a closed list (create_vm_manager_and_provider)
# and accepts only the names it knows. It is given "docker", whose meaning is ours (a clean desktop
# at start, so its first reset sets up without reverting; every later one reverts), and the
# factory it calls is replaced by one answering this desktop's manager and provider, for the
# constructor's duration only and under this lock, so that no other DesktopEnv made meanwhile in
# this process sees it. Nothing else of desktop_env is changed.
_FACTORY_LOCK = threading.Lock()


def fleet_desktop_env(
    fleet_url: str,
    key: Optional[str] = None,
    *,
    ttl_seconds: Optional[int] = None,
    labels: Optional[Mapping[str, str]] = None,
    ready_timeout: float = READY_TIMEOUT,
    **desktop_env_kwargs: Any,
) -> Any:
    """OSWorld's own `DesktopEnv` on a fleet desktop: claimed now, reset by the fleet, ended by
    `close()`. Keyword arguments are DesktopEnv's (`screen_size`, `action_space`, `cache_dir`,
    `require_a11y_tree`, …) but its provider's, which this sets."""
    for taken in ("provider_name", "path_to_vm", "region"):
        if taken in desktop_env_kwargs:
            raise TypeError(f"fleet_desktop_env sets {taken} itself: the desktop is the fleet's")
    module: Any = importlib.import_module("desktop_env.desktop_env")
    manager_class, provider_class = _provider_classes()
    desktop = FleetDesktop(FleetClient(fleet_url, token=key), ttl_seconds=ttl_seconds, labels=labels, ready_timeout=ready_timeout)
    manager, provider = manager_class(desktop), provider_class(desktop)
    with _FACTORY_LOCK:
        original = module.create_vm_manager_and_provider
        module.create_vm_manager_and_provider = lambda *args, **kwargs: (manager, provider)
        try:
            return module.DesktopEnv(provider_name="docker", **desktop_env_kwargs)
        except BaseException:
            # A desktop claimed before the constructor failed (a bad action_space is checked after the start) is ended.
            desktop.stop()
            raise
        finally:
            module.create_vm_manager_and_provider = original
