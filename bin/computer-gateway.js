#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2 --single-threaded-gc
// The one way to start the server: `npm start` and the image's CMD run this file, so the memory
// settings above hold for all three. They are for many servers on one host, which runs out of
// cores before memory (bench/desktops.ts): a small young generation, and collection on the main
// thread alone (V8's helper threads doubled the CPU a collection costs). --optimize-for-size
// saved memory but cost ~0.5 ms of CPU a move; bench/memory-flags.ts measures each setting.
// env -S execs node in its own place, so a signal to this PID reaches the server itself.
// `computer-gateway exec -- PROGRAM…` starts a program on a running server's desktop instead;
// `computer-gateway fleet` runs desktops on demand on the Docker engine (fleet/README.md).
import { existsSync, readFileSync } from 'node:fs'

// On a Node older than engines the server would start and then fail on real work (Node 20 has
// no ArrayBuffer.prototype.transfer: every screenshot of real content was a 500). Refuse here,
// before anything is imported, in one line that names the fix. npm's scripts (`npm start`,
// `npx computer-gateway` in the project) put the project's own Node first on PATH.
const wanted = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node
const [major, minor] = /^>=(\d+)\.(\d+)$/.exec(wanted).slice(1).map(Number)
const [m, n] = process.versions.node.split('.').map(Number)
if (m < major || (m === major && n < minor)) {
  process.stderr.write(`computer-gateway needs Node ${wanted} (a maintained LTS line), not ${process.version} (${process.execPath}): in a clone, run \`npm run setup\` once and start it with \`npm start\`, which runs the project's own Node 24; elsewhere, install Node 24 LTS and put it first on PATH\n`)
  process.exit(1)
}

// `computer-gateway fleet …` runs the fleet's control plane (fleet/main.ts) instead of a desktop.
const entry = { exec: 'src/runtime/exec', fleet: 'fleet/main' }[process.argv[2]] ?? 'src/runtime/server'
const compiled = new URL(`../dist/${entry}.js`, import.meta.url)
if (!existsSync(compiled)) {
  process.stderr.write('computer-gateway is not built: run `npm run build` (or `npm run setup`) first\n')
  process.exit(1)
}
await import(compiled.href)
