#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2 --single-threaded-gc
// The one way to start the server: `npm start` and the image's CMD run this file, so the memory
// settings above hold for all three. They are for many servers on one host, which runs out of
// cores before memory (bench/desktops.ts): a small young generation, and collection on the main
// thread alone (V8's helper threads doubled the CPU a collection costs). --optimize-for-size
// saved memory but cost ~0.5 ms of CPU a move; bench/memory-flags.ts measures each setting.
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
