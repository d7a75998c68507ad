/**
 * The dialects of the shell and the editor, translated and refused, nothing run: Claude's bash
 * and text editor tools (each version, a bare input or the whole block, and as blocks of a
 * toolset turn) and OpenAI's shell_call and local_shell_call, into run_command, bash and edit.
 * Off, each answers in its own form with the 403 naming the flag.
 */
import t from 'tap'
import { chownSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build, post } from './helpers/build.ts'
import { shellLimits } from './helpers/tools.ts'

const SHELL_OFF = "the shell is off on this server: start it with --shell (env SHELL_TOOL=1), which runs commands as the desktop's user in --home"

async function served (t: { teardown: (fn: () => unknown) => void }) {
  const home = mkdtempSync(join(tmpdir(), 'agent-tools-'))
  t.teardown(() => rmSync(home, { recursive: true, force: true }))
  // Planning a command checks that it could run as the home's owner, never root: as root, the
  // home is given to nobody (nothing runs here); otherwise it is the server's own user's.
  if (process.getuid?.() === 0) chownSync(home, 65534, 65534)
  return build(t, { shell: { home, limits: shellLimits() }, files: { home, maxFileSize: 1 << 20, maxTotal: 1 << 30 } })
}

const bad = (message: string) => ({ status: 400, body: { statusCode: 400, code: 'ERR_INVALID_PAYLOAD', error: 'Bad Request', message } })
const translated = (actions: unknown[]) => ({ status: 200, actions })

t.test('Claude\'s bash and text editor: each version into bash and edit', async (t) => {
  const { app } = await served(t)
  const cases: Array<{ query: string, body: unknown, answer: unknown }> = [
    { query: 'bash_20250124', body: { command: 'ls -l' }, answer: translated([{ action: 'bash', command: 'ls -l' }]) },
    { query: 'bash_20241022', body: { restart: true }, answer: translated([{ action: 'bash', restart: true }]) },
    { query: 'bash_20250124', body: { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'pwd' } }, answer: translated([{ action: 'bash', command: 'pwd' }]) },
    { query: 'text_editor_20250728', body: { command: 'insert', path: 'a.txt', insert_line: 2, insert_text: 'x' }, answer: translated([{ action: 'edit', command: 'insert', path: 'a.txt', insert_line: 2, insert_text: 'x' }]) },
    { query: 'text_editor_20250124', body: { command: 'insert', path: 'a.txt', insert_line: 0, new_str: 'y' }, answer: translated([{ action: 'edit', command: 'insert', path: 'a.txt', insert_line: 0, insert_text: 'y' }]) },
    { query: 'text_editor_20250124', body: { type: 'tool_use', id: 'toolu_2', name: 'str_replace_editor', input: { command: 'undo_edit', path: 'a.txt' } }, answer: translated([{ action: 'edit', command: 'undo_edit', path: 'a.txt' }]) },
    { query: 'text_editor_20250429', body: { command: 'str_replace', path: 'a', old_str: 'p', new_str: 'q' }, answer: translated([{ action: 'edit', command: 'str_replace', path: 'a', old_str: 'p', new_str: 'q' }]) },
    { query: 'text_editor_20241022', body: { command: 'view', path: 'a', view_range: [1, -1] }, answer: translated([{ action: 'edit', command: 'view', path: 'a', view_range: [1, -1] }]) },
    { query: 'bash_20250124', body: {}, answer: bad('bash: input needs command (a non-empty string) or restart: true') },
    { query: 'bash_20250124', body: { command: 'ls', extra: 1 }, answer: bad("anthropic bash_20250124: unknown field 'extra' (allowed: command, restart)") },
    { query: 'bash_20250124', body: { type: 'tool_use', id: 'toolu_3', name: 'str_replace_based_edit_tool', input: { command: 'ls' } }, answer: bad('anthropic bash_20250124: name must be "bash", not "str_replace_based_edit_tool"') },
    { query: 'text_editor_20250728', body: { command: 'undo_edit', path: 'a' }, answer: bad('str_replace_based_edit_tool: undo_edit is not a command of text_editor_20250728 (only text_editor_20250124 and older have it)') },
    { query: 'bash_20250124&tool_use_id=toolu_other', body: { type: 'tool_use', id: 'toolu_4', name: 'bash', input: { command: 'ls' } }, answer: bad("the tool_use_id query ('toolu_other') is not the id of the tool_use block ('toolu_4'); send one or make them agree") },
  ]
  for (const c of cases) {
    const { status, body } = await post(app, `/computer/anthropic/translate?tool_version=${c.query}`, c.body)
    t.strictSame(status === 200 ? { status, actions: body.actions } : { status, body }, c.answer, `${c.query} ${JSON.stringify(c.body)}`)
  }
})

