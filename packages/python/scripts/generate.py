"""Writes src/computer_gateway/_generated.py from the server's openapi.yaml and the fleet's
OpenAPI document, so the Python package's routes and types have one source: the TypeBox schemas
the servers validate with. Every operation becomes a method of SyncRoutes and AsyncRoutes (the
desktop's server) or FleetSyncRoutes and FleetAsyncRoutes (the fleet), typed by its query,
body and answer; every schema becomes a TypedDict, a Literal or a Union.

    .venv/bin/python scripts/generate.py          # writes the file
    .venv/bin/python scripts/generate.py --check  # exit 1 if the committed file is stale

Both documents are the committed ones that `npm run openapi` writes (openapi.yaml,
fleet/openapi.yaml), so a stale one fails the project's own freshness tests first.
"""

from __future__ import annotations

import keyword
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

PACKAGE = Path(__file__).resolve().parent.parent
ROOT = PACKAGE.parent.parent
TARGET = PACKAGE / "src" / "computer_gateway" / "_generated.py"

Schema = dict[str, Any]


def read_documents() -> tuple[Schema, Schema]:
    server = yaml.safe_load((ROOT / "openapi.yaml").read_text("utf-8"))
    fleet = yaml.safe_load((ROOT / "fleet" / "openapi.yaml").read_text("utf-8"))
    return server, fleet


