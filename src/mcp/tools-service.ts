/**
 * MCP's tools over the app's executor, for any transport: tools/list from the action schemas,
 * tools/call validated by the app's own validators and run by `executor.run` — the queue,
 * limits, scaling and nothing-held guarantee of POST /computer. A refusal or failure is a
 * tool result with `isError` and the HTTP route's message, never a protocol error: a model
 * reads it and corrects itself.
 */
import { createHash } from 'node:crypto'
import { Type, type TSchema } from '@sinclair/typebox'
import type { Logger } from 'pino'
import type { buildActionSchemas, UnifiedAction } from '../actions/index.ts'
import type { ActionResponse } from '../actions/response.ts'
import type { Validate } from '../pipeline/adapter-pipeline.ts'
import { errorBody } from '../http/error-handler.ts'
import { InvalidAction, InvalidQuery } from '../errors/errors.ts'
import type { Executor, RunOptions } from '../executor/executor.ts'
import type { Size } from '../screen/geometry.ts'
import { clientSpace } from '../screen/scaling.ts'
import { formatValidationErrors, validationFailedIndex } from '../schemas/validation.ts'
import { actionResult, batchResult, errorResult, type ToolResult } from './content.ts'
import { BATCH_TOOL, buildTools, CLIPBOARD_TOOLS, DISPLAY_ARGUMENTS, EDITOR_TOOLS, SHELL_TOOLS, WINDOW_TOOLS, type ToolDefinition } from './tools.ts'

export interface McpToolsOptions {
  executor: Executor
  actionSchemas: ReturnType<typeof buildActionSchemas>
  /** Every schema the action schemas refer to by $id. */
  shared: readonly object[]
  /** The app's validator compiler for bodies. */
  compile: (schema: TSchema) => Validate
  /** Why the window tools cannot run (no window manager), or undefined when they can. */
  windowsUnavailable: () => Promise<string | undefined>
  /** The server serves the clipboard (--clipboard): the clipboard tools are listed. */
  clipboard?: boolean
  /** The server runs commands (--shell) and edits files (--files): their tools are listed. */
  shell?: boolean
  editor?: boolean
  /** The screen size a client sees when its call declares none (default: the real screen). */
  display?: Size
  /** Ends the bash sessions of a client's scope (--shell), when its MCP session ends. */
  endShellScope?: (scope: string) => Promise<number>
  log: Logger
}

/** A client's scope for its bash sessions, from its MCP session id (any id a client sends: hashed, so it is always a safe key). */
export function mcpScope (sessionId: string): string {
  return `mcp-${createHash('sha256').update(sessionId).digest('hex').slice(0, 32)}`
}

type Arguments = Record<string, unknown>

export class McpTools {
  readonly #options: McpToolsOptions
  readonly #tools: ToolDefinition[]
  readonly #byName: Map<string, ToolDefinition>
  readonly #validateAction: Validate
  readonly #validateBatch: Validate
  readonly #validateDisplay: Validate

  constructor (options: McpToolsOptions) {
    this.#options = options
    this.#tools = buildTools(options.actionSchemas, options.shared)
    this.#byName = new Map(this.#tools.map((tool) => [tool.name, tool]))
    // The very validators of POST /computer and /computer/batch (the compiler caches by schema).
    this.#validateAction = options.compile(Type.Ref(options.actionSchemas.UnifiedAction))
    this.#validateBatch = options.compile(Type.Ref(options.actionSchemas.ActionBatch))
    this.#validateDisplay = options.compile(Type.Object(DISPLAY_ARGUMENTS))
  }

