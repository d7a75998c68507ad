/**
 * run_command, bash (--shell) and edit (--files) through POST /computer and /computer/batch
 * over the fake driver, with real commands run as a second local user made for the test, who
 * owns the desktop's home (root only: useradd, setpriv). Whole answers are asserted; hostile
 * input — a command that never ends, one that prints without end, a fork bomb, `env` looking
 * for the token, `..`, links and absolute paths out of the home — is bounded or refused.
 */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { chownSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { build, post } from './helpers/build.ts'
import { desktopHome, shellLimits } from './helpers/tools.ts'
import type { ShellLimits } from '../src/shell/service.ts'

t.setTimeout(180_000)
t.equal(process.getuid?.(), 0, 'these tests run as root (useradd, setpriv): run them in the image or as root')

interface TestContext { teardown: (fn: () => unknown) => void }

const CANARY = 'canary-token-0123456789abcdef'

async function tools (t: TestContext, limits: Partial<ShellLimits> = {}) {
  const fixture = desktopHome(t)
  const built = await build(t, {
    shell: { home: fixture.home, limits: shellLimits({ timeoutMs: 10_000, ...limits }) },
    files: { home: fixture.home, maxFileSize: 1024 * 1024, maxTotal: 1024 * 1024 * 1024 },
  })
  return { ...fixture, ...built }
}

const done = (command_result: Record<string, unknown>, output: string) => ({
  output, error: null, base64_image: null, cursor_position: [0, 0], command_result,
})
const exited = (stdout: string, stderr = '', code = 0) => ({
  exit_code: code, signal: null, stdout, stderr, stdout_bytes: Buffer.byteLength(stdout), stderr_bytes: Buffer.byteLength(stderr), truncated: false, timed_out: false,
})
const said = (output: string) => ({ output, error: null, base64_image: null, cursor_position: [0, 0] })
const refused = (status: number, code: string, message: string) => ({ status, body: { statusCode: status, code, error: status === 403 ? 'Forbidden' : status === 429 ? 'Too Many Requests' : status === 404 ? 'Not Found' : status === 409 ? 'Conflict' : 'Bad Request', message } })

/** Processes the user still runs (a killed one its new parent has not reaped yet runs no more): none once a call is answered. */
function processesOf (uid: number): number {
  try {
    return execFileSync('ps', ['-o', 'stat=', '-u', String(uid)], { encoding: 'utf8' }).trim().split('\n').filter((stat) => !stat.startsWith('Z')).length
  } catch (error) {
    // ps exits 1 when the user runs nothing.
    if ((error as { status?: number }).status === 1) return 0
    throw error
  }
}

t.test('off unless turned on: 403 naming the flag, before anything runs', async (t) => {
  const { app } = await build(t)
  for (const action of [{ action: 'run_command', argv: ['true'] }, { action: 'bash', command: 'true' }]) {
    t.strictSame(await post(app, '/computer', action).then(({ status, body }) => ({ status, body })), refused(403, 'ERR_TOOL_OFF', "the shell is off on this server: start it with --shell (env SHELL_TOOL=1), which runs commands as the desktop's user in --home"), action.action)
  }
  t.strictSame(await post(app, '/computer', { action: 'edit', command: 'view', path: '.' }).then(({ status, body }) => ({ status, body })),
    refused(403, 'ERR_TOOL_OFF', 'the text editor is off on this server: start it with --files (env FILES=1) and --home, the directory it edits in'))
})

t.test('one-shot commands: as the home\'s owner, in the home, exit codes and both streams', async (t) => {
  const { app, home, user } = await tools(t)
  const cases = [
    { body: { action: 'run_command', argv: ['id', '-u'] }, answer: done(exited(`${user.uid}\n`), `the command exited with code 0; ${String(user.uid).length + 1} bytes on stdout, 0 on stderr`) },
    { body: { action: 'run_command', command: 'pwd; echo oops >&2; exit 3' }, answer: done(exited(`${home}\n`, 'oops\n', 3), `the command exited with code 3; ${home.length + 1} bytes on stdout, 5 on stderr`) },
    { body: { action: 'run_command', command: 'id -G; ls /root 2>&1 | head -c 0; test -r /etc/shadow && echo readable || echo unreadable' }, answer: done(exited(`${user.gid}\nunreadable\n`), 'the command exited with code 0; 16 bytes on stdout, 0 on stderr') },
  ]
  for (const c of cases) {
    const answer = await post(app, '/computer', c.body)
    t.equal(answer.status, 200, JSON.stringify(c.body))
    t.strictSame(answer.body, c.answer, JSON.stringify(c.body))
  }
})

t.test('env: built from nothing, none of the server\'s secrets', async (t) => {
  process.env.API_TOKEN = CANARY
  process.env.API_TOKEN_FILE = `/run/secrets/${CANARY}`
  process.env.FLEET_KEY = CANARY
  t.teardown(() => { delete process.env.API_TOKEN; delete process.env.API_TOKEN_FILE; delete process.env.FLEET_KEY })
  const { app, home } = await tools(t)
  const { body } = await post(app, '/computer', { action: 'run_command', argv: ['env', '-0'] })
  const env = Object.fromEntries(body.command_result.stdout.split('\0').filter(Boolean).map((line: string) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]))
  t.notOk(body.command_result.stdout.includes(CANARY), 'the token is nowhere in the environment')
  // tap's process hook (@tapjs/processinfo) adds NODE_OPTIONS, its own variables and, under c8,
  // NODE_V8_COVERAGE to every child a test spawns, whatever environment the spawn names; the
  // server adds none of them.
  if (String(env.NODE_OPTIONS ?? '').includes('@tapjs/processinfo')) delete env.NODE_OPTIONS
  if (env.NODE_V8_COVERAGE !== undefined && env.NODE_V8_COVERAGE === process.env.NODE_V8_COVERAGE) delete env.NODE_V8_COVERAGE
  for (const name of Object.keys(env)) if (name.startsWith('_TAPJS_PROCESSINFO_')) delete env[name]
  t.match(env.COMPUTER_GATEWAY_SHELL, /^[0-9a-f]{16}$/)
  delete env.COMPUTER_GATEWAY_SHELL
  t.strictSame(env, {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: home, SHELL: '/bin/bash', LANG: process.env.LANG || 'C.UTF-8', TERM: 'dumb', PAGER: 'cat', GIT_PAGER: 'cat',
  }, 'only what a desktop program needs (no DISPLAY: the fake driver has none)')
})

