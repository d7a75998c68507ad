/**
 * Scrapybara's file and code tools under its own paths, as /computer's is (its SDKs send
 * x-api-key; the instance id is ignored: one server is one instance), so `instance.file(...)`
 * and `client.code.execute(...)` work against this server and, forwarded, against the fleet.
 * /file runs src/files/commands.ts over the home jail (--files; its writes 423 while a person
 * holds the desktop, as /files writes); /code/execute runs the code in a persistent python3
 * kernel per kernel name through the shell (--shell; 423 likewise): as the desktop's user, in
 * its home, bounded by --shell-timeout, --shell-max-timeout and --shell-max-output, the
 * kernel's variables kept from one call to the next until it times out, exits or the server ends.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { ControlLease } from '../src/control/lease.ts'
import { InvalidAction, ToolOff } from '../src/errors/errors.ts'
import type { FileCommands } from '../src/files/commands.ts'
import { FileRequest, FileResponse } from '../src/files/command-table.ts'
import { ErrorBody } from '../src/schemas/error-body.ts'
import type { ShellService } from '../src/shell/service.ts'
import { CodeExecuteRequest, CodeExecuteResponse, KERNELS } from '../src/shell/code-schema.ts'
import { clientGone } from './run-options.ts'

const FILES_OFF = 'the file tool is off on this server: start it with --files (env FILES=1) and --home, the directory it works in'
const SHELL_OFF = "code execution is off on this server: start it with --shell (env SHELL_TOOL=1), which runs the code as the desktop's user in --home"

const params = Type.Object({ instance_id: Type.String({ description: 'Ignored: one server is one instance.' }) })
const errors = { '4xx': Type.Ref(ErrorBody), '5xx': Type.Ref(ErrorBody) }
const config = { acceptsApiKeyHeader: true }
const tags = ['compatibility']

/** The SDKs send an option they were not given as null: absent, as the seed's own API takes it. */
const withoutNulls = async (request: { body: unknown }) => {
  const body = request.body
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) request.body = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null))
}

export const scrapybaraToolRoutes: FastifyPluginAsyncTypebox<{ files?: FileCommands | undefined, shell?: ShellService | undefined, control: ControlLease }> = async (fastify, { files, shell, control }) => {
  fastify.post('/v1/instance/:instance_id/file', {
    config,
    preValidation: withoutNulls,
    schema: {
      summary: "Scrapybara's file tool over the desktop's home (--files): read, write, append, exists, list, mkdir, delete, move, copy, view, create, replace, insert, delete_lines, grep",
      description: 'Each command\'s fields are in the Scrapybara section of the fleet\'s README. Paths are under the home (relative, or absolute inside it): `..` and links out answer 403. Writes answer 423 while a person holds the desktop.',
      tags,
      params,
      body: FileRequest,
      response: { 200: FileResponse, ...errors },
    },
  }, async (request) => {
    if (!files) throw new ToolOff(FILES_OFF)
    return files.run(request.body)
  })

  fastify.post('/v1/instance/:instance_id/code/execute', {
    config,
    preValidation: withoutNulls,
    schema: {
      summary: "Scrapybara's code.execute (--shell): Python in a persistent python3 kernel per kernel name, as the desktop's user",
      tags,
      params,
      body: CodeExecuteRequest,
      response: { 200: CodeExecuteResponse, ...errors },
    },
  }, async (request, reply) => {
    if (!shell) throw new ToolOff(SHELL_OFF)
    const { code, kernel_name: kernel = 'python3', timeout } = request.body
    if (!(KERNELS as readonly string[]).includes(kernel)) throw new InvalidAction(`kernel_name '${kernel}' is not served: the kernels are ${KERNELS.join(', ')}`)
    const timeoutMs = timeout === undefined ? shell.limits.timeoutMs : Math.round(timeout * 1000)
    if (timeoutMs > shell.limits.maxTimeoutMs) throw new InvalidAction(`timeout ${timeout} s is over this server's limit of ${shell.limits.maxTimeoutMs / 1000} s (--shell-max-timeout)`)
    control.assertAgentMayAct()
    await shell.check()
    const result = await shell.kernel(kernel, code, timeoutMs, clientGone(reply))
    const problems = [result.stderr.replace(/\n$/, ''), result.ended ?? ''].filter(Boolean)
    return {
      output: result.stdout,
      error: problems.length ? problems.join('\n') : null,
      status: result.ended ? 'ended' as const : result.exit_code === 0 ? 'ok' as const : 'error' as const,
      kernel_name: kernel,
      truncated: result.truncated,
    }
  })
}
