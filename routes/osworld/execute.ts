/**
 * /execute, /setup/execute and /run_python: pyautogui code runs through the pyautogui dialect
 * (read, never run as Python; exact typing; the desktop's one input queue), anything else
 * through the shell when the server has one, else a 403 naming --shell.
 * /setup/execute_with_verification runs its command the same way, then waits (bounded by its
 * max_wait_time) until a window exists and/or a shell line succeeds.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { guestCommand, pythonCode, type GuestCommand } from '../../src/osworld/command.ts'
import { executeAnswer, failedAnswer, runPythonAnswer } from '../../src/osworld/execute-answer.ts'
import type { GuestExecuteResult } from '../../src/osworld/schema.ts'
import { EXECUTE_TIMEOUT_MS, shellOff } from '../../src/osworld/shell.ts'
import { clientGone } from '../run-options.ts'
import { VerificationFailed } from '../../src/errors/errors.ts'
import type { WindowInfo } from '../../src/actions/window.ts'
import { verifyUntil, type Verification } from '../../src/osworld/verification.ts'
import type { GuestDeps } from './deps.ts'

/** How long /run_python's script may run: OSWorld's own server gives it 30 s. */
const RUN_PYTHON_TIMEOUT_MS = 30_000

export const executeRoutes: FastifyPluginAsyncTypebox<GuestDeps> = async (fastify, { pyautogui, shell, executor }) => {
  /** Carries out a command the harness sent, answered in its words. */
  const carry = async (route: string, command: GuestCommand, signal: AbortSignal, timeoutMs: number): Promise<GuestExecuteResult> => {
    switch (command.kind) {
      case 'platform':
        return { status: 'success', output: 'Linux\n', error: '', returncode: 0 }
      case 'pyautogui':
        // Only the preamble (`import pyautogui; …`): Python would do nothing, and so does this.
        if (command.code === '') return { status: 'success', output: '', error: '', returncode: 0 }
        try {
          const { status, body } = await pyautogui.execute({ payload: command.code, query: { screenshot: false }, signal })
          return executeAnswer(status, body)
        } catch (error) {
          return failedAnswer(error)
        }
      case 'shell':
        if (!shell) throw shellOff(route, command.command)
        return { status: 'success', ...await shell.run(command.command, { shell: command.shell, timeoutMs }) }
    }
  }

  for (const url of ['/execute', '/setup/execute']) {
    fastify.post(url, {
      schema: { body: Type.Ref('GuestExecuteBody'), response: { 200: Type.Ref('GuestExecuteResult') } },
    }, async (request, reply) => {
      const { command, shell: asShell = false } = request.body as { command: string | string[], shell?: boolean }
      return await carry(url, guestCommand(command, asShell), clientGone(reply), EXECUTE_TIMEOUT_MS)
    })
  }

  fastify.post('/setup/execute_with_verification', {
    schema: { body: Type.Ref('GuestVerifyBody'), response: { 200: Type.Ref('GuestVerifyResult') } },
  }, async (request, reply) => {
    const { command, shell: asShell = false, verification = {}, max_wait_time: maxWait = 10, check_interval: interval = 1 } = request.body as {
      command: string | string[], shell?: boolean, verification?: Verification, max_wait_time?: number, check_interval?: number
    }
    const url = '/setup/execute_with_verification'
    // Refused before the command runs: a verification this server cannot carry out.
    if (verification.command_success !== undefined && !shell) throw shellOff(url, verification.command_success)
    const signal = clientGone(reply)
    const ran = await carry(url, guestCommand(command, asShell), signal, EXECUTE_TIMEOUT_MS)
    if (verification.window_exists === undefined && verification.command_success === undefined) return { ...ran, verification: 'none' as const, wait_time: 0 }
    const outcome = await verifyUntil(verification, {
      windowTitles: async () => {
        const outcome = await executor.run([{ action: 'list_windows' }])
        if (outcome.error) throw outcome.error
        return ((outcome.results[0]?.windows ?? []) as WindowInfo[]).map((window) => window.title)
      },
      succeeds: async (line) => (await shell!.run(line, { shell: true, timeoutMs: Math.max(1000, maxWait * 1000) })).returncode === 0,
    }, { maxWaitMs: maxWait * 1000, intervalMs: interval * 1000, signal })
    if (!outcome.passed) {
      throw new VerificationFailed(`${url}: the command ran (returncode ${ran.returncode}) but ${outcome.failing.join(' and ')} within max_wait_time ${maxWait} s`)
    }
    return { ...ran, verification: 'passed' as const, wait_time: outcome.waitedMs / 1000 }
  })

  fastify.post('/run_python', {
    schema: { body: Type.Ref('GuestRunPythonBody'), response: { 200: Type.Ref('GuestRunPythonResult') } },
  }, async (request, reply) => {
    const { code } = request.body as { code: string }
    return runPythonAnswer(await carry('/run_python', pythonCode(code), clientGone(reply), RUN_PYTHON_TIMEOUT_MS))
  })

  // Bash scripts are the shell's alone: there is no pyautogui in them to read.
  fastify.post('/run_bash_script', {
    schema: { body: Type.Ref('GuestBashBody'), response: { 200: Type.Ref('GuestExecuteResult') } },
  }, async (request) => {
    const { script, timeout = 30, working_dir: cwd } = request.body as { script: string, timeout?: number, working_dir?: string | null }
    if (!shell) throw shellOff('/run_bash_script', script)
    return { status: 'success' as const, ...await shell.run(['/bin/bash', '-c', script], { shell: false, timeoutMs: timeout * 1000, ...(cwd && { cwd }) }) }
  })
}
