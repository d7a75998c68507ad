/**
 * The lifecycle API's bodies (TypeBox), each bound stated in the schema so that a hostile value
 * is refused by validation with a message that names the bound.
 */
import { Type, type Static } from '@sinclair/typebox'

export const LIMITS = {
  minSide: 320,
  maxWidth: 3840,
  maxHeight: 2160,
  minTtlSeconds: 60,
  maxTtlSeconds: 24 * 3600,
  defaultTtlSeconds: 3600,
  maxLabels: 16,
  maxLabelValue: 256,
  maxAutostart: 8,
  maxAutostartTarget: 1024,
} as const

export const DESKTOP_ID = '^[0-9a-f]{16}$'
const LABEL_KEY = '^[a-z0-9][a-z0-9._-]{0,62}$'
/** Printable ASCII: no control bytes, no newlines, nothing a log line or a header could be split by. */
const LABEL_VALUE = `^[\\x20-\\x7e]{0,${LIMITS.maxLabelValue}}$`

export const Autostart = Type.Object({
  app: Type.String({ maxLength: 32, description: "a name launch_app knows (the full desktop's applications)" }),
  target: Type.Optional(Type.String({ maxLength: LIMITS.maxAutostartTarget, description: 'what it opens: a URL for the browser, a path under the home for the others' })),
}, { additionalProperties: false })

export const CreateDesktop = Type.Object({
  screen: Type.Optional(Type.String({
    maxLength: 9,
    description: `WIDTHxHEIGHT, width ${LIMITS.minSide}..${LIMITS.maxWidth}, height ${LIMITS.minSide}..${LIMITS.maxHeight}; default: the fleet's --screen (a create with it is served from the warm pool)`,
  })),
  ttl_seconds: Type.Optional(Type.Integer({
    minimum: LIMITS.minTtlSeconds,
    maximum: LIMITS.maxTtlSeconds,
    description: `seconds after which the fleet ends the desktop (default ${LIMITS.defaultTtlSeconds})`,
  })),
  labels: Type.Optional(Type.Record(Type.String(), Type.String({ pattern: LABEL_VALUE }), {
    maxProperties: LIMITS.maxLabels,
    propertyNames: { pattern: LABEL_KEY },
    description: `up to ${LIMITS.maxLabels} labels: keys lowercase letters, digits, '.', '_', '-' (≤ 63), values printable ASCII (≤ ${LIMITS.maxLabelValue})`,
  })),
  desktop: Type.Optional(Type.String({
    maxLength: 16,
    description: "the desktop profile, as the server's --desktop: minimal | full; default: the fleet's --desktop (a create with it is served from the warm pool)",
  })),
  browser: Type.Optional(Type.String({
    maxLength: 16,
    description: "the desktop's web browser, as the server's --browser: firefox | chromium (its DevTools at /desktops/{id}/browser/cdp); default: the fleet's --browser (a create with it is served from the warm pool)",
  })),
  autostart: Type.Optional(Type.Array(Autostart, {
    maxItems: LIMITS.maxAutostart,
    description: `up to ${LIMITS.maxAutostart} applications the desktop opens at start, as the server's --autostart: {app, target?}, app one of the full desktop's (browser, terminal, editor, …), target a URL for the browser or a path under the home. A create with any is not served from the warm pool`,
  })),
}, { additionalProperties: false })
export type CreateDesktop = Static<typeof CreateDesktop>

/**
 * OpenAPI tags of the routes that pass a desktop's own API through (typed by the desktop's
 * openapi.yaml, not the fleet's) and of the live view's page and cookie routes: clients generated
 * from the fleet's document leave both out (packages/python/scripts/generate.py).
 */
export const FORWARDED_TAG = 'forwarded'
export const LIVE_VIEW_TAG = 'live view'

export const DesktopParams = Type.Object({
  id: Type.String({ pattern: DESKTOP_ID, description: 'a desktop id: 16 lowercase hex digits' }),
}, { additionalProperties: false })

export const DesktopStatus = Type.Union([Type.Literal('starting'), Type.Literal('running'), Type.Literal('paused'), Type.Literal('terminated')])