t.test('a toolset turn: bash and editor blocks beside the members, in order', async (t) => {
  const { app } = await served(t)
  const { status, body } = await post(app, '/computer/anthropic/translate', [
    { type: 'tool_use', id: 'toolu_a', name: 'str_replace_based_edit_tool', input: { command: 'create', path: 's.sh', file_text: 'echo hi\n' } },
    { type: 'text', text: 'then' },
    { type: 'tool_use', id: 'toolu_b', name: 'bash', input: { command: 'bash s.sh' } },
    { type: 'tool_use', id: 'toolu_c', name: 'screenshot', toolset_name: 'computer', input: {} },
  ])
  t.equal(status, 200)
  t.strictSame(body.actions, [
    { action: 'edit', command: 'create', path: 's.sh', file_text: 'echo hi\n' },
    { action: 'bash', command: 'bash s.sh' },
    { action: 'take_screenshot' },
  ])
  const noId = await post(app, '/computer/anthropic/translate', [{ type: 'tool_use', name: 'bash', input: { command: 'ls' } }])
  t.strictSame({ status: noId.status, body: noId.body }, bad('a bash tool_use block needs an id and an input object'))
})

t.test('OpenAI shell_call and local_shell_call into run_command', async (t) => {
  const { app } = await served(t)
  const cases: Array<{ url: string, body: unknown, answer: unknown }> = [
    { url: '/computer/openai-shell/translate', body: { type: 'shell_call', id: 'sh', call_id: 'c1', status: 'completed', action: { commands: ['ls', 'pwd'], timeout_ms: 2500, max_output_length: null } }, answer: translated([{ action: 'run_command', command: 'ls', timeout: 2.5 }, { action: 'run_command', command: 'pwd', timeout: 2.5 }]) },
    { url: '/computer/openai-shell/translate?call_id=c2', body: { commands: ['true'] }, answer: translated([{ action: 'run_command', command: 'true' }]) },
    { url: '/computer/openai-shell/translate?tool_version=local_shell', body: { type: 'local_shell_call', call_id: 'c3', action: { type: 'exec', command: ['ls', '-l'], env: {}, working_directory: null, user: 'root' } }, answer: translated([{ action: 'run_command', argv: ['ls', '-l'] }]) },
    { url: '/computer/openai-shell/translate?tool_version=local_shell', body: { type: 'exec', command: ['ls'], working_directory: '/etc' }, answer: bad("local_shell: working_directory '/etc' is refused: commands start in the desktop's home (cd in a shell command instead)") },
    { url: '/computer/openai-shell/translate?call_id=other', body: { type: 'shell_call', call_id: 'c4', action: { commands: ['ls'] } }, answer: bad("the call_id query ('other') is not the item's call_id ('c4'); send one or make them agree") },
  ]
  for (const c of cases) {
    const { status, body } = await post(app, c.url, c.body)
    t.strictSame(status === 200 ? { status, actions: body.actions } : { status, body }, c.answer, `${c.url} ${JSON.stringify(c.body)}`)
  }
})

t.test('off: each dialect answers in its own form, 403 naming the flag', async (t) => {
  const { app } = await build(t)
  const claude = await post(app, '/computer/anthropic?tool_version=bash_20250124&tool_use_id=toolu_9', { command: 'ls' })
  t.strictSame({ status: claude.status, body: claude.body }, { status: 403, body: { type: 'tool_result', tool_use_id: 'toolu_9', content: [{ type: 'text', text: SHELL_OFF }], is_error: true } })
  const openai = await post(app, '/computer/openai-shell', { type: 'shell_call', call_id: 'c', action: { commands: ['ls'] } })
  t.strictSame({ status: openai.status, body: openai.body }, { status: 403, body: { type: 'shell_call_output', call_id: 'c', output: [], status: 'incomplete', error: SHELL_OFF } })
  const local = await post(app, '/computer/openai-shell?tool_version=local_shell', { type: 'local_shell_call', call_id: 'c', action: { type: 'exec', command: ['ls'] } })
  t.strictSame({ status: local.status, body: local.body }, { status: 403, body: { type: 'local_shell_call_output', id: 'c', output: JSON.stringify({ error: SHELL_OFF }), status: 'incomplete' } })
})