def pascal(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", text) if part)


def snake(text: str) -> str:
    text = re.sub(r"[^0-9A-Za-z]+", "_", text)
    text = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", text).lower().strip("_")
    return text + "_" if keyword.iskeyword(text) else text


class Types:
    """Python type expressions for JSON schemas; named ones are collected as definitions."""

    def __init__(self, prefix: str, components: dict[str, Schema]) -> None:
        self.prefix = prefix
        self.components = components
        self.definitions: dict[str, str] = {}
        for name in components:
            self.name_of(name)
        for name, schema in components.items():
            self.define(self.name_of(name), schema)

    def name_of(self, component: str) -> str:
        return self.prefix + pascal(component)

    def define(self, name: str, schema: Schema) -> str:
        if name in self.definitions:
            return name
        self.definitions[name] = ""  # reserved: a recursive schema refers to itself by name
        self.definitions[name] = self.definition(name, schema)
        return name

    def definition(self, name: str, schema: Schema) -> str:
        if self.is_object(schema):
            required = set(schema.get("required", []))
            fields = []
            for key, value in schema["properties"].items():
                kind = self.expr(value, name + pascal(key))
                fields.append(f"        {key!r}: {f'Required[{kind}]' if key in required else kind},")
            body = "\n".join(fields)
            return f'{name} = TypedDict(\n    "{name}",\n    {{\n{body}\n    }},\n    total=False,\n)'
        return f"{name}: TypeAlias = {self.expr(schema, name)}"

    @staticmethod
    def is_object(schema: Schema) -> bool:
        return bool(schema.get("properties")) and schema.get("type", "object") == "object"

    def expr(self, schema: Schema | bool, hint: str) -> str:
        if not isinstance(schema, dict):
            return "Any"
        if "$ref" in schema:
            return f'"{self.name_of(schema["$ref"].rsplit("/", 1)[-1])}"'
        if "const" in schema:
            return f"Literal[{schema['const']!r}]"
        if "enum" in schema:
            return "Literal[" + ", ".join(repr(v) for v in schema["enum"]) + "]"
        for union in ("anyOf", "oneOf"):
            if union in schema:
                return self.union([self.expr(s, f"{hint}{i}") for i, s in enumerate(schema[union])])
        if "allOf" in schema:
            parts = schema["allOf"]
            return self.expr(parts[0], hint) if len(parts) == 1 else "dict[str, Any]"
        kind = schema.get("type")
        if isinstance(kind, list):
            return self.union([self.expr({**schema, "type": k}, hint) for k in kind])
        if self.is_object(schema):
            return f'"{self.define(hint, schema)}"'
        if kind == "object" or (kind is None and "additionalProperties" in schema):
            extra = schema.get("additionalProperties")
            return f"dict[str, {self.expr(extra, hint + 'Value') if isinstance(extra, dict) else 'Any'}]"
        if kind == "array":
            items = schema.get("items")
            if "prefixItems" in schema:
                return "list[" + self.union([self.expr(s, hint + "Item") for s in schema["prefixItems"]]) + "]"
            return f"list[{self.expr(items, hint + 'Item') if isinstance(items, dict) else 'Any'}]"
        scalar = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
        return scalar.get(str(kind), "Any")

    @staticmethod
    def union(members: list[str]) -> str:
        literals: list[str] = []
        others: list[str] = []
        for member in members:
            if member.startswith("Literal[") and member.count("Literal[") == 1:
                literals.extend(v for v in member[len("Literal[") : -1].split(", ") if v not in literals)
            elif member not in others:
                others.append(member)
        if literals:
            others.insert(0, "Literal[" + ", ".join(literals) + "]")
        if "Any" in others:
            return "Any"
        return others[0] if len(others) == 1 else "Union[" + ", ".join(others) + "]"


BINARY = ("application/octet-stream", "video/", "application/zip")
# The fleet's tags for what a client of the fleet leaves out (FORWARDED_TAG, LIVE_VIEW_TAG in fleet/schemas.ts).
SKIPPED_TAGS = {"forwarded", "live view"}


def answer_kind(operation: Schema, types: Types, hint: str) -> tuple[str, str]:
    """The Python type of a 2xx answer and how it is read: json, text, bytes or none."""
    kinds: list[str] = []
    reads: list[str] = []
    for status, response in operation.get("responses", {}).items():
        if not str(status).startswith("2"):
            continue
        for media, content in (response.get("content") or {}).items():
            schema = content.get("schema", {})
            if media.startswith(BINARY) or schema.get("format") == "binary":
                kinds.append("bytes")
                reads.append("bytes")
            elif media.startswith("text/"):
                kinds.append("str")
                reads.append("text")
            else:
                kinds.append(types.expr(schema, hint + "Answer"))
                reads.append("json")
    if not kinds:
        return "None", "none"
    read = "bytes" if "bytes" in reads else "auto"
    return types.union(kinds), read


def operations(document: Schema) -> list[tuple[str, str, Schema]]:
    found = []
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            # The fleet forwards a desktop's whole API under /desktops/{id}/ (FleetClient.desktop(id)
            # is a Client of its own there, typed by openapi.yaml), and the live view is a page.
            if method in ("get", "post", "put", "delete", "patch") and not SKIPPED_TAGS & set(operation.get("tags", [])):
                found.append((method, path, operation))
    return found


def operation_name(method: str, path: str) -> str:
    """The fleet names no operation: get /desktops/{id} is get_desktops_by_id, as the server's are."""
    return method + "_" + re.sub(r"\{(\w+)\}", r"by_\1", path)


def method_source(method: str, path: str, operation: Schema, types: Types, is_async: bool) -> str:
    name = snake(operation.get("operationId") or operation_name(method, path))
    hint = types.prefix + pascal(name)
    args: list[str] = ["self"]
    keyword_args: list[str] = []
    path_params: list[str] = []
    query_params: list[tuple[str, str]] = []
    for parameter in operation.get("parameters", []):
        python = snake(parameter["name"])
        kind = types.expr(parameter.get("schema", {}), hint + pascal(parameter["name"]))
        if parameter["in"] == "path":
            args.append(f"{python}: str")
            path_params.append(parameter["name"])
        elif parameter["in"] == "query":
            keyword_args.append(f"{python}: Optional[{kind}] = None")
            query_params.append((parameter["name"], python))
    body_arg = "None"
    media_arg = "None"
    request = operation.get("requestBody")
    if request:
        content = request.get("content", {})
        medias = list(content)
        if any(m.startswith(BINARY) for m in medias):
            kind, body_arg, media_arg = "bytes", "body", '"bytes"'
        else:
            json_schema = content.get("application/json", {}).get("schema")
            kind = types.expr(json_schema, hint + "Body") if json_schema is not None else "str"
            if "text/plain" in medias and json_schema is not None:
                kind = f"Union[{kind}, str]"
            body_arg, media_arg = "body", '"json"'
        if request.get("required"):
            args.append(f"body: {kind}")
        else:
            keyword_args.insert(0, f"body: Optional[{kind}] = None")
    keyword_args.append("headers: Optional[Mapping[str, str]] = None")
    answer, read = answer_kind(operation, types, hint)
    # Annotations are not evaluated (from __future__ import annotations): no forward-reference quotes.
    answer = answer.replace('"', "")
    args = [a.replace('"', "") for a in args]
    keyword_args = [a.replace('"', "") for a in keyword_args]
    signature = ", ".join(args + (["*", *keyword_args] if keyword_args else []))
    formatted = path
    for parameter in path_params:
        formatted = formatted.replace("{" + parameter + "}", "{" + f"_segment({snake(parameter)})" + "}")
    url = f'f"{formatted}"' if path_params else repr(path)
    query = "{" + ", ".join(f"{name!r}: {python}" for name, python in query_params) + "}"
    summary = (operation.get("summary") or name).strip().replace('"""', "'''")
    call = "await self._request" if is_async else "self._request"
    define = "async def" if is_async else "def"
    return (
        f"    {define} {name}({signature}) -> {answer}:\n"
        f'        """{method.upper()} {path}: {summary}."""\n'
        f"        answer = {call}(\n"
        f'            "{method.upper()}", {url}, query={query}, body={body_arg}, media={media_arg}, read="{read}", headers=headers\n'
        f"        )\n"
        f"        return cast({answer}, answer)\n"
    )


HEADER = '''"""Generated by scripts/generate.py from openapi.yaml and the fleet's OpenAPI document: do not
edit by hand (tests/test_generated.py fails when it is stale). Types for every schema, and one
method per operation, over the transport of _client.py (`_request`)."""
from __future__ import annotations

from typing import Any, Literal, Mapping, Optional, Union, cast
from urllib.parse import quote

from typing_extensions import Required, TypeAlias, TypedDict


def _segment(value: str) -> str:
    """One path segment, percent-encoded (a file path keeps its slashes)."""
    return quote(value, safe="/")


class _Transport:
    def _request(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any],
        body: Any,
        media: Optional[Literal["json", "bytes"]],
        read: Literal["auto", "bytes", "none"],
        headers: Optional[Mapping[str, str]],
    ) -> Any:
        raise NotImplementedError


class _AsyncTransport:
    async def _request(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any],
        body: Any,
        media: Optional[Literal["json", "bytes"]],
        read: Literal["auto", "bytes", "none"],
        headers: Optional[Mapping[str, str]],
    ) -> Any:
        raise NotImplementedError
'''


def routes_classes(document: Schema, types: Types, name: str, doc: str) -> str:
    out = []
    for is_async in (False, True):
        cls = name.replace("Sync", "Async") if is_async else name
        base = "_AsyncTransport" if is_async else "_Transport"
        methods = [method_source(m, p, o, types, is_async) for m, p, o in operations(document)]
        out.append(f'class {cls}({base}):\n    """{doc}"""\n\n' + "\n".join(methods))
    return "\n\n".join(out)


def generate() -> str:
    server, fleet = read_documents()
    server_types = Types("", server["components"]["schemas"])
    fleet_types = Types("Fleet", fleet.get("components", {}).get("schemas", {}))
    server_routes = routes_classes(server, server_types, "SyncRoutes", "Every route of the desktop's server (openapi.yaml).")
    fleet_routes = routes_classes(fleet, fleet_types, "FleetSyncRoutes", "The fleet's own routes (its GET /openapi.json).")
    definitions = [d for d in list(server_types.definitions.values()) + list(fleet_types.definitions.values())]
    return "\n\n\n".join([HEADER.rstrip(), *definitions, server_routes, fleet_routes]) + "\n"


def format_source(source: str) -> str:
    ruff = PACKAGE / ".venv" / "bin" / "ruff"
    return subprocess.run(
        [str(ruff), "format", "--stdin-filename", str(TARGET), "-"],
        cwd=PACKAGE,
        input=source,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout


def main() -> int:
    source = format_source(generate())
    if "--check" in sys.argv:
        if TARGET.read_text("utf-8") != source:
            print(f"{TARGET.relative_to(PACKAGE)} is stale: run scripts/generate.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(source, "utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
