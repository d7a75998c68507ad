/**
 * Prints the fleet's OpenAPI document (what `computer-gateway fleet` serves at GET /openapi.json)
 * as JSON, for scripts/generate.py: the fleet's routes come from its own TypeBox schemas, as the
 * server's come from openapi.yaml. The fleet is built, never started: no engine is needed.
 */
import { buildFleetApp } from '../../../fleet/app.ts'
import { Fleet } from '../../../fleet/fleet.ts'
import type { Backend } from '../../../fleet/backends/backend.ts'

// Never called: the document is read before anything is started.
const backend = {} as Backend
const fleet = new Fleet({ backend, warm: 0, max: 1, screen: { width: 1280, height: 800 }, probe: async () => false, startTimeoutMs: 1000, sweepMs: 60_000 })
const app = await buildFleetApp({ fleet })
await app.ready()
process.stdout.write(JSON.stringify(app.swagger(), null, 2) + '\n')
await app.close()
