/**
 * The last action the server carried out, for the live view's state panel: which route, which
 * action, how it ended and how long it took. Only names and numbers: never typed text,
 * coordinates or images.
 */
export interface LastAction {
  route: string
  /** The unified action's name, or the number of actions of a batch, when the body says. */
  action: string | null
  status: number
  ms: number
  /** When it finished (ISO 8601). */
  at: string
}

export class Activity {
  #last: (Omit<LastAction, 'at'> & { at: number }) | undefined

  /** Every action passes here: its time is written out only when the panel asks. */
  record (route: string, body: unknown, status: number, ms: number): void {
    this.#last = { route, action: actionName(body), status, ms: Math.round(ms), at: Date.now() }
  }

  get last (): LastAction | null {
    return this.#last ? { ...this.#last, at: new Date(this.#last.at).toISOString() } : null
  }
}

function actionName (body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null
  const { action, actions, type } = body as { action?: unknown, actions?: unknown, type?: unknown }
  if (typeof action === 'string') return action.slice(0, 64)
  if (typeof type === 'string') return type.slice(0, 64)
  if (Array.isArray(actions)) return `batch of ${actions.length}`
  return null
}
