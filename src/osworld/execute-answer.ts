/**
 * The pyautogui dialect's answer in the words OSWorld's harness reads. Its server runs
 * `python -c` and answers 200 whatever the program did, the outcome in `returncode` and
 * `error` (stderr); so here: every call ran → returncode 0; a call refused or failed → 1, with
 * the dialect's message as the error, as a Python traceback would have been. A desktop that is
 * down (5xx), or taken over by a person (423), is no outcome of the code: it is answered with
 * its own status, which the harness retries.
 */
import type { ErrorBody } from '../schemas/error-body.ts'
import type { GuestExecuteResult, GuestRunPythonResult } from './schema.ts'
import { MAX_RETRY_AFTER_SECONDS } from '../control/lease.ts'

interface Failure extends Error { statusCode?: number }

/** The pipeline's status and native body (PyautoguiResult: its `error` null or an ErrorBody). */
export function executeAnswer (status: number, body: unknown): GuestExecuteResult {
  const error = (body as { error?: ErrorBody | null } | null)?.error ?? null
  if (status >= 500 || status === 423) {
    throw Object.assign(new Error(error?.message ?? 'the desktop failed'), {
      statusCode: status, code: error?.code ?? 'ERR_INTERNAL',
      // The dialect's answer has no headers: a takeover's Retry-After is the lease's cap.
      ...(status === 423 && { retryAfterSeconds: MAX_RETRY_AFTER_SECONDS }),
    })
  }
  if (status < 300 && error === null) return { status: 'success', output: '', error: '', returncode: 0 }
  return { status: 'success', output: '', error: `${error?.code ?? 'ERR_INVALID_PAYLOAD'}: ${error?.message ?? `refused (${status})`}\n`, returncode: 1 }
}

/** A refusal thrown before anything ran (code the dialect cannot read, a bad point): returncode 1; anything else is thrown on. */
export function failedAnswer (error: unknown): GuestExecuteResult {
  const { statusCode, code } = error as Failure & { code?: string }
  if (typeof statusCode !== 'number' || statusCode >= 500 || statusCode === 423) throw error
  return { status: 'success', output: '', error: `${code ?? 'ERR_INVALID_PAYLOAD'}: ${(error as Error).message}\n`, returncode: 1 }
}

/** /run_python's shape: status by the return code, stdout and stderr apart and together. */
export function runPythonAnswer ({ output, error, returncode }: GuestExecuteResult): GuestRunPythonResult {
  return {
    status: returncode === 0 ? 'success' : 'error',
    message: output && error ? `${output}\n${error}` : output || error,
    need_more: false,
    output,
    error,
    return_code: returncode,
  }
}
