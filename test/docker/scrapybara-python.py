"""The Scrapybara Python SDK, unchanged, against the fleet (run by test/docker/fleet-isolation.ts).

Only its base URL and key are the fleet's (FLEET_URL, FLEET_KEY). Prints one JSON line per step:
the instance started, the click (its error, and whether the cursor is where it clicked), the
screenshot's PNG size, and the status stop answers.
"""

import base64
import json
import os
import re
import struct
import time

from scrapybara import Scrapybara

client = Scrapybara(api_key=os.environ["FLEET_KEY"], base_url=os.environ["FLEET_URL"], timeout=120)
instance = client.start_ubuntu(timeout_hours=1)
try:
    # A cold start answers deploying; the fleet says running once the desktop acts.
    deadline = time.monotonic() + 240
    while client.get(instance.id).status != "running":
        if time.monotonic() > deadline:
            raise SystemExit("the instance did not run within 240 s")
        time.sleep(1)
    print(json.dumps({"id": instance.id, "status": client.get(instance.id).status}), flush=True)

    clicked = instance.computer(action="click_mouse", button="left", coordinates=[500, 400])
    cursor = instance.computer(action="get_cursor_position")
    at = re.findall(r"\d+", cursor.output or "")
    print(json.dumps({"clicked": clicked.error, "cursor": at[:2] == ["500", "400"]}), flush=True)

    png = base64.b64decode(instance.screenshot().base_64_image)
    # A PNG's IHDR: the signature (8 bytes), the chunk's length and type (8), then width and height.
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "the screenshot is a PNG"
    width, height = struct.unpack(">II", png[16:24])
    print(json.dumps({"screenshot": [width, height]}), flush=True)
finally:
    stopped = instance.stop()
print(json.dumps({"stopped": stopped.status}), flush=True)
