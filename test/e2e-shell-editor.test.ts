/**
 * The shell and the editor on a real desktop (Xvfb, the real nut driver, a token), for a second
 * local user made here who owns the desktop's home. Checked from outside (xdotool on the
 * display, /proc): the Anthropic SDK's toolRunner with computer, bash and the text editor
 * (scripted replies) writes a script, runs it and shows its output in a terminal window on the
 * desktop; an OpenAI shell_call and local_shell_call answered with their output items; MCP's
 * bash and edit tools; a computer and a bash block in one toolset turn; a fork bomb ends and the
 * desktop still acts; the commands' environment holds neither the token nor the server's.
 */
import t from 'tap'
import { execFile as execFileCb } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { promisify } from 'node:util'
import pino from 'pino'
import Anthropic from '@anthropic-ai/sdk'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { buildApp } from '../src/http/app.ts'
import { NutDriver } from '../drivers/nut/nut-driver.ts'
import { startDesktop } from './helpers/desktop.ts'
import { readScreen } from '../tasks/agent/ocr.ts'
import { desktopHome, shellLimits } from './helpers/tools.ts'
import { gatewayBashTool, gatewayComputerTool, gatewayTextEditorTool } from '../packages/agent/src/anthropic/index.ts'

const execFile = promisify(execFileCb)
t.setTimeout(240_000)
t.equal(process.getuid?.(), 0, 'these tests run as root (useradd, setpriv): run them in the image or as root')

const TOKEN = 'e2e-shell-token-0123456789abcdef'
const CANARY = 'canary-secret-from-the-server-env'

const fixture = desktopHome(t)
const gateway = { baseUrl: '', display: '' }
t.before(async () => {
  process.env.API_TOKEN = CANARY
  process.env.FLEET_SECRET = CANARY
  t.teardown(() => { delete process.env.API_TOKEN; delete process.env.FLEET_SECRET })
  const xvfb = await startDesktop(t)
  gateway.display = xvfb.display
  const app = await buildApp({
    driver: new NutDriver({ display: xvfb.display }),
    token: TOKEN,
    logger: pino({ level: 'silent' }),
    desktop: { display: xvfb.display },
    shell: { home: fixture.home, limits: shellLimits({ timeoutMs: 15_000, maxOutputBytes: 64 * 1024, maxProcesses: 128 }) },
    files: { home: fixture.home, maxFileSize: 1024 * 1024, maxTotal: 1024 * 1024 * 1024 },
  })
  // Closing the app ends every session and all it started (the terminal window among them).
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  gateway.baseUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
})