export const DesktopView = Type.Object({
  id: Type.String(),
  status: DesktopStatus,
  screen: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
  labels: Type.Record(Type.String(), Type.String()),
  desktop: Type.String({ description: 'its profile: minimal | full' }),
  autostart: Type.Array(Autostart),
  browser: Type.String({ description: 'its web browser: firefox | chromium (DevTools at /desktops/{id}/browser/cdp)' }),
  /** The desktop's own server, for a client that wants no hop (it takes `token`). */
  url: Type.Optional(Type.String()),
  token: Type.Optional(Type.String()),
  osworld_url: Type.Optional(Type.String({ description: "with the fleet's --osworld: the desktop's OSWorld guest protocol (desktop_env's controllers), on loopback; it takes `token` as the desktop's url does" })),
  /** Why a terminated desktop ended. */
  reason: Type.Optional(Type.String()),
  /** GET /desktops only, for a running desktop: its control lease and the agents waiting for a person (fleet/control.ts). */
  control: Type.Optional(Type.Union([Type.Object({
    taken_over: Type.Boolean({ description: 'a person holds the desktop: its agent\'s actions answer 423' }),
    waiting: Type.Integer({ description: 'request_human calls waiting for a person' }),
    oldest_wait_ms: Type.Union([Type.Integer(), Type.Null()]),
  }), Type.Null()], { description: 'null when the desktop did not answer in time' })),
})
export type DesktopView = Static<typeof DesktopView>

export const DesktopList = Type.Object({ desktops: Type.Array(DesktopView) })

export const FleetHealth = Type.Object({
  ready: Type.Boolean(),
  warm: Type.Object({ ready: Type.Integer(), starting: Type.Integer(), wanted: Type.Integer() }),
  desktops: Type.Integer({ description: 'desktops handed out and not ended' }),
  max: Type.Integer(),
})

/** A create's screen, or why it is refused. */
export function parseScreen (text: string): { width: number, height: number } | string {
  const match = /^(\d{1,4})x(\d{1,4})$/.exec(text)
  const [width, height] = match ? [Number(match[1]), Number(match[2])] : [0, 0]
  if (!match || width < LIMITS.minSide || width > LIMITS.maxWidth || height < LIMITS.minSide || height > LIMITS.maxHeight) {
    return `screen must be WIDTHxHEIGHT with width ${LIMITS.minSide}..${LIMITS.maxWidth} and height ${LIMITS.minSide}..${LIMITS.maxHeight}, e.g. 1280x800 (got '${text}')`
  }
  return { width, height }
}

interface AjvError { instancePath: string, keyword: string, message?: string, params: Record<string, unknown>, propertyName?: string }

/** A refused body or path in words: which field, what is wrong with it, and what it takes. */
export function describeValidation (context: string | undefined, errors: AjvError[]): string {
  const error = errors[0]
  if (!error) return 'the request does not fit the API (GET /openapi.json)'
  const where = error.instancePath.split('/').filter(Boolean)
  if (context === 'params') return 'the desktop id in the path must be 16 lowercase hex digits, as POST /desktops answered it'
  if (where.length === 0) {
    if (error.keyword === 'additionalProperties') return `unknown field '${String(error.params.additionalProperty)}': a create takes ${Object.keys(CreateDesktop.properties).join(', ')}`
    return `the body must be a JSON object with the fields ${Object.keys(CreateDesktop.properties).join(', ')}`
  }
  const field = where[0] as keyof typeof CreateDesktop.properties
  const hint = CreateDesktop.properties[field]?.description
  if (field === 'labels' && error.propertyName !== undefined) return `labels: the key '${error.propertyName}' is not allowed: keys are 1..63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit`
  if (field === 'autostart' && where.length > 1) return `autostart[${where[1]}]${where[2] ? `.${where[2]}` : ''} ${error.keyword === 'additionalProperties' ? `has an unknown field '${String(error.params.additionalProperty)}'` : error.message ?? 'is not valid'}: an entry is {app, target?} (${CreateDesktop.properties.autostart.description})`
  if (field === 'labels' && where.length > 1) return `labels '${where.slice(1).join('/')}': a value must be printable ASCII (no control characters or line breaks), at most ${LIMITS.maxLabelValue} characters`
  const name = where.length > 1 ? `${field} '${where.slice(1).join('/')}'` : field
  return `${name} ${error.message ?? 'is not valid'}${hint ? ` (${hint})` : ''}`
}
