/**
 * --record: a person's span on the desktop, marked in every episode recording at the time as a
 * step of its own, as the agent's actions are (takeover, then release with how long it lasted).
 * The person's message to the agent is not kept: it is theirs, and may name a secret.
 */
import type { Recorder } from '../recording/recorder.ts'
import type { ControlEvent } from './lease.ts'

export function controlMarks (recorder: Recorder): (event: ControlEvent) => void {
  return (event) => {
    if (event.type === 'takeover') {
      recorder.mark('/control/takeover', { holder: event.lease.holder, since: event.lease.since, via: event.lease.via })
    } else if (event.type === 'release') {
      recorder.mark('/control/release', { holder: event.lease.holder, since: event.lease.since, reason: event.reason, held_ms: event.held_ms })
    }
  }
}
