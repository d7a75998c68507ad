/**
 * Mixed load: N clients, each on its own keep-alive connection, sending what an agent sends
 * (moves, clicks, typing, key presses, scrolls, batches, a screenshot every 20th request) at
 * the application. Every piece of text a client types is a marker naming the client and the
 * request (`[c3:17]`), so the application's input shows whether each arrived whole, once and in
 * the client's order — whether requests ever interleave on the desktop.
 */
import { Http, percentile, prng, type Answer, type App, type Server } from './harness.ts'

export interface Sent { client: number, i: number, kind: string, status: number, ms: number, retryAfter: boolean, markers: string[], error?: string }

export interface LoadOptions { clients: number, durationMs: number, seed: number, deadlineMs: number, stop?: () => boolean, maxRequestsPerClient?: number }

// Nothing but markers may contain brackets: keys that type a byte never type '[' (no arrows,
// whose escape sequences do), so every '[' in the file starts a marker.
const KEYS = [['shift'], ['ctrl', 'e'], ['Return']]

export async function runLoad (server: Server, app: App, options: LoadOptions): Promise<Sent[]> {
  const sent: Sent[] = []
  const end = Date.now() + options.durationMs
  const max = options.maxRequestsPerClient ?? 1_000_000
  await Promise.all(Array.from({ length: options.clients }, async (_, client) => {
    const r = prng(options.seed * 1000 + client)
    const http = new Http(server.port, server.token, 1)
    try {
      for (let i = 0; i < max && Date.now() < end && !(options.stop?.() ?? false); i++) {
        const marker = `[c${client}:${i}]`
        let kind: string
        let path = '/computer'
        let body: unknown
        let markers: string[] = []
        const roll = r()
        if (i % 20 === 19) { kind = 'screenshot'; body = { action: 'take_screenshot' } } else if (roll < 0.2) { kind = 'move'; body = { action: 'move_mouse', coordinates: app.point(r) } } else if (roll < 0.35) { kind = 'click'; body = { action: 'click_mouse', button: 'left', coordinates: app.point(r) } } else if (roll < 0.6) { kind = 'type_text'; body = { action: 'type_text', text: marker }; markers = [marker] } else if (roll < 0.7) { kind = 'press_key'; body = { action: 'press_key', keys: KEYS[Math.floor(r() * KEYS.length)] } } else if (roll < 0.8) { kind = 'scroll'; body = { action: 'scroll', coordinates: app.point(r), delta_y: r() < 0.5 ? 3 : -3 } } else {
          kind = 'batch'
          path = '/computer/batch'
          body = { actions: [{ action: 'move_mouse', coordinates: app.point(r) }, { action: 'type_text', text: marker }, { action: 'press_key', keys: ['shift'] }] }
          markers = [marker]
        }
        const answer: Answer = await http.post(path, body, options.deadlineMs)
        sent.push({ client, i, kind, status: answer.status, ms: answer.ms, retryAfter: answer.headers['retry-after'] !== undefined, markers, ...(answer.error && { error: answer.error }) })
        // A client that got a 503 waits a little, as Retry-After asks (not its full 2 s: the
        // point is to keep the server busy while it recovers).
        if (answer.status === 503 || answer.status <= 0) await new Promise((resolve) => setTimeout(resolve, 100))
      }
    } finally { http.close() }
  }))
  return sent
}

export interface LoadFigures { requests: number, seconds: number, perSecond: number, statuses: Record<string, number>, p50: number, p99: number, max: number, byKind: Record<string, { n: number, p50: number, p99: number }> }

export function figures (sent: Sent[], durationMs: number): LoadFigures {
  const statuses: Record<string, number> = {}
  for (const s of sent) statuses[s.status] = (statuses[s.status] ?? 0) + 1
  const ms = sent.map((s) => s.ms)
  const byKind: LoadFigures['byKind'] = {}
  for (const kind of new Set(sent.map((s) => s.kind))) {
    const k = sent.filter((s) => s.kind === kind).map((s) => s.ms)
    byKind[kind] = { n: k.length, p50: round(percentile(k, 50)), p99: round(percentile(k, 99)) }
  }
  return { requests: sent.length, seconds: round(durationMs / 1000), perSecond: round(sent.length / (durationMs / 1000)), statuses, p50: round(percentile(ms, 50)), p99: round(percentile(ms, 99)), max: round(Math.max(0, ...ms)), byKind }
}

export interface MarkerReport { typed: number, found: number, missing: string[], duplicated: string[], fragments: string[], outOfOrder: string[] }

/**
 * What the application received against what was typed. Every marker of a request that was
 * answered 200 must be in the file exactly once, whole; every '[' must begin a whole marker
 * (anything else is a piece of one interleaved with other input); one client's markers must
 * appear in the order it sent them (its requests never overlap, so the queue keeps them).
 */
export function checkMarkers (file: string, sent: Sent[]): MarkerReport {
  const whole = /\[c(\d+):(\d+)\]/g
  const seen = new Map<string, number>()
  const order = new Map<number, number[]>()
  for (const m of file.matchAll(whole)) {
    seen.set(m[0], (seen.get(m[0]) ?? 0) + 1)
    const list = order.get(Number(m[1])) ?? []
    list.push(Number(m[2]))
    order.set(Number(m[1]), list)
  }
  const fragments: string[] = []
  for (let at = file.indexOf('['); at >= 0; at = file.indexOf('[', at + 1)) {
    whole.lastIndex = at
    const m = whole.exec(file)
    if (!m || m.index !== at) fragments.push(JSON.stringify(file.slice(Math.max(0, at - 10), at + 20)))
  }
  const typed = sent.filter((s) => s.status === 200).flatMap((s) => s.markers)
  const missing = typed.filter((m) => !seen.has(m))
  const duplicated = [...seen].filter(([, n]) => n > 1).map(([m]) => m)
  const outOfOrder: string[] = []
  for (const [client, list] of order) {
    for (let k = 1; k < list.length; k++) if (list[k]! <= list[k - 1]!) { outOfOrder.push(`c${client}: ${list[k - 1]} then ${list[k]}`); break }
  }
  return { typed: typed.length, found: seen.size, missing, duplicated, fragments, outOfOrder }
}

const round = (n: number) => Math.round(n * 10) / 10
