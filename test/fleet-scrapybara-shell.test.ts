/**
 * Scrapybara's bash, edit and env on the fleet (fleet/scrapybara/shell.ts) over the in-memory
 * backend: the `scrapybara` SDK, unchanged, calls them; each reaches the desktop as the unified
 * action it translates to (whole body, with the desktop's token), and the desktop's unified
 * answer comes back in Scrapybara's shape. The desktops answer as the server does
 * (computerAnswer); the real server behind a real fleet: test/docker/fleet-scrapybara.ts.
 */
import t, { type Test } from 'tap'
import { ScrapybaraClient, ScrapybaraError } from 'scrapybara'
import { errorBody } from './helpers/error-body.ts'
import { KEY, startFleet, until } from './helpers/fleet.ts'

const invalid = (message: string) => errorBody(400, 'ERR_INVALID_DESKTOP_REQUEST', message)
const result = (fields: Partial<{ exit_code: number | null, stdout: string, stderr: string, timed_out: boolean }>) =>
  ({ exit_code: 0, signal: null, stdout: '', stderr: '', stdout_bytes: 0, stderr_bytes: 0, truncated: false, timed_out: false, ...fields })

/** What a desktop's server answers to each unified action the tests send (its shape, with its words). */
function answer (action: Record<string, unknown>): { status: number, body: unknown } {
  const base = { error: null, base64_image: null, cursor_position: [640, 400] }
  if (action.action === 'bash' && action.restart) return { status: 200, body: { ...base, output: 'tool has been restarted.' } }
  if (action.action === 'bash') {
    const command = String(action.command)
    if (command.endsWith('sleep 100')) return { status: 200, body: { ...base, output: 'timed out: the command did not return within 2 s, so the bash session and everything it started were killed; the next command starts a new session', command_result: result({ exit_code: null, timed_out: true }) } }
    if (command.endsWith('exit 3')) return { status: 200, body: { ...base, output: 'the command exited with code 3', command_result: result({ exit_code: 3, stderr: 'oops\n' }) } }
    return { status: 200, body: { ...base, output: 'the command exited with code 0', command_result: result({ stdout: 'hi\n' }) } }
  }
  if (action.action === 'edit' && action.path === 'missing.txt') {
    return { status: 400, body: errorBody(400, 'ERR_INVALID_ACTION', 'The path missing.txt does not exist. Please provide a valid path.') }
  }
  if (action.action === 'edit') return { status: 200, body: { ...base, output: `edited ${String(action.path)}` } }
  return { status: 500, body: { unexpected: action } }
}