t.test('hostile commands: never ending, printing without end, a fork bomb — each bounded, nothing left running', async (t) => {
  const { app, user } = await tools(t, { maxOutputBytes: 1000, maxProcesses: 64 })
  const before = processesOf(user.uid)
  t.equal(before, 0, 'the user runs nothing to begin with')

  const started = Date.now()
  const never = await post(app, '/computer', { action: 'run_command', command: 'sleep 1000 & sleep 1000', timeout: 1 })
  t.strictSame(never.body, done({ exit_code: null, signal: 'SIGKILL', stdout: '', stderr: '', stdout_bytes: 0, stderr_bytes: 0, truncated: false, timed_out: true }, 'the command timed out after 1 s: killed with everything it started; 0 bytes on stdout, 0 on stderr'))
  t.ok(Date.now() - started < 5000, 'answered soon after its timeout')

  const flood = await post(app, '/computer', { action: 'run_command', argv: ['yes', 'gigabytes'], timeout: 2 })
  const result = flood.body.command_result
  t.equal(result.stdout, 'gigabytes\n'.repeat(100), 'the first --shell-max-output bytes are kept')
  t.ok(result.stdout_bytes > 10_000_000, `what it wrote is counted (${result.stdout_bytes} bytes), not kept`)
  t.match(result, { truncated: true, timed_out: true, exit_code: null })
  t.match(flood.body.output, /^the command timed out after 2 s: killed with everything it started; \d+ bytes on stdout, 0 on stderr \(output truncated: over the --shell-max-output cap\)$/)

  const bomb = await post(app, '/computer', { action: 'run_command', command: 'bomb() { bomb | bomb & }; bomb; sleep 30', timeout: 3 })
  t.match(bomb.body.command_result, { timed_out: true, truncated: true }, 'the bomb ran into its limit (its errors fill stderr) and its timeout')
  t.match(bomb.body.command_result.stderr, /Resource temporarily unavailable/, 'forks past --shell-max-processes fail')
  t.equal(processesOf(user.uid), 0, 'nothing of the bomb is left')

  const setsid = await post(app, '/computer', { action: 'bash', command: 'setsid sleep 1000 < /dev/null > /dev/null 2>&1 & echo started' })
  t.equal(setsid.body.command_result.stdout, 'started\n')
  await post(app, '/computer', { action: 'bash', restart: true })
  t.equal(processesOf(user.uid), 0, 'a process that left the session\'s group ends with its restart')

  const after = await post(app, '/computer', { action: 'run_command', argv: ['echo', 'still here'] })
  t.strictSame(after.body.command_result, exited('still here\n'), 'the shell still works after all of them')
})

