#!/bin/bash
# The image's HEALTHCHECK (installed as /usr/local/bin/computer-gateway-healthcheck): healthy when
# GET /health on $PORT answers 200 — 503 while the desktop cannot take actions, and why.
# Bash's /dev/tcp, not `node -e "fetch(…)"`: Docker runs this in every container at every
# interval, and a check that starts Node cost the host ~170 ms of CPU, this one ~70 (nearly all
# of it the engine's exec; bench/README.md, *The health check's CPU*). The read has its own
# deadline within Docker's --timeout.
set -euo pipefail
port=${PORT:-8000}
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /health HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$port" >&3
read -r -t 4 _ status _ <&3
[[ $status == 200 ]]
