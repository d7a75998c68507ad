"""OSWorld's harness as far as it runs without its heavy dependencies, every line of it read from
the desktop-env wheel and run as written. Importing `desktop_env.desktop_env` imports every
metric and getter module (`desktop_env.evaluators.metrics` alone pulls easyocr, hence torch,
librosa, OpenCV, scikit-image and borb), and `desktop_env.controllers.setup` imports Playwright,
PyDrive and the AWS proxy pool: desktop_env.desktop_env cannot be imported without that stack. So:

- `SetupController` is the class of controllers/setup.py, its module's imports that are installed
  (requests, requests_toolbelt's MultipartEncoder, PythonController) and its constants;
- the metrics and getters a task names are the functions of their own modules, taken by name;
- `make_env` is a DesktopEnv that carries DesktopEnv's own `reset`, `step`, `evaluate`, `_get_obs`, `_set_task_info` and
  `_set_evaluator_info` (the method bodies of desktop_env.py), on a desktop that is already
  running, with `metrics` and `getters` namespaces holding the functions taken above.

On the fleet (fleet_osworld.py, in test:image) DesktopEnv is the installed package instead, from
.venv-osworld, where desktop-env is installed with everything it declares.

The desktop's token rides in a netrc file (requests reads it), as DesktopEnv's getters post to
`http://{vm_ip}:{port}` with nothing else."""

from __future__ import annotations

import ast
import importlib
import json
import sys
import types
import zipfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parents[1]
WHEELS = PACKAGE / ".venv" / "osworld"
TASKS = Path(__file__).resolve().parent / "osworld_tasks"

# Where each metric and getter the tasks may name is defined in desktop_env/evaluators.
METRICS = {
    "compare_text_file": "evaluators/metrics/vscode.py",
    "exact_match": "evaluators/metrics/general.py",
    "check_include_exclude": "evaluators/metrics/general.py",
    "literal_match": "evaluators/metrics/general.py",
    "is_in_list": "evaluators/metrics/general.py",
    "match_in_list": "evaluators/metrics/general.py",
    "diff_text_file": "evaluators/metrics/general.py",
    "check_list": "evaluators/metrics/general.py",
    "file_contains": "evaluators/metrics/general.py",
    "compare_terminal_and_txt": "evaluators/metrics/general.py",
    "check_moved_jpgs": "evaluators/metrics/basic_os.py",
    "is_in_vm_clickboard": "evaluators/metrics/basic_os.py",
}
GETTERS = {
    "get_vm_file": "evaluators/getters/file.py",
    "get_cache_file": "evaluators/getters/file.py",
    "get_vm_command_line": "evaluators/getters/general.py",
    "get_vm_command_error": "evaluators/getters/general.py",
    "get_vm_terminal_output": "evaluators/getters/general.py",
    "get_rule": "evaluators/getters/misc.py",
    "get_list_directory": "evaluators/getters/info.py",
    "get_vm_window_size": "evaluators/getters/info.py",
}
ENV_METHODS = ("reset", "step", "evaluate", "_get_obs", "_set_task_info", "_set_evaluator_info")


def desktop_env_wheel() -> Path:
    wheels = sorted(WHEELS.glob("desktop_env-*.whl"))
    if not wheels:
        raise AssertionError(
            f"no desktop-env wheel in {WHEELS}: run scripts/test-python.sh --setup, which downloads it from PyPI"
        )
    return wheels[-1]


@contextmanager
def wheel_on_path() -> Iterator[Path]:
    """The wheel (a zip) importable for as long as the block runs."""
    wheel = desktop_env_wheel()
    sys.path.insert(0, str(wheel))
    try:
        yield wheel
    finally:
        sys.path.remove(str(wheel))


def _source(wheel: Path, module: str) -> ast.Module:
    with zipfile.ZipFile(wheel) as archive:
        return ast.parse(archive.read(f"desktop_env/{module}").decode(), filename=f"desktop_env/{module}")


def _importable(statement: ast.Import | ast.ImportFrom, namespace: dict[str, Any]) -> bool:
    """Runs an import of the module's if what it names is installed; the rest are left out, and a
    function that needs one fails with a NameError when called."""
    try:
        exec(compile(ast.Module(body=[statement], type_ignores=[]), "<import>", "exec"), namespace)
    except ImportError:
        return False
    return True


def module_parts(wheel: Path, module: str, names: Iterable[str]) -> dict[str, Any]:
    """The named top-level functions and classes of a desktop_env module, as written, run after its
    installed imports and its constant assignments (never its other top-level calls)."""
    tree = _source(wheel, module)
    namespace: dict[str, Any] = {"__name__": f"desktop_env.{module[:-3].replace('/', '.')}"}
    wanted = set(names)
    kept: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            _importable(node, namespace)
        elif _kept(node, wanted):
            kept.append(node)
    exec(compile(ast.Module(body=kept, type_ignores=[]), f"desktop_env/{module}", "exec"), namespace)
    missing = wanted - namespace.keys()
    if missing:
        raise AssertionError(f"desktop_env/{module} defines no {sorted(missing)}")
    return {name: namespace[name] for name in wanted}


def _kept(node: ast.stmt, wanted: set[str]) -> bool:
    """A constant, the module's logger, or a function or class asked for."""
    if isinstance(node, ast.Assign):
        return isinstance(node.value, ast.Constant) or _is_logger(node.value)
    return isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name in wanted