t.test('bash: one session keeps its state; a timeout kills it and says so; restart; named sessions and their limit', async (t) => {
  const { app, home } = await tools(t, { maxSessions: 2 })
  const steps: Array<{ body: Record<string, unknown>, status?: number, answer: unknown }> = [
    { body: { action: 'bash', command: 'cd /tmp && X=42 && echo in $PWD' }, answer: done(exited('in /tmp\n'), 'the command exited with code 0; 8 bytes on stdout, 0 on stderr') },
    { body: { action: 'bash', command: 'echo $X $PWD; echo warn >&2; false' }, answer: done(exited('42 /tmp\n', 'warn\n', 1), 'the command exited with code 1; 8 bytes on stdout, 5 on stderr') },
    { body: { action: 'bash', command: 'if then fi' }, answer: done(exited('', "/bin/bash: eval: line 3: syntax error near unexpected token `then'\n/bin/bash: eval: line 3: `if then fi'\n", 2), 'the command exited with code 2; 0 bytes on stdout, 105 on stderr') },
    { body: { action: 'bash', command: 'echo still $X' }, answer: done(exited('still 42\n'), 'the command exited with code 0; 9 bytes on stdout, 0 on stderr') },
    { body: { action: 'bash', command: 'read line; echo "read: $line"' }, answer: done(exited('read: \n'), 'the command exited with code 0; 7 bytes on stdout, 0 on stderr') },
    { body: { action: 'bash', command: 'echo before; sleep 1000', timeout: 1 }, answer: done({ exit_code: null, signal: 'SIGKILL', stdout: 'before\n', stderr: '', stdout_bytes: 7, stderr_bytes: 0, truncated: false, timed_out: true }, 'timed out: the command did not return within 1 s, so the bash session and everything it started were killed; the next command starts a new session') },
    { body: { action: 'bash', command: 'echo "[$X]" $PWD' }, answer: done(exited(`[] ${home}\n`), `the command exited with code 0; ${home.length + 4} bytes on stdout, 0 on stderr`) },
    { body: { action: 'bash', command: 'Y=1; exit 7' }, answer: done({ ...exited('', '', 7) }, 'bash exited (code 7); the next command starts a new session') },
    { body: { action: 'bash', command: 'Y=2', session: 'other' }, answer: done(exited(''), 'the command exited with code 0; 0 bytes on stdout, 0 on stderr') },
    { body: { action: 'bash', command: 'echo third', session: 'third' }, status: 429, answer: { statusCode: 429, code: 'ERR_SHELL_SESSION_LIMIT', error: 'Too Many Requests', message: '2 bash sessions are open (--shell-max-sessions): restart one ({"action":"bash","restart":true,"session":"<name>"}) before starting \'third\'' } },
    { body: { action: 'bash', restart: true, session: 'other' }, answer: said('tool has been restarted.') },
    { body: { action: 'bash', command: 'echo third', session: 'third' }, answer: done(exited('third\n'), 'the command exited with code 0; 6 bytes on stdout, 0 on stderr') },
    { body: { action: 'bash', command: 'true', restart: true }, status: 400, answer: { statusCode: 400, code: 'ERR_INVALID_ACTION', error: 'Bad Request', message: 'bash needs exactly one of command or restart: true' } },
    { body: { action: 'bash', command: 'true', timeout: 1000 }, status: 400, answer: { statusCode: 400, code: 'ERR_INVALID_ACTION', error: 'Bad Request', message: "timeout 1000 s is over this server's limit of 600 s (--shell-max-timeout)" } },
    { body: { action: 'run_command', argv: ['true'], command: 'true' }, status: 400, answer: { statusCode: 400, code: 'ERR_INVALID_ACTION', error: 'Bad Request', message: 'run_command needs exactly one of argv (a program and its arguments) or command (a line for bash -c)' } },
  ]
  for (const step of steps) {
    const answer = await post(app, '/computer', step.body)
    t.equal(answer.status, step.status ?? 200, JSON.stringify(step.body))
    t.strictSame(answer.body, step.answer, JSON.stringify(step.body))
  }
})

