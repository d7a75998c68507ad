/**
 * Scrapybara's bash, edit and env tools on the fleet, as the Scrapybara SDK calls them
 * (`instance.bash`, `instance.edit`, `instance.env.get/set/delete`), translated to the desktop's
 * own unified actions (`bash`, `edit`) and sent with the desktop's token. bash and env need the
 * fleet's --shell (its desktops then run the server's --shell); edit is the desktop's text
 * editor over its home, which every fleet desktop serves (FILES=1), as /desktops/{id}/files does.
 *
 * The environment variables `env.set` gives are the fleet's to keep, per instance, and are put
 * before each later bash command (`unset` for deleted names, `export` for the rest), so they
 * reach the persistent session whatever it ran before. They live in the fleet's memory: a fleet
 * restarted forgets them, and they end with the instance.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import { errorBody, replyFailure } from '../../src/http/error-handler.ts'
import { InvalidDesktopRequest, NotImplemented, ToolOff } from '../../src/errors/errors.ts'
import { ErrorBody } from '../../src/schemas/error-body.ts'
import type { Fleet } from '../fleet.ts'
import { InstanceParams } from './schemas.ts'

export const SHELL_OFF = "bash and env need the fleet's shell: start the fleet with --shell (env FLEET_SHELL=1), which starts every desktop with the server's --shell (commands as the desktop's user in its home)"

const MAX_VARIABLES = 256
const MAX_VALUE = 32_768
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/

export const BashRequest = Type.Object({
  command: Type.Optional(Type.String()),
  session: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999 })),
  restart: Type.Optional(Type.Boolean()),
  list_sessions: Type.Optional(Type.Boolean()),
  check_session: Type.Optional(Type.Integer()),
  timeout: Type.Optional(Type.Number()),
}, { additionalProperties: false })

export const EditRequest = Type.Object({
  command: Type.Union(['view', 'create', 'str_replace', 'insert', 'undo_edit'].map((c) => Type.Literal(c))),
  path: Type.String(),
  file_text: Type.Optional(Type.String()),
  view_range: Type.Optional(Type.Array(Type.Integer())),
  old_str: Type.Optional(Type.String()),
  new_str: Type.Optional(Type.String()),
  insert_line: Type.Optional(Type.Integer()),
}, { additionalProperties: false })

const EnvSetRequest = Type.Object({ variables: Type.Record(Type.String(), Type.String()) }, { additionalProperties: false })
const EnvDeleteRequest = Type.Object({ keys: Type.Array(Type.String()) }, { additionalProperties: false })

/** Scrapybara's BashResponse / EditResponse: what the tool printed, and what went wrong. */
const ToolResponse = Type.Object({ output: Type.Optional(Type.String()), error: Type.Optional(Type.String()), system: Type.Optional(Type.String()) })
const EnvGetResponse = Type.Object({ variables: Type.Record(Type.String(), Type.String()) })
const EnvResponse = Type.Object({ status: Type.String(), message: Type.String() })

/** The fields each route takes, in the words its 400 uses. */
const TAKES: Record<string, string> = {
  bash: 'command (string), session (integer 0..999999), restart (boolean), timeout (seconds)',
  edit: "command ('view', 'create', 'str_replace', 'insert' or 'undo_edit'), path (string), file_text, old_str, new_str (strings), view_range ([first, last]), insert_line (integer)",
  env: 'variables (an object of names to string values)',
  'env/delete': 'keys (a list of names)',
}

interface CommandResult { exit_code: number | null, stdout: string, stderr: string, timed_out: boolean }
interface Unified { output?: string, command_result?: CommandResult }

