#!/usr/bin/env node
// The CLI: the server as `npm run build` compiled it to dist/ (npm run setup builds it).
import { existsSync } from 'node:fs'

const server = new URL('../dist/src/server.js', import.meta.url)
if (!existsSync(server)) {
  process.stderr.write('computer-gateway is not built: run `npm run build` (or `npm run setup`) first\n')
  process.exit(1)
}
await import(server.href)
