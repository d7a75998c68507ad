/**
 * pending_safety_checks: OpenAI's guide says a call that carries them must be shown to the
 * user, and the checks sent back as acknowledged_safety_checks once the user agrees. The
 * gateway holds such a call (409, nothing runs) until the query acknowledges every check.
 */
import { InvalidQuery, SafetyCheckPending } from '../../src/errors/errors.ts'
import type { PendingSafetyCheck } from './computer-call.ts'
import type { OpenaiComputerCallOutput } from './result.ts'

export type AcknowledgedSafetyCheck = NonNullable<OpenaiComputerCallOutput['acknowledged_safety_checks']>[number]

/** The checks to echo as acknowledged; throws when one is pending and not acknowledged. */
export function acknowledge (pending: readonly PendingSafetyCheck[], acknowledgement: string | undefined): AcknowledgedSafetyCheck[] {
  const all = acknowledgement?.trim().toLowerCase() === 'true'
  const ids = acknowledgement === undefined || all ? [] : acknowledgement.split(',').map((id) => id.trim()).filter(Boolean)
  const stale = ids.filter((id) => !pending.some((check) => check.id === id))
  if (stale.length) {
    const on = pending.length ? `its pending checks are ${pending.map((check) => `'${check.id}'`).join(', ')}` : 'it has none: checks come with the whole computer_call item'
    throw new InvalidQuery(`acknowledge_safety_checks names ${stale.map((id) => `'${id}'`).join(', ')}, not pending on this call (${on})`)
  }
  const open = all ? [] : pending.filter((check) => !ids.includes(check.id))
  if (open.length) {
    throw new SafetyCheckPending(`the computer_call has ${open.length === 1 ? 'a pending safety check' : `${open.length} pending safety checks`} for the user to confirm: ` +
      `${open.map(describe).join('; ')}. Nothing was run. If the user agrees, send the call again with ?acknowledge_safety_checks=true (or the ids, comma-separated)`)
  }
  return pending.map(({ id, code, message }) => ({ id, ...(code !== undefined && { code }), ...(message !== undefined && { message }) }))
}

function describe (check: PendingSafetyCheck): string {
  return `${check.id} (${check.code ?? 'no code'})${check.message ? `: ${JSON.stringify(check.message)}` : ''}`
}
