/**
 * Scrapybara's code.execute as the server serves it (routes/scrapybara-tools.ts) and the fleet
 * forwards it: the request its SDKs send (`code`, `kernel_name`, `timeout`), and our answer,
 * which the SDKs leave untyped.
 */
import { Type, type Static } from '@sinclair/typebox'

/** The kernels served: a python3 process kept per name. */
export const KERNELS = ['python3'] as const

export const CodeExecuteRequest = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 1_000_000, description: 'Python source, run in the kernel as a notebook cell is: the last expression\'s value is shown.' }),
  kernel_name: Type.Optional(Type.String({ description: "The kernel: 'python3' (the default). Its variables last from one call to the next." })),
  timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'Seconds; default --shell-timeout, at most --shell-max-timeout. Past it the kernel is killed (its variables lost) and the answer says so.' })),
}, { additionalProperties: false })

export const CodeExecuteResponse = Type.Object({
  output: Type.String({ description: 'What the code printed on stdout, then the last expression\'s value (its repr), as a notebook shows it.' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'What it printed on stderr (a traceback after an exception), and why the kernel ended when it did; null when nothing.' }),
  status: Type.Union([Type.Literal('ok'), Type.Literal('error'), Type.Literal('ended')], { description: 'ok; error: it raised an exception (the kernel goes on); ended: it timed out or exited, and the next call starts a new kernel.' }),
  kernel_name: Type.String(),
  truncated: Type.Boolean({ description: 'stdout or stderr was longer than --shell-max-output: what is shown is its start.' }),
})
export type CodeExecuteRequest = Static<typeof CodeExecuteRequest>
