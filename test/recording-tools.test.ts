/**
 * A recorded episode with shell and editor calls keeps what was asked and how each call ended
 * (the command, its exit code, the bytes it wrote), never what a command printed or a file
 * held; and the server's log has one line per command, without its text or output. Real
 * commands run as a second local user made for the test (root only).
 */
import t from 'tap'
import { build } from './helpers/build.ts'
import { everyByte, recordingStore } from './helpers/recording-store.ts'
import { desktopHome, shellLimits } from './helpers/tools.ts'

t.equal(process.getuid?.(), 0, 'these tests run as root (useradd, setpriv): run them in the image or as root')

const TOKEN = 'recording-tools-token-0123456789'
const PRINTED = 'printed-by-the-command-7f3a'
const FILE_TEXT = 'held-in-the-file-91c2'
const GENEROUS = { maxBytes: 64 << 20, maxAgeMs: 3600_000, idleMs: 60_000, minFreeBytes: 0, maxActive: 100, maxPerMinute: 1000 }

t.test('recorded: commands and exit codes, output sizes; not kept: output, file text in answers', async (t) => {
  const { home } = desktopHome(t)
  const dir = await recordingStore(t)
  const { app, lines } = await build(t, {
    token: TOKEN,
    recording: { dir, ...GENEROUS },
    shell: { home, limits: shellLimits() },
    files: { home, maxFileSize: 1 << 20, maxTotal: 1 << 30 },
  })
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-recording-id': 'tools-1' }
  const send = async (url: string, body: unknown) => (await app.inject({ method: 'POST', url, headers, payload: JSON.stringify(body) })).json()
  await send('/computer', { action: 'edit', command: 'create', path: 'f.txt', file_text: `${FILE_TEXT}\n` })
  const viewed = await send('/computer', { action: 'edit', command: 'view', path: 'f.txt' })
  t.match(viewed.output, FILE_TEXT, 'the client gets the file')
  const ran = await send('/computer', { action: 'run_command', command: `echo ${PRINTED.slice(0, 10)}$(echo ${PRINTED.slice(10)}); echo err >&2; exit 5` })
  t.equal(ran.command_result.stdout, `${PRINTED}\n`, 'the client gets the output')
  const claude = await send('/computer/anthropic?tool_version=bash_20250124', { command: `echo ${PRINTED.slice(0, 10)}$(echo ${PRINTED.slice(10)})` })
  t.strictSame(claude, { type: 'tool_result', content: [{ type: 'text', text: PRINTED }], is_error: false })

  const episode = (await app.inject({ method: 'GET', url: '/recordings/tools-1', headers: { authorization: `Bearer ${TOKEN}` } })).json()
  const [create, view, run, bash] = episode.steps
  t.match(create, { payload: { action: 'edit', command: 'create', path: 'f.txt', file_text: `${FILE_TEXT}\n` }, runs: [{ results: [{ output: 'File created successfully at: f.txt' }] }] }, 'what the model asked is kept')
  t.strictSame(view.runs[0].results[0].output, `[view: ${viewed.output.length} characters of the file not kept]`)
  t.equal(view.response, '[the answer to a shell or editor call is not kept: its results below say how each call ended]')
  t.strictSame(run.runs[0].results[0].command_result, {
    exit_code: 5, signal: null, stdout: `[${PRINTED.length + 1} bytes not kept]`, stderr: '[4 bytes not kept]', stdout_bytes: PRINTED.length + 1, stderr_bytes: 4, truncated: false, timed_out: false,
  })
  t.match(bash, { route: '/computer/anthropic', runs: [{ actions: [{ action: 'bash', command: /^echo / }], results: [{ command_result: { exit_code: 0, stdout: `[${PRINTED.length + 1} bytes not kept]` } }] }] })
  const stored = await everyByte(dir)
  t.notOk(stored.includes(PRINTED), 'no byte of the store holds what a command printed')
  const inCreate = JSON.stringify(create).split(FILE_TEXT).length - 1
  t.equal(inCreate, 2, 'the create the model asked for keeps the text: its payload and its action')
  t.equal(stored.split(FILE_TEXT).length - 1, inCreate, 'and nothing else of the store holds it (the view\'s answer and result do not)')

  const logged = lines.join('\n')
  t.notOk(logged.includes(PRINTED) || logged.includes(PRINTED.slice(10)), 'the log holds neither the output nor the command')
  const ended = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'command ended')
  t.match(ended, [
    { action: 'run_command', exitCode: 5, signal: null, stdoutBytes: PRINTED.length + 1, stderrBytes: 4, timedOut: false, truncated: false },
    { action: 'bash', exitCode: 0, stdoutBytes: PRINTED.length + 1, stderrBytes: 0, timedOut: false },
  ])
})