t.test('a home of root\'s: the shell refuses to run as root, before anything of the batch runs', async (t) => {
  const { app, driver } = await build(t, { shell: { home: '/root', limits: shellLimits() } })
  const { status, body } = await post(app, '/computer', { action: 'run_command', argv: ['id'] })
  t.strictSame({ status, body }, refused(403, 'ERR_SHELL_FORBIDDEN', "the desktop's home /root belongs to root, and the shell never runs commands as root: give --home a directory of the desktop's own user"))
  const batch = await post(app, '/computer/batch', { actions: [{ action: 'move_mouse', coordinates: [5, 5] }, { action: 'bash', command: 'id' }] })
  t.equal(batch.status, 403)
  t.equal(batch.body.code, 'ERR_SHELL_FORBIDDEN')
  t.strictSame(driver.calls, [], 'the move before it did not run')
  const missing = await build(t, { shell: { home: '/nonexistent-home-of-nobody', limits: shellLimits() } })
  const none = await post(missing.app, '/computer', { action: 'bash', command: 'id' })
  t.strictSame({ status: none.status, body: none.body }, refused(403, 'ERR_SHELL_FORBIDDEN', "the desktop's home directory /nonexistent-home-of-nobody is not there: the shell runs in it"))
})

t.test('edit: Anthropic\'s text editor contract over the home', async (t) => {
  const { app, home, user } = await tools(t)
  const file = 'notes/todo.txt'
  const steps: Array<{ body: Record<string, unknown>, status?: number, answer: unknown }> = [
    { body: { command: 'create', path: file, file_text: 'one\ntwo\nthree\ntwo and a half\n' }, answer: said(`File created successfully at: ${file}`) },
    { body: { command: 'view', path: file }, answer: said(`Here's the result of running \`cat -n\` on ${file}:\n     1\tone\n     2\ttwo\n     3\tthree\n     4\ttwo and a half\n     5\t\n`) },
    { body: { command: 'view', path: file, view_range: [2, 3] }, answer: said(`Here's the result of running \`cat -n\` on ${file}:\n     2\ttwo\n     3\tthree\n`) },
    { body: { command: 'view', path: file, view_range: [4, -1] }, answer: said(`Here's the result of running \`cat -n\` on ${file}:\n     4\ttwo and a half\n     5\t\n`) },
    { body: { command: 'view', path: file, view_range: [9, 10] }, status: 400, answer: { statusCode: 400, code: 'ERR_INVALID_ACTION', error: 'Bad Request', message: 'Invalid `view_range`: [9,10]. Its first element `9` should be within the range of lines of the file: [1, 5]' } },
    { body: { command: 'str_replace', path: file, old_str: 'two' }, status: 400, answer: { statusCode: 400, code: 'ERR_INVALID_ACTION', error: 'Bad Request', message: 'No replacement was performed. Multiple occurrences of old_str `two` in lines [2,4] (2 matches). Please ensure it is unique' } },
    { body: { command: 'str_replace', path: file, old_str: 'four' }, status: 400, answer: { statusCode: 400, code: 'ERR_INVALID_ACTION', error: 'Bad Request', message: `No replacement was performed, old_str \`four\` did not appear verbatim in ${file}.` } },
    { body: { command: 'str_replace', path: file, old_str: 'three\n', new_str: '3\n' }, answer: said(`The file ${file} has been edited. Here's the result of running \`cat -n\` on a snippet of ${file}:\n     1\tone\n     2\ttwo\n     3\t3\n     4\ttwo and a half\n     5\t\nReview the changes and make sure they are as expected. Edit the file again if necessary.`) },
    { body: { command: 'insert', path: file, insert_line: 1, insert_text: 'one and a half' }, answer: said(`The file ${file} has been edited. Here's the result of running \`cat -n\` on a snippet of the edited file:\n     1\tone\n     2\tone and a half\n     3\ttwo\n     4\t3\n     5\ttwo and a half\n     6\t\nReview the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`) },
    { body: { command: 'insert', path: file, insert_line: 99, insert_text: 'x' }, status: 400, answer: { statusCode: 400, code: 'ERR_INVALID_ACTION', error: 'Bad Request', message: 'Invalid `insert_line` parameter: 99. It should be within the range of lines of the file: [0, 6]' } },
    { body: { command: 'undo_edit', path: file }, answer: said(`Last edit to ${file} undone successfully. Here's the result of running \`cat -n\` on ${file}:\n     1\tone\n     2\ttwo\n     3\t3\n     4\ttwo and a half\n     5\t\n`) },
    { body: { command: 'view', path: join(home, 'notes') }, answer: said(`Here's the files and directories up to 2 levels deep in ${home}/notes, excluding hidden items:\n${home}/notes\n${home}/notes/todo.txt\n`) },
    { body: { command: 'view', path: 'missing.txt' }, status: 404, answer: { statusCode: 404, code: 'ERR_FILE_NOT_FOUND', error: 'Not Found', message: "nothing at 'missing.txt' under the desktop's home directory" } },
    { body: { command: 'str_replace', path: 'notes', old_str: 'x' }, status: 409, answer: { statusCode: 409, code: 'ERR_PATH_CONFLICT', error: 'Conflict', message: "'notes' is a directory, not a file: view lists it" } },
    { body: { command: 'create', path: 'a.txt' }, status: 400, answer: { statusCode: 400, code: 'ERR_INVALID_ACTION', error: 'Bad Request', message: 'Parameter `file_text` is required for command: create' } },
  ]
  for (const step of steps) {
    const answer = await post(app, '/computer', { action: 'edit', ...step.body })
    t.equal(answer.status, step.status ?? 200, JSON.stringify(step.body))
    t.strictSame(answer.body, step.answer, JSON.stringify(step.body))
  }
  t.equal(readFileSync(join(home, file), 'utf8'), 'one\ntwo\n3\ntwo and a half\n', 'the file holds the text the edits left')
  await post(app, '/computer', { action: 'edit', command: 'create', path: 'long.txt', file_text: 'x'.repeat(40_000) })
  const long = await post(app, '/computer', { action: 'edit', command: 'view', path: 'long.txt' })
  t.equal(long.body.output.length, 16_000 + 240, 'a long view is cut at 16 000 characters, as the reference tool cuts it')
  t.match(long.body.output, /^Here's the result of running `cat -n` on long\.txt:\n {5}1\tx+<response clipped><NOTE>To save on context only part of this file has been shown to you\. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for\.<\/NOTE>$/)
  const owner = execFileSync('stat', ['-c', '%u:%g', join(home, file), join(home, 'notes')], { encoding: 'utf8' })
  t.equal(owner, `${user.uid}:${user.gid}\n${user.uid}:${user.gid}\n`, 'what the editor made is the desktop user\'s')
})

t.test('edit: `..`, links and absolute paths out of the home are refused, nothing outside read or written', async (t) => {
  const { app, home, outside, user } = await tools(t)
  writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE')
  mkdirSync(join(home, 'in'))
  chownSync(join(home, 'in'), user.uid, user.gid)
  symlinkSync(join(outside, 'secret.txt'), join(home, 'link-out'))
  symlinkSync('../../outside', join(home, 'in', 'dir-out'))
  execFileSync('mkfifo', [join(home, 'fifo')])
  const forbidden = (message: string) => ({ status: 403, body: { statusCode: 403, code: 'ERR_PATH_FORBIDDEN', error: 'Forbidden', message } })
  const cases = [
    { body: { command: 'view', path: '../outside/secret.txt' }, answer: forbidden("'../outside/secret.txt' climbs out with '..': paths stay under the desktop's home directory") },
    { body: { command: 'create', path: 'in/../../outside/new.txt', file_text: 'x' }, answer: forbidden("'in/../../outside/new.txt' climbs out with '..': paths stay under the desktop's home directory") },
    { body: { command: 'view', path: join(outside, 'secret.txt') }, answer: forbidden(`'${join(outside, 'secret.txt')}' is outside the desktop's home directory ${home}: the editor works only under it`) },
    { body: { command: 'view', path: 'link-out' }, answer: forbidden("'link-out' is a symbolic link leading out of the desktop's home directory") },
    { body: { command: 'create', path: 'link-out', file_text: 'overwritten' }, answer: forbidden("'link-out' is a symbolic link leading out of the desktop's home directory") },
    { body: { command: 'str_replace', path: 'in/dir-out/secret.txt', old_str: 'OUTSIDE', new_str: 'x' }, answer: forbidden("'in/dir-out' is a symbolic link leading out of the desktop's home directory") },
    { body: { command: 'create', path: 'in/dir-out/new.txt', file_text: 'x' }, answer: forbidden("'in/dir-out' is a symbolic link leading out of the desktop's home directory") },
    { body: { command: 'view', path: 'fifo' }, answer: { status: 409, body: { statusCode: 409, code: 'ERR_PATH_CONFLICT', error: 'Conflict', message: "'fifo' is not a regular file (a FIFO, socket or device): it is not opened" } } },
  ]
  for (const c of cases) {
    const { status, body } = await post(app, '/computer', { action: 'edit', ...c.body })
    t.strictSame({ status, body }, c.answer, JSON.stringify(c.body))
  }
  t.strictSame(execFileSync('ls', ['-A', outside], { encoding: 'utf8' }), 'secret.txt\n', 'nothing was made outside')
  t.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'OUTSIDE', 'nothing outside changed')
})