async function post (path: string, body: unknown): Promise<{ status: number, body: any }> {
  const response = await fetch(`${gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  })
  return { status: response.status, body: await response.json() }
}

/** Windows on the display whose name matches, by xdotool from outside the server. */
async function windowsNamed (name: string): Promise<string[]> {
  const found = await execFile('xdotool', ['search', '--name', name], { env: { ...process.env, DISPLAY: gateway.display }, timeout: 5000 }).catch(() => ({ stdout: '' }))
  return found.stdout.split('\n').filter(Boolean)
}

const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1])

const reply = (id: string, content: unknown[]) => ({
  id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content,
  stop_reason: content.some((c) => (c as { type: string }).type === 'tool_use') ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 10 },
})
const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use', id, name, input })

interface Sent { messages: Array<{ role: string, content: Array<{ type: string, tool_use_id?: string, is_error?: boolean, content?: Array<{ type: string, text?: string }> | string }> | string }> }

t.test('toolRunner with computer, bash and the text editor: the editor writes a script, bash runs it, a terminal on the desktop shows its output', async (t) => {
  const script = `${fixture.home}/bin/answer.sh`
  const replies = [
    reply('msg_1', [{ type: 'text', text: 'I will write the script.' }, use('toolu_edit', 'str_replace_based_edit_tool', { command: 'create', path: script, file_text: '#!/bin/bash\necho "the answer is $((6 * 7))"\n' })]),
    reply('msg_2', [use('toolu_run', 'bash', { command: 'chmod +x bin/answer.sh && bin/answer.sh' }), use('toolu_view', 'str_replace_based_edit_tool', { command: 'view', path: script, view_range: [2, 2] })]),
    reply('msg_3', [use('toolu_term', 'bash', { command: 'setsid xterm -T "$(bin/answer.sh)" -fa Monospace -fs 20 -geometry 30x3+100+100 -e bash -c "bin/answer.sh; sleep 600" < /dev/null > /dev/null 2>&1 & for i in $(seq 300); do xdotool search --onlyvisible --name "the answer is 42" > /dev/null && break; sleep 0.1; done; sleep 1; xdotool search --onlyvisible --name "the answer is 42" | head -1 | xargs xdotool getwindowname' })]),
    reply('msg_4', [use('toolu_shot', 'computer', { action: 'screenshot' })]),
    reply('msg_5', [{ type: 'text', text: 'The terminal shows the answer.' }]),
  ]
  const sent: Sent[] = []
  const anthropic = new Anthropic({
    apiKey: 'sk-ant-scripted',
    maxRetries: 0,
    fetch: async (_url: string | URL | Request, init?: RequestInit) => {
      sent.push(JSON.parse(String(init!.body)))
      const next = replies[sent.length - 1]
      return new Response(JSON.stringify(next ?? { type: 'error', error: { type: 'invalid_request_error', message: 'no more replies' } }), { status: next ? 200 : 400, headers: { 'content-type': 'application/json' } })
    },
  })
  const connection = { baseUrl: gateway.baseUrl, token: TOKEN }
  const final = await anthropic.beta.messages.toolRunner({
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    tools: [gatewayComputerTool({ ...connection, version: 'computer_20250124', display: { width: 1280, height: 800 } }), gatewayBashTool(connection), gatewayTextEditorTool(connection)],
    messages: [{ role: 'user', content: 'Write a script that prints the answer, run it and show it in a terminal.' }],
  })
  t.strictSame(final.content, [{ type: 'text', text: 'The terminal shows the answer.' }], 'the loop reached its end')
  t.equal(sent.length, 5, 'every scripted reply was used')
  const results = (request: Sent) => (request.messages.at(-1)!.content as Array<{ type: string }>).filter((c) => c.type === 'tool_result')
  t.strictSame(results(sent[1]!), [{ type: 'tool_result', tool_use_id: 'toolu_edit', content: [{ type: 'text', text: `File created successfully at: ${script}` }] }])
  t.strictSame(results(sent[2]!), [
    { type: 'tool_result', tool_use_id: 'toolu_run', content: [{ type: 'text', text: 'the answer is 42' }] },
    { type: 'tool_result', tool_use_id: 'toolu_view', content: [{ type: 'text', text: `Here's the result of running \`cat -n\` on ${script}:\n     2\techo "the answer is $((6 * 7))"\n` }] },
  ])
  t.strictSame(results(sent[3]!), [{ type: 'tool_result', tool_use_id: 'toolu_term', content: [{ type: 'text', text: 'the answer is 42' }] }], 'the window is there, by its title')
  const [shot] = results(sent[4]!) as unknown as Array<{ tool_use_id: string, content: Array<{ type: string, source?: { data: string } }> }>
  t.match(shot, { tool_use_id: 'toolu_shot', content: [{ type: 'text', text: 'took a screenshot' }, { type: 'image', source: { type: 'base64', media_type: 'image/png' } }] })
  const lines = await readScreen(Buffer.from(shot!.content[1]!.source!.data, 'base64'))
  t.ok(lines.some((line) => line.text.includes('answer is 42')), `the screenshot the model gets shows the output in the terminal (read: ${JSON.stringify(lines.map((line) => line.text))})`)

  const [window] = await windowsNamed('the answer is 42')
  t.ok(window, 'from outside: a window on the display shows the script\'s output in its title')
  const { stdout: pid } = await execFile('xdotool', ['getwindowpid', window!], { env: { ...process.env, DISPLAY: gateway.display } })
  t.equal(uidOf(Number(pid)), fixture.user.uid, 'the terminal runs as the desktop\'s user')
  t.equal(statSync(script).uid, fixture.user.uid, 'the script is the desktop user\'s')
})

t.test('the environment: the display and a cookie of the user\'s own, none of the server\'s secrets', async (t) => {
  const { status, body } = await post('/computer', { action: 'run_command', argv: ['env'] })
  t.equal(status, 200)
  const env = body.command_result.stdout as string
  t.notOk(env.includes(CANARY), 'neither the token nor any other variable of the server')
  t.notOk(env.includes(TOKEN), 'nor the token the server runs with')
  t.match(env, new RegExp(`^DISPLAY=${gateway.display}$`, 'm'))
  const xauthority = /^XAUTHORITY=(.*)$/m.exec(env)![1]!
  t.equal(statSync(xauthority).uid, fixture.user.uid, 'the X cookie the commands use is a copy of the user\'s own')
  t.equal(statSync(xauthority).mode & 0o777, 0o600)
})

