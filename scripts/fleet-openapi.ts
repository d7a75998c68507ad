/**
 * The fleet's OpenAPI document (fleet/openapi.yaml), from the fleet app's TypeBox schemas as
 * the server's is from its own (scripts/openapi.ts, whose `npm run openapi` writes both), and
 * the fleet client's types (packages/agent/src/fleet/openapi.ts) from it.
 */
import { buildFleetApp } from '../fleet/app.ts'
import { Fleet } from '../fleet/fleet.ts'
import type { Backend } from '../fleet/backends/backend.ts'

/** The document needs the routes alone: an engine that is never called. */
const NO_ENGINE: Backend = {
  create: () => Promise.reject(new Error('no engine')),
  claim: () => Promise.reject(new Error('no engine')),
  inspect: async () => undefined,
  list: async () => [],
  remove: async () => {},
  pause: () => Promise.reject(new Error('no engine')),
  unpause: () => Promise.reject(new Error('no engine')),
  watch: () => () => {},
}

export async function generateFleetOpenapi (): Promise<string> {
  const fleet = new Fleet({ backend: NO_ENGINE, warm: 0, max: 1, screen: { width: 1280, height: 800 }, probe: async () => false, startTimeoutMs: 1, sweepMs: 1 })
  const app = await buildFleetApp({ fleet, token: 'document-only' })
  await app.ready()
  const yaml = app.swagger({ yaml: true })
  await app.close()
  return yaml
}