def _is_logger(value: ast.expr) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "getLogger"


def _functions(wheel: Path, table: dict[str, str], names: Iterable[str]) -> types.SimpleNamespace:
    by_module: dict[str, list[str]] = {}
    for name in names:
        if name not in table:
            raise AssertionError(
                f"{name} is not among the evaluator functions this harness takes from the wheel: {sorted(table)}"
            )
        by_module.setdefault(table[name], []).append(name)
    found: dict[str, Any] = {}
    for module, wanted in by_module.items():
        found.update(module_parts(wheel, module, wanted))
    return types.SimpleNamespace(**found)


def _env_module(
    wheel: Path, metrics: types.SimpleNamespace, getters: types.SimpleNamespace, methods: Iterable[str]
) -> types.ModuleType:
    """desktop_env.py as a module: its installed imports, constants and helper, and a DesktopEnv class
    whose methods are DesktopEnv's own named ones, compiled from its source into the module's globals
    (so what they look up, `create_vm_manager_and_provider` among it, is the module's)."""
    tree = _source(wheel, "desktop_env.py")
    wanted = set(methods)
    desktop_env = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "DesktopEnv")
    found = [node for node in desktop_env.body if isinstance(node, ast.FunctionDef) and node.name in wanted]
    helpers = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "_fix_pyautogui_less_than_bug"]
    constants = [node for node in tree.body if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)]
    module = types.ModuleType("desktop_env.desktop_env")
    namespace = module.__dict__
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            _importable(node, namespace)
    namespace["logger"] = importlib.import_module("logging").getLogger("desktopenv.env")
    # The metrics and getters are ours to give: the imports above may have failed on them.
    namespace["metrics"], namespace["getters"] = metrics, getters
    body: list[ast.stmt] = [*constants, *helpers, *found]
    exec(compile(ast.Module(body=body, type_ignores=[]), "desktop_env/desktop_env.py", "exec"), namespace)
    module.DesktopEnv = type("DesktopEnv", (), {node.name: namespace[node.name] for node in found})  # type: ignore[attr-defined]
    return module


def _evaluators(wheel: Path, tasks: Iterable[dict[str, Any]]) -> tuple[types.SimpleNamespace, types.SimpleNamespace]:
    """The metrics and getters the tasks' evaluators name, from their modules in the wheel."""
    metric_names: set[str] = set()
    getter_names: set[str] = set()
    for task in tasks:
        evaluator = task["evaluator"]
        funcs = evaluator["func"] if isinstance(evaluator["func"], list) else [evaluator["func"]]
        metric_names.update(funcs)
        for key in ("result", "expected"):
            configs = evaluator.get(key, [])
            for config in configs if isinstance(configs, list) else [configs]:
                if config:
                    getter_names.add(f"get_{config['type']}")
    return _functions(wheel, METRICS, metric_names), _functions(wheel, GETTERS, getter_names)


def load_task(name: str) -> tuple[dict[str, Any], list[Any]]:
    """A task's JSON and its scripted solution (`<id>.actions.json`, a list of DesktopEnv.step actions)."""
    task = json.loads((TASKS / f"{name}.json").read_text())
    actions = json.loads((TASKS / f"{name}.actions.json").read_text())
    return task, actions


def task_names() -> list[str]:
    return sorted(path.name.removesuffix(".json") for path in TASKS.glob("*.json") if not path.name.endswith(".actions.json"))


# The applications of the minimal desktop that test:python runs the set on (xterm and Mousepad).
LOCAL_APPS = frozenset({"terminal", "mousepad"})


def local_task_names() -> list[str]:
    """The tasks whose related_apps are all on the minimal desktop; the rest (LibreOffice Calc and
    Writer, Thunar, Firefox, Atril) run on the full desktop image only, through the fleet
    (fleet_osworld.py)."""
    return [name for name in task_names() if set(load_task(name)[0]["related_apps"]) <= LOCAL_APPS]


def make_env(wheel: Path, vm_ip: str, server_port: int, cache_dir: Path, tasks: Iterable[dict[str, Any]]) -> Any:
    """DesktopEnv's methods on the running desktop at http://vm_ip:server_port, with the metrics and
    getters the tasks name."""
    metrics, getters = _evaluators(wheel, tasks)
    setup = module_parts(wheel, "controllers/setup.py", ["SetupController"])["SetupController"]
    python = importlib.import_module("desktop_env.controllers.python").PythonController
    env = _env_module(wheel, metrics, getters, ENV_METHODS).DesktopEnv()
    env.vm_ip, env.server_port = vm_ip, server_port
    env.controller = python(vm_ip=vm_ip, server_port=server_port)
    env.controller.retry_interval = 0.2
    env.setup_controller = setup(vm_ip=vm_ip, server_port=server_port, cache_dir=str(cache_dir), client_password="password")
    env.cache_dir_base = str(cache_dir)
    env.provider_name = "computer-gateway"
    env.enable_proxy = False
    env.current_use_proxy = False
    env.is_environment_used = False
    env.require_a11y_tree = False
    env.require_terminal = False
    env.action_space = "pyautogui"
    env._traj_no = -1
    env._step_no = 0
    env.action_history = []
    return env
