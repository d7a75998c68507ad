/**
 * DevTools calls as steps. A /browser/cdp session whose upgrade request names an episode in
 * X-Recording-Id (Puppeteer's `connect({ headers })`, Playwright's `connectOverCDP(url, {
 * headers })`) adds one step to it per call of its client, in the order the calls ended: the
 * call's method, target session and target id, its size and its answer's, when it came and how
 * long the browser took, and the browser's error. Never a call's parameters or its result: they
 * carry typed text, cookies, page contents and screenshots (as the shell's output is not kept,
 * tool-output.ts). `connection` is the DevTools session of GET /browser (named so, as a field
 * called `session` is redacted as a secret's name). Status 200 for an answer, 502 for the browser's error answer, 504 for a call
 * the session ended before answering.
 */
import type { CdpCallRecord } from '../browser/cdp-broker.ts'
import { recordingId } from './hooks.ts'
import type { Recorder } from './recorder.ts'

export const CDP_ROUTE = '/browser/cdp'

/**
 * The episode named by `header`, started if new (400 for a bad name, 409 for an ended episode,
 * 429 past the limits: thrown before the upgrade, so the client reads why), and what records
 * each call into it; undefined without the header.
 */
export async function cdpRecording (recorder: Recorder, header: string | string[] | undefined, client: string): Promise<((call: CdpCallRecord) => void) | undefined> {
  if (header === undefined) return undefined
  const episode = recordingId(header)
  await recorder.begin(episode, client)
  return (call) => {
    recorder.commit({
      episode,
      startedAt: call.started_at,
      runs: [],
      error: null,
      response: JSON.stringify({ bytes: call.bytes_out, error: call.error, unanswered: call.unanswered }),
    }, {
      method: 'CDP',
      route: CDP_ROUTE,
      url: CDP_ROUTE,
      payload: { connection: call.session, id: call.id, method: call.method, session_id: call.session_id, target_id: call.target_id, bytes: call.bytes_in },
      status: call.unanswered !== null ? 504 : call.error !== null ? 502 : 200,
      ms: call.ms,
    })
  }
}
