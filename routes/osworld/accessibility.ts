/** /accessibility (the tree in OSWorld's XML) and /terminal (the focused terminal's text). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { byApplication, osworldTree } from '../../src/osworld/atspi-xml.ts'
import { terminalText } from '../../src/osworld/terminal.ts'
import type { AccessibilitySource, RawNode, RawWindow } from '../../src/accessibility/source.ts'
import type { GuestDeps } from './deps.ts'

/** OSWorld's server walks 50 levels deep; nodes are bounded too, as a tree of a huge spreadsheet is. */
const LIMITS = { maxDepth: 50, maxNodes: 20_000 }

async function walkAll (source: AccessibilitySource): Promise<{ windows: RawWindow[], roots: RawNode[] }> {
  const windows = await source.windows()
  const { roots } = await source.walk(windows.map((window) => window.ref), LIMITS)
  return { windows, roots }
}

export const accessibilityRoutes: FastifyPluginAsyncTypebox<GuestDeps> = async (fastify, { accessibility }) => {
  fastify.get('/accessibility', {
    schema: { response: { 200: Type.Ref('GuestAccessibility') } },
    // Sent as built: a schema serializer would only copy a string of megabytes.
    serializerCompiler: () => (data) => JSON.stringify(data),
  }, async () => {
    const { windows, roots } = await walkAll(accessibility)
    return { AT: osworldTree(byApplication(windows, roots)) }
  })

  fastify.get('/terminal', { schema: { response: { 200: Type.Ref('GuestTerminal') } } }, async () => {
    const { windows, roots } = await walkAll(accessibility)
    return { output: terminalText(windows, roots), status: 'success' as const }
  })
}
