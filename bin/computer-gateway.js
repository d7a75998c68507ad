#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2 --optimize-for-size
// The one way to start the server: `npm start` and the image's CMD run this file, so the memory
// settings above (memory over a little speed, for many servers on one host) hold for all three.
// env -S execs node in its own place, so a signal to this PID reaches the server itself.
// `computer-gateway exec -- PROGRAM…` starts a program on a running server's desktop instead.
import { existsSync } from 'node:fs'

const entry = process.argv[2] === 'exec' ? 'exec' : 'server'
const compiled = new URL(`../dist/src/runtime/${entry}.js`, import.meta.url)
if (!existsSync(compiled)) {
  process.stderr.write('computer-gateway is not built: run `npm run build` (or `npm run setup`) first\n')
  process.exit(1)
}
await import(compiled.href)
