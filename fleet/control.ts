/**
 * Which desktops wait for a person (docs/takeover.md): GET /desktops reads each running
 * desktop's GET /health (public: no token goes out for it) for its control lease and the
 * request_human calls waiting, all at once and each within a short deadline. A desktop that
 * does not answer in time is listed with `control: null`, never held up for.
 */
import type { DesktopView } from './schemas.ts'

export const CONTROL_READ_MS = 1000

export interface DesktopControl { taken_over: boolean, waiting: number, oldest_wait_ms: number | null }

export async function withControl (views: DesktopView[], timeoutMs = CONTROL_READ_MS): Promise<DesktopView[]> {
  return Promise.all(views.map(async (view) => {
    if (view.status !== 'running' || !view.url) return view
    return { ...view, control: await readControl(view.url, timeoutMs) }
  }))
}

async function readControl (url: string, timeoutMs: number): Promise<DesktopControl | null> {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) })
    const body = await response.json() as { control?: DesktopControl }
    const control = body.control
    if (!control || typeof control.taken_over !== 'boolean' || !Number.isInteger(control.waiting)) return null
    return { taken_over: control.taken_over, waiting: control.waiting, oldest_wait_ms: control.oldest_wait_ms ?? null }
  } catch {
    return null
  }
}