/** A value single-quoted for bash: nothing in it is interpreted. */
const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`

export const scrapybaraShellRoutes: FastifyPluginAsyncTypebox<{ fleet: Fleet, shell: boolean }> = async (scope, { fleet, shell }) => {
  /** Per instance: the variables set, and the names deleted since (unset in the session too). */
  const environments = new Map<string, { variables: Map<string, string>, unset: Set<string> }>()

  scope.setErrorHandler(function (caught: FastifyError, request, reply) {
    const route = request.url.replace(/^\/v1\/instance\/[^/]+\//, '').split('?')[0]!
    const first = caught.validation?.[0]
    const field = first?.instancePath.split('/').filter(Boolean).join('.') || (first?.keyword === 'additionalProperties' ? String(first.params.additionalProperty) : '')
    const error = caught.validation
      ? new InvalidDesktopRequest(caught.validationContext === 'params'
        ? 'the instance id in the path must be 16 lowercase hex digits, as POST /v1/start answered it'
        : `${field ? `'${field}' ${first?.keyword === 'additionalProperties' ? 'is not a field' : first?.message ?? 'does not fit'}: ` : ''}/${route} takes ${TAKES[route] ?? 'a JSON object'}`)
      : caught
    const body = errorBody(error)
    replyFailure(reply, body, caught)
    return reply.send(body)
  })

  const config = { acceptsApiKeyHeader: true }
  const tags = ['scrapybara']
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody, 501: ErrorBody, 503: ErrorBody }

  const requireShell = () => { if (!shell) throw new ToolOff(SHELL_OFF) }
  const environment = (id: string) => {
    // Instances that ended take their variables with them.
    for (const known of environments.keys()) {
      if (known !== id && fleet.list().every((view) => view.id !== known)) environments.delete(known)
    }
    let env = environments.get(id)
    if (!env) environments.set(id, env = { variables: new Map(), unset: new Set() })
    return env
  }

  /** One unified action on the instance's desktop: its answer, or the desktop's error relayed as it is. */
  async function act (id: string, action: Record<string, unknown>, reply: FastifyReply): Promise<Unified | undefined> {
    const { url, token } = fleet.target(id, `POST /v1/instance/${id}/resume`)
    const response = await fetch(`${url}/computer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(action),
    })
    if (response.ok) return await response.json() as Unified
    reply.code(response.status).header('content-type', response.headers.get('content-type') ?? 'application/json')
    await reply.send(Buffer.from(await response.arrayBuffer()))
    return undefined
  }

  scope.post('/v1/instance/:instance_id/bash', {
    config,
    schema: { summary: "Run a command in the instance's persistent bash session (Scrapybara's bash tool; the fleet's --shell)", tags, params: InstanceParams, body: BashRequest, response: { 200: ToolResponse, ...errors } },
  }, async (request, reply) => {
    requireShell()
    const id = request.params.instance_id
    const { command, session, restart, list_sessions: list, check_session: check, timeout } = request.body
    if (list || check !== undefined) throw new NotImplemented('list_sessions and check_session are not served: sessions are named by their number; run a command in one, or restart it')
    if ((command === undefined) === (restart !== true)) throw new InvalidDesktopRequest('/bash needs exactly one of command or restart: true')
    fleet.get(id)
    const env = environments.get(id)
    const prefix = env && command !== undefined
      ? [...(env.unset.size ? [`unset ${[...env.unset].join(' ')}`] : []), ...(env.variables.size ? [`export ${[...env.variables].map(([k, v]) => `${k}=${quote(v)}`).join(' ')}`] : [])].join('; ')
      : ''
    const answer = await act(id, {
      action: 'bash',
      ...(command !== undefined ? { command: prefix ? `${prefix}\n${command}` : command } : { restart: true }),
      ...(session !== undefined && { session: String(session) }),
      ...(timeout !== undefined && { timeout }),
    }, reply)
    if (!answer) return reply
    const result = answer.command_result
    if (!result) return { output: answer.output ?? '' }
    const problems = [
      result.stderr.replace(/\n$/, ''),
      result.timed_out ? answer.output ?? 'timed out' : result.exit_code !== null && result.exit_code !== 0 ? `exit code ${result.exit_code}` : '',
    ].filter(Boolean)
    return { output: result.stdout, ...(problems.length && { error: problems.join('\n') }) }
  })

  scope.post('/v1/instance/:instance_id/edit', {
    config,
    schema: { summary: "View, create and edit files in the instance's home (Scrapybara's edit tool: Anthropic's text editor)", tags, params: InstanceParams, body: EditRequest, response: { 200: ToolResponse, ...errors } },
  }, async (request, reply) => {
    const { command, new_str: newStr, ...rest } = request.body
    // Anthropic's reference editor, which Scrapybara's follows, takes insert's text as new_str.
    const action = { action: 'edit', command, ...rest, ...(newStr !== undefined && (command === 'insert' ? { insert_text: newStr } : { new_str: newStr })) }
    const answer = await act(request.params.instance_id, action, reply)
    return answer ? { output: answer.output ?? '' } : reply
  })

  scope.get('/v1/instance/:instance_id/env', {
    config,
    schema: { summary: "The environment variables set for the instance's later bash commands", tags, params: InstanceParams, response: { 200: EnvGetResponse, ...errors } },
  }, async (request) => {
    requireShell()
    fleet.get(request.params.instance_id)
    return { variables: Object.fromEntries(environments.get(request.params.instance_id)?.variables ?? []) }
  })

  scope.post('/v1/instance/:instance_id/env', {
    config,
    schema: { summary: "Set environment variables for the instance's later bash commands", tags, params: InstanceParams, body: EnvSetRequest, response: { 200: EnvResponse, ...errors } },
  }, async (request) => {
    requireShell()
    const id = request.params.instance_id
    fleet.target(id, `POST /v1/instance/${id}/resume`)
    const given = Object.entries(request.body.variables)
    for (const [name, value] of given) {
      if (!NAME.test(name)) throw new InvalidDesktopRequest(`variables: '${name}' is not a variable name (a letter or '_', then letters, digits or '_', at most 128)`)
      if (value.length > MAX_VALUE || value.includes('\0')) throw new InvalidDesktopRequest(`variables.${name}: a value is at most ${MAX_VALUE} characters, without NUL`)
    }
    const env = environment(id)
    const names = new Set([...env.variables.keys(), ...given.map(([name]) => name)])
    if (names.size > MAX_VARIABLES) throw new InvalidDesktopRequest(`an instance keeps at most ${MAX_VARIABLES} variables (this would make ${names.size}): delete some first`)
    for (const [name, value] of given) { env.variables.set(name, value); env.unset.delete(name) }
    return { status: 'success', message: `${given.length} variable${given.length === 1 ? '' : 's'} set` }
  })

  scope.post('/v1/instance/:instance_id/env/delete', {
    config,
    schema: { summary: "Delete environment variables from the instance's later bash commands", tags, params: InstanceParams, body: EnvDeleteRequest, response: { 200: EnvResponse, ...errors } },
  }, async (request) => {
    requireShell()
    const id = request.params.instance_id
    fleet.target(id, `POST /v1/instance/${id}/resume`)
    for (const name of request.body.keys) if (!NAME.test(name)) throw new InvalidDesktopRequest(`keys: '${name}' is not a variable name`)
    const env = environment(id)
    let deleted = 0
    for (const name of request.body.keys) {
      if (env.variables.delete(name)) { env.unset.add(name); deleted++ }
    }
    // Names to unset are kept as many as variables may be: the oldest are long gone from any session that ran since.
    for (const name of env.unset) { if (env.unset.size <= MAX_VARIABLES) break; env.unset.delete(name) }
    return { status: 'success', message: `${deleted} variable${deleted === 1 ? '' : 's'} deleted` }
  })
}
