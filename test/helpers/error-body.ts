/** The error body every route answers with, whole: the status, its reason phrase, the catalogue's code and the message. */
import { STATUS_CODES } from 'node:http'
import type { Test } from 'tap'

export const errorBody = (statusCode: number, code: string, message: string) => ({ statusCode, code, error: STATUS_CODES[statusCode]!, message })

export const badRequest = (code: string, message: string) => errorBody(400, code, message)

/** An injected response answered `statusCode` with the whole error body. */
export function answeredError (t: Test, response: { statusCode: number, json: () => unknown }, statusCode: number, code: string, message: string) {
  t.equal(response.statusCode, statusCode)
  t.strictSame(response.json(), errorBody(statusCode, code, message))
}
