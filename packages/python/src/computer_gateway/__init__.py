"""computer-gateway's Python client: `Client`/`AsyncClient` for every route of a desktop's server
(generated from openapi.yaml), `FleetClient`/`AsyncFleetClient` for the fleet, errors as
`GatewayError`. The frameworks' integrations are submodules: `computer_gateway.openai_agents`,
`computer_gateway.anthropic`, `computer_gateway.pyautogui`."""

from ._client import AsyncClient, AsyncFleetClient, Client, FleetClient, decode_image, retry_after_seconds, to_image
from ._errors import GatewayError

__all__ = [
    "AsyncClient",
    "AsyncFleetClient",
    "Client",
    "FleetClient",
    "GatewayError",
    "decode_image",
    "retry_after_seconds",
    "to_image",
]