t.test('OpenAI shell_call and local_shell_call, answered with their output items', async (t) => {
  const shell = await post('/computer/openai-shell', {
    type: 'shell_call', id: 'sh_1', call_id: 'call_1', status: 'completed', environment: null,
    action: { commands: ['echo "$HOME"', 'ls missing; exit 4', 'sleep 100'], timeout_ms: 1000, max_output_length: 1000 },
  })
  t.strictSame(shell, {
    status: 200,
    body: {
      type: 'shell_call_output',
      call_id: 'call_1',
      output: [
        { stdout: `${fixture.home}\n`, stderr: '', outcome: { type: 'exit', exit_code: 0 } },
        { stdout: '', stderr: "ls: cannot access 'missing': No such file or directory\n", outcome: { type: 'exit', exit_code: 4 } },
        { stdout: '', stderr: '', outcome: { type: 'timeout' } },
      ],
      max_output_length: 1000,
    },
  })
  const local = await post('/computer/openai-shell?tool_version=local_shell', { type: 'local_shell_call', id: 'ls_1', call_id: 'call_2', status: 'completed', action: { type: 'exec', command: ['printf', '%s', 'hi'], env: {} } })
  t.strictSame(local, { status: 200, body: { type: 'local_shell_call_output', id: 'call_2', output: JSON.stringify({ stdout: 'hi', stderr: '', exit_code: 0, timed_out: false, truncated: false }), status: 'completed' } })
  const env = await post('/computer/openai-shell?tool_version=local_shell', { type: 'exec', command: ['env'], env: { LD_PRELOAD: '/tmp/x.so' } })
  t.strictSame(env, { status: 400, body: { statusCode: 400, code: 'ERR_INVALID_PAYLOAD', error: 'Bad Request', message: "local_shell: env is refused: commands run with the desktop user's own environment, never one a model sets" } })
})

t.test('one toolset turn: a computer member and a bash block beside it, answered in order', async (t) => {
  const { status, body } = await post('/computer/anthropic', [
    { type: 'text', text: 'Looking, and listing.' },
    { type: 'tool_use', id: 'toolu_m', name: 'cursor_position', toolset_name: 'computer', input: {} },
    { type: 'tool_use', id: 'toolu_b', name: 'bash', input: { command: 'echo beside' } },
    { type: 'tool_use', id: 'toolu_e', name: 'str_replace_based_edit_tool', input: { command: 'view', path: 'bin' } },
  ])
  t.equal(status, 200)
  t.match(body[0], { type: 'tool_result', tool_use_id: 'toolu_m', toolset_name: 'computer', content: [{ type: 'text', text: /^X=\d+,Y=\d+$/ }] })
  t.strictSame(body.slice(1), [
    { type: 'tool_result', tool_use_id: 'toolu_b', content: [{ type: 'text', text: 'beside' }] },
    { type: 'tool_result', tool_use_id: 'toolu_e', content: [{ type: 'text', text: "Here's the files and directories up to 2 levels deep in bin, excluding hidden items:\nbin\nbin/answer.sh\n" }] },
  ])
})

t.test('MCP: the bash and edit tools', async (t) => {
  const client = new Client({ name: 'e2e-shell', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }))
  t.teardown(() => client.close())
  const names = (await client.listTools()).tools.map((tool) => tool.name)
  t.ok(['run_command', 'bash', 'edit'].every((name) => names.includes(name)), 'listed when the server serves them')
  const edited = await client.callTool({ name: 'edit', arguments: { command: 'create', path: 'mcp.txt', file_text: 'from mcp\n' } })
  t.match(edited, { isError: undefined, structuredContent: { output: 'File created successfully at: mcp.txt', error: null } })
  const ran = await client.callTool({ name: 'bash', arguments: { command: 'cat mcp.txt' } })
  t.match(ran, { structuredContent: { command_result: { exit_code: 0, stdout: 'from mcp\n', stderr: '', timed_out: false } } })
  const out = await client.callTool({ name: 'edit', arguments: { command: 'view', path: '../etc/passwd' } })
  t.match(out, { isError: true, content: [{ type: 'text', text: "'../etc/passwd' climbs out with '..': paths stay under the desktop's home directory" }] })
})

t.test('a fork bomb ends at its bounds, and the desktop still acts', async (t) => {
  const bomb = await post('/computer', { action: 'bash', command: 'bomb() { bomb | bomb & }; bomb; sleep 60', timeout: 3, session: 'bomb' })
  t.match(bomb.body.command_result, { timed_out: true })
  t.match(bomb.body.output, /^timed out: the command did not return within 3 s, so the bash session and everything it started were killed/)
  const moved = await post('/computer', { action: 'move_mouse', coordinates: [123, 234] })
  t.strictSame(moved, { status: 200, body: { output: 'moved to (123, 234)', error: null, base64_image: null, cursor_position: [123, 234] } })
  const shot = await post('/computer', { action: 'take_screenshot' })
  t.equal(shot.status, 200)
  t.match(shot.body.base64_image, /^iVBORw0KGgo/, 'a screenshot')
  const still = await post('/computer', { action: 'run_command', argv: ['echo', 'ok'] })
  t.equal(still.body.command_result.stdout, 'ok\n', 'the shell works again')
})