  /** The tools this desktop can run: the window tools only with a window manager, the clipboard tools only when turned on. */
  async list (): Promise<ToolDefinition[]> {
    const windows = await this.#options.windowsUnavailable().catch((error: Error) => error.message)
    return this.#tools.filter((tool) => (windows === undefined || !WINDOW_TOOLS.has(tool.name)) && (this.#options.clipboard === true || !CLIPBOARD_TOOLS.has(tool.name)) &&
      (this.#options.shell === true || !SHELL_TOOLS.has(tool.name)) && (this.#options.editor === true || !EDITOR_TOOLS.has(tool.name)))
  }

  /** `scope`: the client's (mcpScope of its session), whose bash sessions are its own. */
  async call (name: string, args: Arguments | undefined, signal?: AbortSignal, scope?: string): Promise<ToolResult> {
    const tool = this.#byName.get(name)
    if (!tool) return errorResult(`unknown tool '${name}' (one of: ${this.#tools.map((t) => t.name).join(', ')})`)
    const { display_width_px: width, display_height_px: height, ...rest } = args ?? {}
    const display = { ...(width !== undefined && { display_width_px: width }), ...(height !== undefined && { display_height_px: height }) }
    const single = tool.name !== BATCH_TOOL
    try {
      const options = { ...this.#runOptions(display, !single, signal), ...(scope !== undefined && { shellScope: scope }) }
      return single ? await this.#runOne(tool.name, rest, options) : await this.#runBatch(rest, options)
    } catch (error) {
      return this.#refused(name, error as Error)
    }
  }

  /** A client's MCP session ended: its bash sessions end with it (how many there were). */
  async endSession (scope: string): Promise<number> {
    return await this.#options.endShellScope?.(scope) ?? 0
  }

  #runOptions (display: Arguments, indexed: boolean, signal: AbortSignal | undefined): RunOptions {
    if (!this.#validateDisplay(display)) throw new InvalidQuery(formatValidationErrors(this.#validateDisplay.errors ?? [], 'arguments'))
    const fallback = this.#options.display
    // The call's own size, else the server's, checked as POST /computer checks its query.
    const declared: { display_width_px?: number, display_height_px?: number } | undefined = Object.keys(display).length
      ? display
      : fallback && { display_width_px: fallback.width, display_height_px: fallback.height }
    const { limits } = this.#options.actionSchemas
    const client = declared && clientSpace(declared, limits)
    return { ...(client && { client }), screenshot: false, ...(signal && { signal }), limits, indexed }
  }

  async #runOne (name: string, args: Arguments, options: RunOptions): Promise<ToolResult> {
    // A model reads text better than JSON: the compact tree unless it asks for the envelope.
    const action = { action: name, ...(name === 'get_accessibility_tree' && args.format === undefined && { format: 'compact' }), ...args }
    if (!this.#validateAction(action)) throw new InvalidAction(formatValidationErrors(this.#validateAction.errors ?? [], 'body'))
    const outcome = await this.#options.executor.run([action as UnifiedAction], options)
    if (outcome.error) throw outcome.error
    return actionResult(outcome.results[0]!)
  }

  async #runBatch (args: Arguments, options: RunOptions): Promise<ToolResult> {
    if (!this.#validateBatch(args)) {
      const errors = this.#validateBatch.errors ?? []
      const refusal = new InvalidAction(formatValidationErrors(errors, 'body'))
      const index = validationFailedIndex(errors)
      throw index === undefined ? refusal : Object.assign(refusal, { failedIndex: index })
    }
    const { actions } = args as { actions: UnifiedAction[] }
    const outcome = await this.#options.executor.run(actions, options)
    if (!outcome.error) return batchResult(outcome.results)
    const index = outcome.failedIndex!
    // Worded as POST /computer/batch words it.
    const message = `actions[${index}] (${actions[index]!.action}): ${errorBody(outcome.error).message}`
    this.#log(BATCH_TOOL, outcome.error, message)
    return errorResult(message, outcome.results as ActionResponse[])
  }

  #refused (name: string, error: Error): ToolResult {
    const { message } = errorBody(error)
    this.#log(name, error, message)
    return errorResult(message)
  }

  #log (tool: string, error: Error, message: string): void {
    const { statusCode, code } = errorBody(error)
    if (statusCode >= 500) this.#options.log.error({ err: error, tool }, message)
    else this.#options.log.info({ tool, code, message }, 'tool call refused')
  }
}
