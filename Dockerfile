# computer-gateway with its own Xvfb desktop. Build: docker build -t computer-gateway .
# Run: docker run --init -p 8000:8000 -e API_TOKEN=change-me computer-gateway
FROM node:20-bookworm-slim

# The same system setup as `npm run setup`, so CI exercises it on every run.
COPY scripts/install-system-deps.sh /tmp/install-system-deps.sh
RUN bash /tmp/install-system-deps.sh && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/* /tmp/install-system-deps.sh

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-fund --no-audit
COPY src ./src
COPY routes ./routes
COPY drivers ./drivers
COPY adapters ./adapters

# Listening beyond loopback needs a token: pass API_TOKEN (or --allow-unauthenticated).
ENV HOST=0.0.0.0 PORT=8000 NODE_ENV=production
EXPOSE 8000
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "src/server.ts"]
