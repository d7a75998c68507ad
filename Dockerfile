# computer-gateway with a desktop of its own (an Xvfb it starts, stops and restarts itself).
# Two images from one file:
#   docker build --network host -t computer-gateway .                    # desktop (the default):
#       an XFCE session (--desktop full) with a browser, office, editor, terminal, files
#   docker build --network host --target slim -t computer-gateway:slim . # slim: a window manager
#       only, the base to add your own applications to with FROM
#   docker run --rm -p 8000:8000 --shm-size 1g -e API_TOKEN="$(openssl rand -hex 32)" computer-gateway
# Inside the container the server listens on 0.0.0.0, which it refuses to do without a token
# (of at least 16 characters):
# pass API_TOKEN (or append --allow-unauthenticated to the command, on a trusted network only).
# Hardened, as it is meant to run: the root file system read-only, X's sockets and the session's
# runtime files in an in-memory /tmp, no capability, no privilege gained:
#   docker run --rm -p 8000:8000 --read-only --tmpfs /tmp --cap-drop ALL \
#     --security-opt no-new-privileges --shm-size 1g -e API_TOKEN=... computer-gateway
# The home, /home/node (the desktop's settings, browser profile, documents), is a declared
# VOLUME: with no -v Docker gives each container an anonymous volume of its own there, writable
# under --read-only, kept across `docker restart` and removed with the container by `docker rm
# -v` (or --rm). Name it (-v home-1:/home/node, as deploy/compose.yaml does) to keep it beyond
# the container. A home that cannot be written stops the full desktop's session at start: then
# GET /health answers 503 with that reason (and the HEALTHCHECK reports unhealthy).
# Where the base cannot be pulled, scripts/docker-base.sh assembles it from Debian and npm.
# Node 24 LTS (maintained to 2028-04-30); .ci/run runs the whole test suite under Node 24 too.
FROM node:24-bookworm-slim AS build

# Compiled here, then only the runtime dependencies kept: the stages below copy dist/ and the
# pruned node_modules, so TypeScript, the dev dependencies (the `node` package among them) and
# npm's cache stay in this stage; so do the source maps, type declarations and READMEs of the
# runtime ones (scripts/trim-node-modules.sh).
WORKDIR /app
# npm ci needs every workspace's package.json (packages/*) to match the lock file. The image is the
# server alone: without the workspaces, prune drops the agent-side package and its frameworks.
COPY package.json package-lock.json ./
COPY packages/agent/package.json packages/agent/
RUN npm ci --no-fund --no-audit
COPY . .
RUN npm run build && npm pkg delete workspaces && npm prune --omit=dev --no-fund --no-audit && sh scripts/trim-node-modules.sh node_modules

# The runtime's base: node:24-bookworm-slim with the node binary execute-only (root's, mode
# 0711), copied whole into one layer (a chmod in a layer above would add a second 127 MB copy).
# The kernel marks a process that executes a file its user cannot read as not dumpable: its
# /proc files (environ, which keeps API_TOKEN as the container was started with it; mem, maps,
# fd) become root's, and ptrace is refused, so no program of the desktop's user (a --shell
# command, an application) can read the server's token or memory. What the server starts
# (bash, Xvfb, the applications) executes readable files and is dumpable as usual.
FROM node:24-bookworm-slim AS runtime-base
RUN chmod 0711 /usr/local/bin/node

FROM scratch AS slim
COPY --from=runtime-base / /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# The same system setup as `npm run setup`, minus what only the tests use (Chromium, xterm…),
# plus tini: PID 1 must reap zombies (Xvfb's xkbcomp, xdotool, xclip) and pass signals on;
# execute-only as node is (above), since PID 1's environment holds API_TOKEN too.
# /tmp/.X11-unix is where X servers keep their sockets: made by root, sticky and
# world-writable, as X expects, since the server runs as a plain user.
# Help pages are documentation, kept in English only (C), as the base keeps no translations.
COPY scripts/install-system-deps.sh /tmp/install-system-deps.sh
RUN printf 'path-exclude /usr/share/help/*\npath-include /usr/share/help/C/*\n' >/etc/dpkg/dpkg.cfg.d/computer-gateway \
  && bash /tmp/install-system-deps.sh --server-only tini \
  && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log /tmp/install-system-deps.sh \
  && mkdir -p /tmp/.X11-unix && chmod 1777 /tmp/.X11-unix \
  && chmod 0711 /usr/bin/tini

WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin

ENV HOST=0.0.0.0 PORT=8000 NODE_ENV=production
EXPOSE 8000
# The one place the desktop writes beside /tmp (see the header): a volume even under --read-only.
# Declared last of what builds the home: a derived image's RUN that writes there afterwards is
# kept by BuildKit, discarded by the classic builder (COPY works with both).
VOLUME /home/node
# Xvfb, the nut worker and the server need no privileges.
USER node
# GET /health on $PORT from bash, not a Node process: Docker starts the check in every container
# at every interval: ~70 ms of the host's CPU a check against ~170 (scripts/healthcheck.sh).
COPY scripts/healthcheck.sh /usr/local/bin/computer-gateway-healthcheck
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s CMD ["computer-gateway-healthcheck"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# As `npm start` runs it (package.json): memory over a little speed, for many containers a host.
ENV MALLOC_ARENA_MAX=2
# The bin's shebang carries the node flags and MALLOC_ARENA_MAX: the same command as npm start.
CMD ["bin/computer-gateway.js"]

FROM slim AS desktop

# The full desktop's packages, through the same script (`npm run setup -- --desktop`); Chromium
# among them (~362 MB installed with what it adds), the browser of --browser chromium.
# CJK in one family, Noto Sans CJK (regular and bold): fontconfig gives a serif request Sans
# when Noto Serif CJK is absent, and its 53 MB would only duplicate the same glyphs.
# MathJax (46 MB with its fonts) comes with Atril, for formulas in EPUB books only; Tesseract's
# orientation data (10 MB) serves page segmentation modes 0-2, and the task agent's OCR uses 3.
USER root
COPY scripts/install-system-deps.sh /tmp/install-system-deps.sh
RUN printf 'path-exclude %s\n' '/usr/share/fonts/opentype/noto/NotoSerifCJK-*' '/usr/share/javascript/mathjax/*' \
    '/usr/share/fonts/opentype/mathjax' '/usr/share/tesseract-ocr/*/tessdata/osd.traineddata' >>/etc/dpkg/dpkg.cfg.d/computer-gateway \
  && bash /tmp/install-system-deps.sh --server-only --desktop tini \
  && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log /tmp/install-system-deps.sh
USER node
ENV DESKTOP=full