async function listening (t: Test, shell: boolean) {
  const fleet = await startFleet(t, { max: 2, shell })
  fleet.backend.computerAnswer = answer
  await fleet.app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(fleet.app.server.address() as { port: number }).port}`
  const client = new ScrapybaraClient({ apiKey: KEY, environment: base })
  const instance = await client.startUbuntu()
  await until(t, 'it runs', async () => (await client.get(instance.id)).status === 'running')
  const raw = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': KEY, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
    return [response.status, await response.json()]
  }
  return { ...fleet, client, instance, raw, token: fleet.backend.held.get(instance.id)!.facts.token }
}

const thrown = async (call: Promise<unknown>) => {
  const error = await call.then(() => undefined, (e: unknown) => e)
  return error instanceof ScrapybaraError ? [error.statusCode, error.body] : error
}

t.test('bash, edit and env through the SDK: the unified actions each becomes, and the answers in Scrapybara\'s shape', async (t) => {
  const { instance, backend, token } = await listening(t, true)
  /** The last request the desktop got: method, path, token, and the action sent. */
  const sent = () => { const r = backend.received.at(-1)!; return [r.method, r.url, r.authorization, JSON.parse(r.body)] }
  const rows: Array<[string, () => Promise<unknown>, unknown, unknown]> = [
    ['bash: a command', () => instance.bash({ command: 'echo hi' }), { action: 'bash', command: 'echo hi' }, { output: 'hi\n' }],
    ['bash: a numbered session and a timeout', () => instance.bash({ command: 'echo hi', session: 2, timeout: 5 }), { action: 'bash', command: 'echo hi', session: '2', timeout: 5 }, { output: 'hi\n' }],
    ['bash: a failing command: stderr and its code as the error', () => instance.bash({ command: 'echo oops >&2; exit 3' }), { action: 'bash', command: 'echo oops >&2; exit 3' }, { output: '', error: 'oops\nexit code 3' }],
    ['bash: a timeout, said as the error', () => instance.bash({ command: 'sleep 100', timeout: 2 }), { action: 'bash', command: 'sleep 100', timeout: 2 },
      { output: '', error: 'timed out: the command did not return within 2 s, so the bash session and everything it started were killed; the next command starts a new session' }],
    ['bash: restart', () => instance.bash({ restart: true }), { action: 'bash', restart: true }, { output: 'tool has been restarted.' }],
    ['edit: create', () => instance.edit({ command: 'create', path: 'a.py', fileText: 'print(1)\n' }), { action: 'edit', command: 'create', path: 'a.py', file_text: 'print(1)\n' }, { output: 'edited a.py' }],
    ['edit: view a range', () => instance.edit({ command: 'view', path: 'a.py', viewRange: [1, -1] }), { action: 'edit', command: 'view', path: 'a.py', view_range: [1, -1] }, { output: 'edited a.py' }],
    ['edit: str_replace', () => instance.edit({ command: 'str_replace', path: 'a.py', oldStr: '1', newStr: '2' }), { action: 'edit', command: 'str_replace', path: 'a.py', old_str: '1', new_str: '2' }, { output: 'edited a.py' }],
    ['edit: insert takes its text as new_str', () => instance.edit({ command: 'insert', path: 'a.py', insertLine: 0, newStr: '# top\n' }), { action: 'edit', command: 'insert', path: 'a.py', insert_line: 0, insert_text: '# top\n' }, { output: 'edited a.py' }],
    ['edit: undo', () => instance.edit({ command: 'undo_edit', path: 'a.py' }), { action: 'edit', command: 'undo_edit', path: 'a.py' }, { output: 'edited a.py' }],
  ]
  for (const [what, call, action, expected] of rows) {
    t.strictSame(await call(), expected, `${what}: the answer`)
    t.strictSame(sent(), ['POST', '/computer', `Bearer ${token}`, action], `${what}: the action, with the desktop's token`)
  }
  t.strictSame(await thrown(instance.edit({ command: 'view', path: 'missing.txt' }, { maxRetries: 0 })),
    [400, errorBody(400, 'ERR_INVALID_ACTION', 'The path missing.txt does not exist. Please provide a valid path.')], "the desktop's refusal, relayed as it is")

  t.strictSame(await instance.env.get(), { variables: {} }, 'env: none at first')
  t.strictSame(await instance.env.set({ variables: { GREETING: "it's me", EMPTY: '' } }), { status: 'success', message: '2 variables set' }, 'env.set')
  t.strictSame(await instance.env.get(), { variables: { GREETING: "it's me", EMPTY: '' } }, 'env.get: what was set')
  await instance.bash({ command: 'echo "$GREETING"' })
  t.strictSame(sent()[3], { action: 'bash', command: "export GREETING='it'\\''s me' EMPTY=''\necho \"$GREETING\"" }, 'a later command gets them exported, quoted')
  t.strictSame(await instance.env.delete({ keys: ['GREETING', 'NEVER'] }), { status: 'success', message: '1 variable deleted' }, 'env.delete')
  t.strictSame(await instance.env.get(), { variables: { EMPTY: '' } }, 'env.get: the rest')
  await instance.bash({ command: 'env' })
  t.strictSame(sent()[3], { action: 'bash', command: "unset GREETING; export EMPTY=''\nenv" }, 'a deleted one is unset in the session too')
  await instance.bash({ restart: true })
  t.strictSame(sent()[3], { action: 'bash', restart: true }, 'a restart carries no command')
})

