/**
 * Scrapybara's file and code tools on the server (routes/scrapybara-tools.ts) over the fake
 * driver, with real files in a home owned by a second local user and real python3 kernels run
 * as that user (root only: useradd, setpriv). Each file command's whole answer, its refusals
 * (an unknown command, a missing or foreign field, `..`, a link out, a person holding the
 * desktop) and what it left on disk; a kernel keeping a variable between calls, an exception,
 * a timeout that ends the kernel and says so.
 */
import t from 'tap'
import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { build, post } from './helpers/build.ts'
import { desktopHome, shellLimits } from './helpers/tools.ts'

t.setTimeout(180_000)
t.equal(process.getuid?.(), 0, 'these tests run as root (useradd, setpriv): run them in the image or as root')

interface TestContext { teardown: (fn: () => unknown) => void }

async function tools (t: TestContext, options: { shell?: boolean, files?: boolean } = { shell: true, files: true }) {
  const fixture = desktopHome(t)
  const built = await build(t, {
    ...(options.shell && { shell: { home: fixture.home, limits: shellLimits({ timeoutMs: 10_000, maxOutputBytes: 4096 }) } }),
    ...(options.files && { files: { home: fixture.home, maxFileSize: 1024 * 1024, maxTotal: 1024 * 1024 * 1024 } }),
  })
  return { ...fixture, ...built }
}

const FILE = '/v1/instance/any/file'
const CODE = '/v1/instance/any/code/execute'
const ok = (output: string, extra: Record<string, unknown> = {}) => ({ status: 200, body: { output, ...extra } })
const refused = (status: number, code: string, message: string) => ({
  status,
  body: { statusCode: status, code, error: ({ 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 423: 'Locked' } as Record<number, string>)[status], message },
})
const answer = ({ status, body }: { status: number, body: unknown }) => ({ status, body })

