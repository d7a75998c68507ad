"""The package's routes and types are openapi.yaml's and the fleet's document's: the committed
_generated.py is what scripts/generate.py writes from them now, and every operation of each
document is a method of the blocking and the async client."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType

from computer_gateway import AsyncClient, AsyncFleetClient, Client, FleetClient

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate", SCRIPTS / "generate.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["generate"] = module
    spec.loader.exec_module(module)
    return module


def test_the_committed_file_is_fresh() -> None:
    generate = generator()
    assert generate.TARGET.read_text("utf-8") == generate.format_source(generate.generate()), (
        "src/computer_gateway/_generated.py is stale: run .venv/bin/python scripts/generate.py"
    )


def test_every_operation_is_a_method_of_both_clients() -> None:
    generate = generator()
    server, fleet = generate.read_documents()
    for document, blocking, concurrent, wanted in (
        (server, Client, AsyncClient, {"post_computer", "post_computer_batch", "upload_file", "get_recordings_by_id_video"}),
        (
            fleet,
            FleetClient,
            AsyncFleetClient,
            {
                "post_desktops",
                "get_desktops",
                "get_desktops_by_id",
                "delete_desktops_by_id",
                "post_desktops_by_id_pause",
                "post_desktops_by_id_resume",
                "post_desktops_by_id_reset",
            },
        ),
    ):
        names = [
            generate.snake(op.get("operationId") or generate.operation_name(method, path))
            for method, path, op in generate.operations(document)
        ]
        assert len(names) == len(set(names))
        assert wanted <= set(names)
        # What the fleet forwards is FleetClient.desktop(id)'s, typed by the server's document; the live view is a page.
        assert not [
            name
            for name in names
            if name.startswith(("get_desktops_by_id_", "post_desktops_by_id_computer", "post_desktops_by_id_live"))
        ]
        for name in names:
            assert callable(getattr(blocking, name)), name
            assert not inspect.iscoroutinefunction(getattr(blocking, name)), name
            assert inspect.iscoroutinefunction(getattr(concurrent, name)), name
