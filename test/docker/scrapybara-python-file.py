"""The Scrapybara Python SDK's file and code.execute, unchanged, against the fleet (run by test/docker/fleet-scrapybara.ts).

Only its base URL and key are the fleet's (FLEET_URL, FLEET_KEY); the instance is one the test
started (INSTANCE_ID), with a link `out` in its home pointing out of it. Prints one JSON line per
step: each answer as the SDK returned it, or a refusal's status and code.
"""

import base64
import json
import os

from scrapybara import Scrapybara
from scrapybara.core.api_error import ApiError

client = Scrapybara(api_key=os.environ["FLEET_KEY"], base_url=os.environ["FLEET_URL"], timeout=120)
instance = client.get(os.environ["INSTANCE_ID"])


def plain(answer):
    """The SDK's answer as JSON: its FileResponse model (fields it left unset dropped), or what it returned as is."""
    return answer.dict(exclude_none=True) if hasattr(answer, "dict") else answer


def step(name, call):
    try:
        answer = plain(call())
    except ApiError as error:
        answer = {"status": error.status_code, "code": (error.body or {}).get("code")}
    print(json.dumps({name: answer}), flush=True)


step("write", lambda: instance.file(command="write", path="py/notes.txt", content="alpha\nbeta\n"))
step("read", lambda: instance.file(command="read", path="/home/node/py/notes.txt"))
raw = bytes([0, 159, 255, 10])
step("write base64", lambda: instance.file(command="write", path="py/raw.bin", content=base64.b64encode(raw).decode(), encoding="base64"))
step("read base64", lambda: base64.b64decode(instance.file(command="read", path="py/raw.bin", encoding="base64").output) == raw)
step("replace", lambda: instance.file(command="replace", path="py/notes.txt", old_str="beta", new_str="gamma", all_occurrences=True))
step("grep", lambda: instance.file(command="grep", path="py", pattern="^(alpha|gamma)$", recursive=True))
step("dotdot", lambda: instance.file(command="read", path="../../etc/passwd"))
step("link out", lambda: instance.file(command="read", path="out/passwd"))
step("code", lambda: instance.code.execute(code="total = 20"))
step("code again", lambda: instance.code.execute(code="total + 22"))
step("code timeout", lambda: instance.code.execute(code="import time\ntime.sleep(30)", timeout=1))