t.test('refusals: without the fleet\'s --shell a 403 naming it; bad bodies a 400 naming the field; nothing reaches the desktop', async (t) => {
  const off = await listening(t, false)
  const { SHELL_OFF } = await import('../fleet/scrapybara/shell.ts')
  const shellOff = errorBody(403, 'ERR_TOOL_OFF', SHELL_OFF)
  const id = off.instance.id
  for (const [method, path, body] of [['POST', 'bash', { command: 'id' }], ['GET', 'env', undefined], ['POST', 'env', { variables: {} }], ['POST', 'env/delete', { keys: [] }]] as const) {
    t.strictSame(await off.raw(method, `/v1/instance/${id}/${path}`, body), [403, shellOff], `${method} /${path} without --shell`)
  }
  t.strictSame(await off.instance.edit({ command: 'view', path: 'a.py' }), { output: 'edited a.py' }, 'edit is served without it: the desktops serve their home\'s files already')
  t.equal(off.backend.received.length, 1, 'only the edit reached the desktop')

  const on = await listening(t, true)
  const on1 = on.instance.id
  const cases: Array<[string, string, unknown, unknown]> = [
    ['POST', 'bash', {}, invalid('/bash needs exactly one of command or restart: true')],
    ['POST', 'bash', { command: 'ls', restart: true }, invalid('/bash needs exactly one of command or restart: true')],
    ['POST', 'bash', { command: 1 }, invalid("'command' must be string: /bash takes command (string), session (integer 0..999999), restart (boolean), timeout (seconds)")],
    ['POST', 'bash', { command: 'ls', session: 'main' }, invalid("'session' must be integer: /bash takes command (string), session (integer 0..999999), restart (boolean), timeout (seconds)")],
    ['POST', 'bash', { command: 'ls', cwd: '/' }, invalid("'cwd' is not a field: /bash takes command (string), session (integer 0..999999), restart (boolean), timeout (seconds)")],
    ['POST', 'bash', { list_sessions: true }, errorBody(501, 'ERR_NOT_IMPLEMENTED', 'list_sessions and check_session are not served: sessions are named by their number; run a command in one, or restart it')],
    ['POST', 'edit', { command: 'delete', path: 'a' }, invalid("'command' must be equal to constant: /edit takes command ('view', 'create', 'str_replace', 'insert' or 'undo_edit'), path (string), file_text, old_str, new_str (strings), view_range ([first, last]), insert_line (integer)")],
    ['POST', 'env', { variables: { 'A-B': '1' } }, invalid("variables: 'A-B' is not a variable name (a letter or '_', then letters, digits or '_', at most 128)")],
    ['POST', 'env', { variables: { A: 1 } }, invalid("'variables.A' must be string: /env takes variables (an object of names to string values)")],
    ['POST', 'env', { variables: { A: 'x\u0000' } }, invalid('variables.A: a value is at most 32768 characters, without NUL')],
    ['POST', 'env/delete', { keys: ['$(id)'] }, invalid("keys: '$(id)' is not a variable name")],
    ['POST', 'env/delete', { keys: 'A' }, invalid("'keys' must be array: /env/delete takes keys (a list of names)")],
  ]
  for (const [method, path, body, expected] of cases) {
    t.strictSame(await on.raw(method, `/v1/instance/${on1}/${path}`, body), [(expected as { statusCode: number }).statusCode, expected], `${method} /${path} ${JSON.stringify(body)}`)
  }
  t.strictSame(await on.raw('POST', '/v1/instance/0123456789abcdef/bash', { command: 'ls' }), [404, errorBody(404, 'ERR_DESKTOP_NOT_FOUND', 'no desktop 0123456789abcdef in this fleet (GET /desktops lists them)')], 'an unknown instance: 404')
  await on.instance.pause()
  t.strictSame(await thrown(on.instance.bash({ command: 'ls' }, { maxRetries: 0 })), [409, errorBody(409, 'ERR_DESKTOP_PAUSED', `desktop ${on1} is paused: nothing reaches it until it is resumed (POST /v1/instance/${on1}/resume)`)], 'a paused instance: 409 naming resume')
  t.equal(on.backend.received.length, 0, 'no refused call reached the desktop')
})