t.test('file: every command over the home, in order, with its whole answer and what it left on disk', async (t) => {
  const { app, home } = await tools(t)
  const rows: Array<[string, Record<string, unknown>, unknown]> = [
    ['write utf-8, parents made', { command: 'write', path: 'notes/a.txt', content: 'one\ntwo\nthree\n' }, ok('wrote 14 bytes to notes/a.txt')],
    ['read it back', { command: 'read', path: 'notes/a.txt' }, ok('one\ntwo\nthree\n')],
    ['write base64 bytes, by an absolute path in the home', { command: 'write', path: `${home}/bin.dat`, content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' }, ok(`wrote 4 bytes to ${home}/bin.dat`)],
    ['read them as base64', { command: 'read', path: 'bin.dat', encoding: 'base64' }, ok('AAEC/w==')],
    ['binary read as text: refused, saying how', { command: 'read', path: 'bin.dat' }, refused(400, 'ERR_INVALID_ACTION', "'bin.dat' is not UTF-8 text: read it with encoding 'base64'")],
    ['append', { command: 'append', path: 'notes/a.txt', content: 'four\n' }, ok('appended 5 bytes to notes/a.txt')],
    ["write with mode 'a' appends too", { command: 'write', path: 'notes/a.txt', content: 'five', mode: 'a' }, ok('appended 4 bytes to notes/a.txt')],
    ['exists: a file', { command: 'exists', path: 'notes/a.txt' }, ok('true')],
    ['exists: a directory', { command: 'exists', path: 'notes' }, ok('true')],
    ['exists: nothing', { command: 'exists', path: 'nope' }, ok('false')],
    ['mkdir without recursive, parent missing', { command: 'mkdir', path: 'x/y' }, refused(404, 'ERR_FILE_NOT_FOUND', "the directory that would hold 'x/y' does not exist: make it first, or pass recursive: true")],
    ['mkdir recursive', { command: 'mkdir', path: 'x/y', recursive: true }, ok('made the directory x/y')],
    ['mkdir again, not recursive', { command: 'mkdir', path: 'x/y' }, refused(409, 'ERR_PATH_CONFLICT', "'x/y' exists already")],
    ['copy a file', { command: 'copy', src: 'notes/a.txt', dst: 'x/y/b.txt' }, ok('copied notes/a.txt to x/y/b.txt')],
    ['copy onto something there', { command: 'copy', src: 'notes/a.txt', dst: 'x/y/b.txt' }, refused(409, 'ERR_PATH_CONFLICT', "'x/y/b.txt' exists already: delete it first, or copy to another name")],
    ['copy a directory needs recursive', { command: 'copy', src: 'x', dst: 'x2' }, refused(409, 'ERR_PATH_CONFLICT', "'x' is a directory: copy it with recursive: true")],
    ['copy a directory', { command: 'copy', src: 'x', dst: 'x2', recursive: true }, ok('copied x to x2: 2 entries')],
    ['list', { command: 'list' }, ok('bin.dat\nlong.txt\nnotes/\nx/\nx2/')],
    ['list recursive', { command: 'list', path: 'x2', recursive: true }, ok('y/\ny/b.txt')],
    ['move', { command: 'move', src: 'x2/y/b.txt', dst: 'moved/c.txt' }, ok('moved x2/y/b.txt to moved/c.txt')],
    ['move onto something there', { command: 'move', src: 'notes/a.txt', dst: 'moved/c.txt' }, refused(409, 'ERR_PATH_CONFLICT', "'moved/c.txt' exists already: delete it first, or move to another name")],
    ['replace: exactly one', { command: 'replace', path: 'moved/c.txt', old_str: 'two', new_str: 'TWO' }, ok(`The file moved/c.txt has been edited. Here's the result of running \`cat -n\` on a snippet of moved/c.txt:\n     1\tone\n     2\tTWO\n     3\tthree\n     4\tfour\n     5\tfive\nReview the changes and make sure they are as expected. Edit the file again if necessary.`)],
    ['replace: all occurrences', { command: 'replace', path: 'moved/c.txt', old_str: 'e', new_str: 'E', all_occurrences: true }, ok('replaced 4 occurrences in moved/c.txt')],
    ['replace: none there', { command: 'replace', path: 'moved/c.txt', old_str: 'zzz', all_occurrences: true }, refused(400, 'ERR_INVALID_ACTION', 'No replacement was performed, old_str `zzz` did not appear verbatim in moved/c.txt.')],
    ['insert', { command: 'insert', path: 'moved/c.txt', line: 0, text: 'zero' }, ok("The file moved/c.txt has been edited. Here's the result of running `cat -n` on a snippet of the edited file:\n     1\tzero\n     2\tonE\n     3\tTWO\n     4\tthrEE\n     5\tfour\nReview the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.")],
    ['delete_lines', { command: 'delete_lines', path: 'moved/c.txt', lines: [1, 3] }, ok('deleted 2 lines from moved/c.txt')],
    ['delete_lines past the end', { command: 'delete_lines', path: 'moved/c.txt', lines: [9] }, refused(400, 'ERR_INVALID_ACTION', 'line 9 is not in moved/c.txt: its lines are 1 to 4')],
    ['view a range', { command: 'view', path: 'moved/c.txt', view_range: [1, 2] }, ok("Here's the result of running `cat -n` on moved/c.txt:\n     1\tonE\n     2\tthrEE\n")],
    ['create', { command: 'create', path: 'src/m.py', content: 'import os\nprint(os.getcwd())\n' }, ok('File created successfully at: src/m.py')],
    ['grep a file', { command: 'grep', path: 'notes/a.txt', pattern: 'o' }, ok('1:one\n2:two\n4:four')],
    ['grep a tree, case-insensitive, no numbers', { command: 'grep', pattern: '^(one|IMPORT)', recursive: true, case_sensitive: false, line_numbers: false }, ok('moved/c.txt:onE\nnotes/a.txt:one\nsrc/m.py:import os\nx/y/b.txt:one')],
    ['grep: a backreference is not linear', { command: 'grep', pattern: '(a)\\1' }, refused(400, 'ERR_INVALID_ACTION', 'pattern is not a regular expression grep can run in linear time (no backreferences or lookaround): Invalid regular expression: /(a)\\1/l: Cannot be executed in linear time')],
    ['grep: a catastrophic pattern runs in linear time', { command: 'grep', path: 'long.txt', pattern: '(a+)+$' }, ok('')],
    ['delete a non-empty directory', { command: 'delete', path: 'x' }, refused(409, 'ERR_PATH_CONFLICT', "'x' is a directory that is not empty: delete what it holds first")],
    ['delete recursive', { command: 'delete', path: 'x', recursive: true }, ok('deleted the directory x and the 2 entries under it')],
    ['delete a file', { command: 'delete', path: 'bin.dat' }, ok('deleted the file bin.dat')],
  ]
  writeFileSync(join(home, 'long.txt'), 'a'.repeat(5000) + 'b\n')
  for (const [what, body, expected] of rows) t.strictSame(answer(await post(app, FILE, body)), expected, what)
  t.equal(readFileSync(join(home, 'moved/c.txt'), 'utf8'), 'onE\nthrEE\nfour\nfivE', 'the edits on disk')
  t.notOk(existsSync(join(home, 'x')), 'the tree deleted')
  t.strictSame(readdirSync(join(home, 'x2/y')), [], 'moved away from where it was')
})

t.test('file: refusals name the command\'s fields, the home is a jail, a person holding the desktop stops writes', async (t) => {
  const { app, home, outside } = await tools(t)
  writeFileSync(join(outside, 'secret.txt'), 'secret')
  symlinkSync(outside, join(home, 'out'))
  mkdirSync(join(home, 'd'))
  writeFileSync(join(home, 'd/keep.txt'), 'kept')
  symlinkSync('d', join(home, 'dlink'))
  const rows: Array<[string, Record<string, unknown>, unknown]> = [
    ['an unknown command', { command: 'chmod', path: 'a' }, refused(400, 'ERR_INVALID_ACTION', 'unknown file command \'chmod\': one of read, write, append, exists, list, mkdir, delete, move, copy, view, create, replace, insert, delete_lines, grep')],
    ['a missing field', { command: 'write', path: 'a' }, refused(400, 'ERR_INVALID_ACTION', 'write is missing content: write needs path, content and takes encoding, mode')],
    ['a field the command does not take', { command: 'read', path: 'a', pattern: 'x' }, refused(400, 'ERR_INVALID_ACTION', "'pattern' is not a field of read: read needs path and takes encoding")],
    ['nulls are absent (the Python SDK sends them)', { command: 'exists', path: 'd', pattern: null }, ok('true')],
    ['a bad encoding', { command: 'read', path: 'a', encoding: 'latin-1' }, refused(400, 'ERR_INVALID_ACTION', "encoding must be 'utf-8' or 'base64', not 'latin-1'")],
    ['not base64', { command: 'write', path: 'a', content: 'no!', encoding: 'base64' }, refused(400, 'ERR_INVALID_ACTION', "content is not base64 (encoding 'base64')")],
    ['a bad mode', { command: 'write', path: 'a', content: 'x', mode: 'x' }, refused(400, 'ERR_INVALID_ACTION', "mode must be 'w' (replace) or 'a' (append), not 'x'")],
    ['.. out', { command: 'read', path: '../outside/secret.txt' }, refused(403, 'ERR_PATH_FORBIDDEN', "'../outside/secret.txt' climbs out with '..': paths stay under the desktop's home directory")],
    ['an absolute path outside', { command: 'write', path: `${outside}/x`, content: 'x' }, refused(403, 'ERR_PATH_FORBIDDEN', `'${outside}/x' is outside the desktop's home directory ${home}: the editor works only under it`)],
    ['a link out, read', { command: 'read', path: 'out/secret.txt' }, refused(403, 'ERR_PATH_FORBIDDEN', "'out' is a symbolic link leading out of the desktop's home directory")],
    ['a link out, written', { command: 'write', path: 'out/new.txt', content: 'x' }, refused(403, 'ERR_PATH_FORBIDDEN', "'out' is a symbolic link leading out of the desktop's home directory")],
    ['a link out, grep', { command: 'grep', path: 'out', pattern: 'secret' }, refused(403, 'ERR_PATH_FORBIDDEN', "'out' is a symbolic link leading out of the desktop's home directory")],
    ['a link out, copied from', { command: 'copy', src: 'out/secret.txt', dst: 'in.txt' }, refused(403, 'ERR_PATH_FORBIDDEN', "'out' is a symbolic link leading out of the desktop's home directory")],
    ['a move into itself', { command: 'move', src: 'd', dst: 'd/e' }, refused(400, 'ERR_INVALID_ACTION', "'d' cannot be moved into itself ('d/e')")],
    ['a link out, deleted recursively: the link alone', { command: 'delete', path: 'out', recursive: true }, ok('deleted the symlink out')],
    ['a link to a directory inside, deleted recursively: the link alone', { command: 'delete', path: 'dlink', recursive: true }, ok('deleted the symlink dlink')],
  ]
  for (const [what, body, expected] of rows) t.strictSame(answer(await post(app, FILE, body)), expected, what)
  t.notOk(existsSync(join(outside, 'new.txt')), 'nothing written outside')
  t.notOk(existsSync(join(home, 'in.txt')), 'nothing copied in')
  t.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'secret', 'what the link pointed to is untouched')
  t.equal(readFileSync(join(home, 'd/keep.txt'), 'utf8'), 'kept', "what the inside link pointed to is kept")

  t.equal((await post(app, '/control/takeover', {})).status, 200, 'a person takes the desktop')
  const locked = await post(app, FILE, { command: 'write', path: 'a', content: 'x' })
  t.match(answer(locked), { status: 423, body: { code: 'ERR_DESKTOP_TAKEN_OVER' } }, 'a write while a person holds it: 423')
  t.strictSame(answer(await post(app, FILE, { command: 'exists', path: 'a' })), ok('false'), 'nothing written; reads go on')
  t.equal((await post(app, '/control/release', {})).status, 200)
  t.strictSame(answer(await post(app, FILE, { command: 'write', path: 'a', content: 'x' })), ok('wrote 1 bytes to a'), 'written once handed back')
})

t.test('code/execute: a python3 kernel keeps its variables; an exception, a timeout that ends it, a kernel not served', async (t) => {
  const { app, user } = await tools(t)
  const run = async (body: Record<string, unknown>) => answer(await post(app, CODE, body))
  const result = (output: string, error: string | null = null, status = 'ok') => ({ status: 200, body: { output, error, status, kernel_name: 'python3', truncated: false } })
  const rows: Array<[string, Record<string, unknown>, unknown]> = [
    ['a variable set', { code: 'x = 41\nimport os' }, result('')],
    ['kept to the next call; the last expression shown', { code: 'x += 1\nprint("x is", x)\nos.getuid(), os.getcwd() == os.path.expanduser("~")' }, result(`x is 42\n(${user.uid}, True)\n`)],
    ['an exception: its traceback, the kernel goes on', { code: 'def f():\n    raise ValueError("no")\nf()' }, result('', 'Traceback (most recent call last):\n  File "<cell>", line 3, in <module>\n  File "<cell>", line 2, in f\nValueError: no', 'error')],
    ['still there after it', { code: 'x', kernel_name: 'python3', timeout: null }, result('42\n')],
    ['stdin is empty', { code: 'input()' }, result('', 'Traceback (most recent call last):\n  File "<cell>", line 1, in <module>\nEOFError: EOF when reading a line', 'error')],
    ['a timeout kills the kernel and says so', { code: 'print("before", flush=True)\nimport time\ntime.sleep(100)', timeout: 1 }, result('before\n', 'timed out: the command did not return within 1 s, so the python3 kernel and everything it started were killed; the next command starts a new kernel', 'ended')],
    ['a new kernel after it: x is gone', { code: 'print("x" in globals())' }, result('False\n')],
    ['exit() ends the kernel', { code: 'exit(3)' }, result('', 'python3 exited (code 3); the next command starts a new kernel', 'ended')],
    ['a kernel not served', { code: '1', kernel_name: 'ir' }, refused(400, 'ERR_INVALID_ACTION', "kernel_name 'ir' is not served: the kernels are python3")],
    ['a timeout over the limit', { code: '1', timeout: 601 }, refused(400, 'ERR_INVALID_ACTION', "timeout 601 s is over this server's limit of 600 s (--shell-max-timeout)")],
  ]
  for (const [what, body, expected] of rows) t.strictSame(await run(body), expected, what)
  t.equal((await post(app, '/control/takeover', {})).status, 200, 'a person takes the desktop')
  t.match(await run({ code: 'open("taken.txt", "w").write("x")' }), { status: 423, body: { code: 'ERR_DESKTOP_TAKEN_OVER' } }, 'code while a person holds it: 423')
  t.equal((await post(app, '/control/release', {})).status, 200)
  t.strictSame(await run({ code: 'import os; os.path.exists("taken.txt")' }), result('False\n'), 'nothing ran while they held it')
  const long = await run({ code: 'print("y" * 10000)' })
  t.match(long, { status: 200, body: { status: 'ok', truncated: true } }, 'output past --shell-max-output is cut and says so')
  t.equal((long.body as { output: string }).output.length, 4096)
})

t.test('off unless turned on: 403 naming the flag', async (t) => {
  const { app } = await build(t)
  t.strictSame(answer(await post(app, FILE, { command: 'exists', path: 'a' })), refused(403, 'ERR_TOOL_OFF', 'the file tool is off on this server: start it with --files (env FILES=1) and --home, the directory it works in'))
  t.strictSame(answer(await post(app, CODE, { code: '1' })), refused(403, 'ERR_TOOL_OFF', "code execution is off on this server: start it with --shell (env SHELL_TOOL=1), which runs the code as the desktop's user in --home"))
})