t.test('a batch: the editor writes a script, bash runs it, in one request and in order', async (t) => {
  const { app } = await tools(t)
  const { status, body } = await post(app, '/computer/batch', {
    actions: [
      { action: 'edit', command: 'create', path: 'bin/hello.sh', file_text: '#!/bin/bash\necho "hello from $(basename "$0")"\n' },
      { action: 'run_command', command: 'chmod +x bin/hello.sh && bin/hello.sh' },
    ],
  })
  t.equal(status, 200)
  t.strictSame(body.results.map((r: { command_result?: unknown, output: string }) => r.command_result ?? r.output), ['File created successfully at: bin/hello.sh', exited('hello from hello.sh\n')])
})

t.test('MCP: each client\'s bash sessions are its own (its Mcp-Session-Id), ended with its session; HTTP callers share a name', async (t) => {
  const { app } = await tools(t, { maxSessions: 3 })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const url = new URL(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/mcp`)
  const connect = async () => {
    const client = new Client({ name: 'shell-editor-test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(url)
    await client.connect(transport)
    t.teardown(() => client.close())
    return { client, transport }
  }
  const bash = async (client: Client, command: string) => {
    const result = await client.callTool({ name: 'bash', arguments: { command } }) as { content: Array<{ type: string, text?: string }>, structuredContent?: { command_result?: { stdout: string } } }
    return result.structuredContent?.command_result?.stdout ?? JSON.stringify(result.content)
  }
  const a = await connect()
  const b = await connect()
  t.ok(a.transport.sessionId && b.transport.sessionId && a.transport.sessionId !== b.transport.sessionId, 'each initialize is answered with an Mcp-Session-Id of its own')
  t.equal(await bash(a.client, 'X=from-a; echo $X'), 'from-a\n', "a sets X in its 'default' session")
  t.equal(await bash(b.client, 'echo "b sees [$X]"; X=from-b'), 'b sees []\n', "b's 'default' is another bash: it does not see a's X")
  t.equal(await bash(a.client, 'echo $X'), 'from-a\n', "a's session kept its own X")
  t.strictSame((await post(app, '/computer', { action: 'bash', command: 'echo "http sees [$X]"; X=from-http' })).body.command_result.stdout, 'http sees []\n', "an HTTP caller's 'default' is neither client's")
  t.strictSame((await post(app, '/computer', { action: 'bash', command: 'echo $X' })).body.command_result.stdout, 'from-http\n', 'HTTP callers share a session by its name')
  t.strictSame((await post(app, '/computer', { action: 'bash', command: 'true', session: 'fourth' })).body.code, 'ERR_SHELL_SESSION_LIMIT', 'the limit counts every client\'s sessions: three open, a fourth refused')

  await a.transport.terminateSession()
  t.equal(await bash(b.client, 'echo $X'), 'from-b\n', "b's session goes on after a's ended")
  t.equal((await post(app, '/computer', { action: 'bash', command: 'true', session: 'fourth' })).status, 200, "a's ended session made room")
  const gone = await fetch(url, { method: 'DELETE' })
  t.strictSame([gone.status, gone.headers.get('allow')], [405, 'POST, DELETE'], 'DELETE without a session id: nothing to end')
  const again = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': b.transport.sessionId! } })
  t.strictSame([again.status, await again.json()], [200, { bash_sessions_ended: 1 }], "DELETE with b's id ends its one bash session")
})

t.test('MCP: at the limit, a client\'s session idle past scopedIdleMs makes room; one in use, or an HTTP caller\'s, never does', async (t) => {
  const { app } = await tools(t, { maxSessions: 1, scopedIdleMs: 300 })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const client = new Client({ name: 'shell-editor-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/mcp`)))
  t.teardown(() => client.close())
  const bash = async (command: string) => ((await client.callTool({ name: 'bash', arguments: { command } })) as { structuredContent?: { command_result?: { stdout: string } } }).structuredContent?.command_result?.stdout
  t.equal(await bash('X=kept; echo $X'), 'kept\n', "the client's one session")
  t.equal((await post(app, '/computer', { action: 'bash', command: 'true', session: 'http' })).status, 429, 'the limit, while it was just used')
  await new Promise((resolve) => setTimeout(resolve, 400))
  t.equal((await post(app, '/computer', { action: 'bash', command: 'echo http', session: 'http' })).body.command_result.stdout, 'http\n', 'idle past 300 ms: it made room')
  const refused = await client.callTool({ name: 'bash', arguments: { command: 'echo $X' } }) as { isError?: boolean, content: Array<{ text: string }> }
  t.strictSame([refused.isError, refused.content[0]!.text], [true, '1 bash sessions are open (--shell-max-sessions): restart one ({"action":"bash","restart":true,"session":"<name>"}) before starting \'default\''], "an HTTP caller's idle session is never ended for another: the client is refused")
})