t.test('file and code.execute through the SDK: forwarded to the desktop under the same path, body as it came, with its token', async (t) => {
  const { instance, backend, token, raw } = await listening(t, true)
  const id = instance.id
  /** The last request the desktop got: method, path, token (never the fleet's key), and the body sent. */
  const sent = () => { const r = backend.received.at(-1)!; return [r.method, r.url, r.authorization, r.apiKey, JSON.parse(r.body)] }
  const rows: Array<[string, () => Promise<unknown>, string, unknown]> = [
    ['file: write base64', () => instance.file({ command: 'write', path: 'a.bin', content: 'AAE=', encoding: 'base64' }), 'file', { command: 'write', path: 'a.bin', content: 'AAE=', encoding: 'base64' }],
    ['file: replace every occurrence', () => instance.file({ command: 'replace', path: 'a.txt', oldStr: 'a', newStr: 'b', allOccurrences: true }), 'file', { command: 'replace', path: 'a.txt', old_str: 'a', new_str: 'b', all_occurrences: true }],
    ['file: grep', () => instance.file({ command: 'grep', pattern: 'x', path: 'src', recursive: true, caseSensitive: false, lineNumbers: false }), 'file',
      { command: 'grep', pattern: 'x', path: 'src', recursive: true, case_sensitive: false, line_numbers: false }],
    ['file: delete_lines', () => instance.file({ command: 'delete_lines', path: 'a.txt', lines: [1, 2] }), 'file', { command: 'delete_lines', path: 'a.txt', lines: [1, 2] }],
    ['code.execute', () => instance.code.execute({ code: 'x = 1', kernelName: 'python3', timeout: 5 }), 'code/execute', { code: 'x = 1', kernel_name: 'python3', timeout: 5 }],
  ]
  for (const [what, call, path, body] of rows) {
    t.match(await call(), { method: 'POST', url: `/v1/instance/${id}/${path}`, desktop: id }, `${what}: the desktop's answer, passed back`)
    t.strictSame(sent(), ['POST', `/v1/instance/${id}/${path}`, `Bearer ${token}`, undefined, body], `${what}: the body as the SDK sent it, with the desktop's token`)
  }
  const before = backend.received.length
  t.strictSame(await raw('POST', '/v1/instance/0123456789abcdef/file', { command: 'exists', path: 'a' }), [404, errorBody(404, 'ERR_DESKTOP_NOT_FOUND', 'no desktop 0123456789abcdef in this fleet (GET /desktops lists them)')], 'an unknown instance: 404')
  await instance.pause()
  t.strictSame(await thrown(instance.file({ command: 'exists', path: 'a' }, { maxRetries: 0 })), [409, errorBody(409, 'ERR_DESKTOP_PAUSED', `desktop ${id} is paused: nothing reaches it until it is resumed (POST /v1/instance/${id}/resume)`)], 'a paused instance: 409 naming resume')
  t.equal(backend.received.length, before, 'neither reached a desktop')

  const off = await listening(t, false)
  t.strictSame(await thrown(off.instance.code.execute({ code: '1' }, { maxRetries: 0 })), [403, errorBody(403, 'ERR_TOOL_OFF', "code.execute needs the fleet's shell: start the fleet with --shell (env FLEET_SHELL=1), which starts every desktop with the server's --shell (the code runs as the desktop's user in its home)")], 'code.execute without the fleet\'s --shell: 403 naming it')
  t.match(await off.instance.file({ command: 'exists', path: 'a' }), { url: `/v1/instance/${off.instance.id}/file` }, 'file is served without it, as edit is')
})
