/**
 * /files against a hostile program on the desktop: real processes, started here and ended by
 * PID, swap what is under the home while hundreds of requests run over real sockets. A
 * directory flipped with a link to an outside folder holding canaries: no canary is read,
 * written, created beside or deleted, ever, and every request is answered (a 4xx is fine, a
 * 5xx is not). A FIFO swapped in: nothing blocks. A second local user (made here, removed at
 * teardown) swapping a directory the server just made for a link to a root-only file: no
 * root file changes owner. A full disk (a small tmpfs mounted here): 507, the old file kept.
 *
 * These need root (useradd, mount, giving files away), as the server has when it serves a home
 * that is another user's.
 */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { build } from './helpers/build.ts'
import { secondUser, send, smallDisk, tree, type Answer } from './helpers/files.ts'
import { spawnOwned, stopOwned } from './helpers/processes.ts'

t.setTimeout(240_000)
t.equal(process.getuid?.(), 0, 'these tests run as root (useradd, mount, chown): run them in the image or as root')

interface TestContext { teardown: (fn: () => unknown) => void }

const TOKEN = 'a-token-of-24-characters'
const CANARY = 'OUTSIDE-CANARY'

/** A scratch root (0755, so a second user may enter) with the home and, beside it, an outside folder of canaries. */
function scratch (t: TestContext) {
  const root = mkdtempSync(join(tmpdir(), 'files-hostile-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  chmodSync(root, 0o755)
  const home = join(root, 'home')
  const outside = join(root, 'outside')
  mkdirSync(home)
  mkdirSync(outside)
  for (const name of ['hostname', 'victim', 'x', 'outside-only.txt']) writeFileSync(join(outside, name), `${CANARY} ${name}`)
  return { root, home, outside }
}

/** What is outside the home, byte for byte, with owners: compared before and after. */
function snapshot (dir: string): Record<string, string> {
  const entries: Record<string, string> = {}
  for (const name of tree(dir)) {
    const path = join(dir, name)
    const info = lstatSync(path)
    entries[name] = `${info.uid}:${info.gid}:${(info.mode & 0o7777).toString(8)}:${info.isFile() ? readFileSync(path, 'utf8') : info.isDirectory() ? 'dir' : 'other'}`
  }
  return entries
}

async function listening (t: TestContext, home: string, maxTotal = 1024 * 1024 * 1024) {
  const { app } = await build(t, { token: TOKEN, files: { home, maxFileSize: 64 * 1024 * 1024, maxTotal } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  return (app.server.address() as { port: number }).port
}

/**
 * A program on the desktop: a Node loop in its own process (as `user`, when given), ended by
 * PID at teardown. Its script writes the file READY names once it is at work: the requests
 * start only then (within 20 s, else the test fails).
 */
async function hostile (t: TestContext, script: string, env: Record<string, string> & { READY: string }, user?: { uid: number, gid: number }) {
  const child = spawnOwned(t, process.execPath, ['-e', script], { env: { ...env, PATH: process.env.PATH }, stdio: 'ignore', ...user })
  for (let i = 0; i < 400 && !existsSync(env.READY) && child.exitCode === null; i++) await delay(50)
  if (!existsSync(env.READY)) throw new Error(`the hostile program did not start (exit code ${child.exitCode})`)
  return { stop: () => stopOwned(child), child }
}

/** `count` requests made by `make(i)`, `width` at a time; every one must be answered within its deadline. */
async function storm (count: number, width: number, make: (i: number) => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = []
  for (let start = 0; start < count; start += width) {
    answers.push(...await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, k) => make(start + k))))
  }
  return answers
}

const statusCounts = (answers: Answer[]) => {
  const counts: Record<number, number> = {}
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1
  return counts
}

/**
 * Flips home/race between a directory (holding its own hostname and victim) and a link to the
 * outside folder, as fast as it can: both are kept beside it and renamed in and out in turn,
 * so each state lasts about as long and `race` is missing only between two renames. Whatever
 * took the name meanwhile (a directory an upload made) is thrown away, and whichever of the
 * two got lost is made again.
 */
const FLIP = `
const fs = require('node:fs')
process.chdir(process.env.HOME_DIR)
const quiet = (fn) => { try { fn() } catch {} }
const into = (name) => { try { fs.renameSync(name, 'race') } catch { quiet(() => fs.rmSync('race', { recursive: true, force: true })); quiet(() => fs.renameSync(name, 'race')) } }
for (let ready = false; ; ready = true) {
  if (ready) quiet(() => fs.writeFileSync(process.env.READY, ''))
  quiet(() => fs.mkdirSync('race.dir'))
  quiet(() => fs.writeFileSync('race.dir/hostname', 'inside', { flag: 'wx' }))
  quiet(() => fs.symlinkSync(process.env.OUTSIDE, 'race.link'))
  // The directory in; its victim put back while it is there (when a DELETE took it).
  into('race.dir')
  quiet(() => fs.writeFileSync('race/victim', 'inside', { flag: 'wx' }))
  quiet(() => fs.writeFileSync('pad', 'pad'))
  quiet(() => fs.renameSync('race', 'race.dir'))
  // The link in, for as long.
  into('race.link')
  quiet(() => fs.writeFileSync('pad', 'pad'))
  quiet(() => fs.writeFileSync('pad', 'pad'))
  quiet(() => fs.renameSync('race', 'race.link'))
}`

t.test('a directory flipped with a link to an outside folder: nothing outside is read, written, created or deleted, and every request is answered', async (t) => {
  const { home, outside } = scratch(t)
  const before = snapshot(outside)
  const port = await listening(t, home)
  const loop = await hostile(t, FLIP, { HOME_DIR: home, OUTSIDE: outside, READY: join(home, '.ready') })
  const allowed = new Set([200, 201, 403, 404, 409])
  const rounds: Record<string, Record<number, number>> = {}
  for (const [kind, make] of [
    ['GET', (i: number) => send(port, 'GET', `/files/race/hostname?${i}`, { token: TOKEN })],
    ['PUT', (i: number) => send(port, 'PUT', '/files/race/x', { token: TOKEN, body: `pwned ${i}` })],
    ['DELETE', () => send(port, 'DELETE', '/files/race/victim', { token: TOKEN })],
    ['LIST', () => send(port, 'GET', '/files?path=race', { token: TOKEN })],
  ] as const) {
    const answers = await storm(300, 12, make)
    rounds[kind] = statusCounts(answers)
    t.same(answers.filter((a) => !allowed.has(a.status)).map((a) => `${a.status} ${a.body}`), [], `${kind}: every answer is 2xx or a 4xx, never a 5xx`)
    t.notOk(answers.some((a) => a.body.includes(CANARY) || a.body.includes('outside-only')), `${kind}: no answer holds a byte or a name from outside`)
    t.ok(answers.some((a) => a.status === 403) || answers.some((a) => a.status === 409) || answers.some((a) => a.status === 404), `${kind}: the flip was met (${JSON.stringify(rounds[kind])})`)
  }
  await loop.stop()
  t.ok(Object.values(rounds).some((counts) => (counts[200] ?? 0) + (counts[201] ?? 0) > 0), `some requests met the directory: ${JSON.stringify(rounds)}`)
  t.ok(Object.values(rounds).some((counts) => (counts[403] ?? 0) > 0), `some met the link: ${JSON.stringify(rounds)}`)
  t.same(snapshot(outside), before, 'the outside folder is exactly as it was: no file read into an answer, written, created (no .upload), deleted or changed owner')
  t.comment(`answers: ${JSON.stringify(rounds)}`)
})

/** Swaps home/pipe between a FIFO and a regular file, and home/fdir between a FIFO and a directory, by renames in turn. */
const FIFOS = `
const fs = require('node:fs')
const { execFileSync } = require('node:child_process')
process.chdir(process.env.HOME_DIR)
const quiet = (fn) => { try { fn() } catch {} }
execFileSync('mkfifo', ['pipe.fifo', 'fdir.fifo'])
fs.writeFileSync('pipe', 'inside')
fs.mkdirSync('fdir')
fs.writeFileSync(process.env.READY, '')
for (;;) {
  // The FIFOs in.
  quiet(() => fs.renameSync('pipe', 'pipe.file'))
  quiet(() => fs.renameSync('pipe.fifo', 'pipe'))
  quiet(() => fs.renameSync('fdir', 'fdir.dir'))
  quiet(() => fs.renameSync('fdir.fifo', 'fdir'))
  // The file and the directory in.
  quiet(() => fs.renameSync('pipe', 'pipe.fifo'))
  quiet(() => fs.renameSync('pipe.file', 'pipe'))
  quiet(() => fs.renameSync('fdir', 'fdir.fifo'))
  quiet(() => fs.renameSync('fdir.dir', 'fdir'))
}`

t.test('a FIFO swapped in blocks nothing: every request is answered at once, and later ones too', async (t) => {
  const { home } = scratch(t)
  const port = await listening(t, home)
  const loop = await hostile(t, FIFOS, { HOME_DIR: home, READY: join(home, '.ready') })
  const allowed = new Set([200, 201, 404, 409])
  for (const [kind, make] of [
    ['GET', () => send(port, 'GET', '/files/pipe', { token: TOKEN, timeoutMs: 5000 })],
    ['LIST', () => send(port, 'GET', '/files?path=fdir', { token: TOKEN, timeoutMs: 5000 })],
    ['PUT', (i: number) => send(port, 'PUT', `/files/fdir/f${i}`, { token: TOKEN, body: 'x', timeoutMs: 5000 })],
  ] as const) {
    const answers = await storm(200, 12, make)
    t.same(answers.filter((a) => !allowed.has(a.status)).map((a) => `${a.status} ${a.body}`), [], `${kind}: all answered, none a 5xx`)
    if (kind !== 'PUT') t.ok(answers.some((a) => a.status === 409), `${kind}: the FIFO was met and refused (${JSON.stringify(statusCounts(answers))})`)
    t.comment(`${kind}: ${JSON.stringify(statusCounts(answers))}`)
  }
  await loop.stop()
  // A FIFO left in place with no writer: answered at once, and the server goes on answering.
  execFileSync('mkfifo', [join(home, 'still')])
  for (const [method, url, message] of [
    ['GET', '/files/still', "'still' is not a regular file"],
    ['PUT', '/files/still/inner.txt', "'still' is not a directory: nothing can be under it"],
    ['GET', '/files?path=still', "'still' is a file, not a directory: download it with GET /files/still"],
  ] as const) {
    const answer = await send(port, method, url, { token: TOKEN, timeoutMs: 2000, ...(method === 'PUT' && { body: 'x' }) })
    t.same({ status: answer.status, body: JSON.parse(String(answer.body)) }, { status: 409, body: { statusCode: 409, code: 'ERR_PATH_CONFLICT', error: 'Conflict', message } }, `${method} ${url}`)
  }
  t.equal((await send(port, 'GET', '/files?path=', { token: TOKEN, timeoutMs: 2000 })).status, 200, 'the listing still answers')
})

/** As the second user, in home/e2: every directory n<i> the server has just made (still empty) is swapped for a link to a root-only file or directory. */
const SWAP = `
const fs = require('node:fs')
process.chdir(process.env.E2)
const names = Array.from({ length: Number(process.env.COUNT) }, (_, i) => 'n' + i)
const targets = [process.env.SECRET_FILE, process.env.SECRET_DIR]
let k = 0
fs.writeFileSync(process.env.READY, '')
for (;;) {
  for (const name of names) {
    try { fs.rmdirSync(name); fs.symlinkSync(targets[k++ % 2], name) } catch {}
  }
}`

t.test("a second user swapping the directory the server just made for a link to a root-only file: no root file changes owner", async (t) => {
  const { root, home } = scratch(t)
  const { uid, gid } = secondUser(t)
  chownSync(home, uid, gid)
  const secrets = join(root, 'secrets')
  mkdirSync(secrets, { mode: 0o755 })
  writeFileSync(join(secrets, 'root-only'), 'root only', { mode: 0o600 })
  mkdirSync(join(secrets, 'root-dir'), { mode: 0o700 })
  const before = snapshot(secrets)
  const port = await listening(t, home)
  // e2 is the user's, made by the server like any upload's parent.
  t.equal((await send(port, 'PUT', '/files/e2/first.txt', { token: TOKEN, body: 'x' })).status, 201)
  t.same([statSync(join(home, 'e2')).uid, statSync(join(home, 'e2')).gid], [uid, gid], 'the directory made for an upload is the home owner\'s')
  const count = 300
  const loop = await hostile(t, SWAP, { E2: join(home, 'e2'), COUNT: String(count), SECRET_FILE: join(secrets, 'root-only'), SECRET_DIR: join(secrets, 'root-dir'), READY: join(home, 'e2', '.ready') }, { uid, gid })
  const answers = await storm(count, 6, (i) => send(port, 'PUT', `/files/e2/n${i}/f.txt`, { token: TOKEN, body: 'x' }))
  await loop.stop()
  const counts = statusCounts(answers)
  t.same(answers.filter((a) => ![201, 403, 409].includes(a.status)).map((a) => `${a.status} ${a.body}`), [], 'every upload is written or refused with a 4xx')
  t.ok((counts[403] ?? 0) > 0, `the swap was met: links leading out refused (${JSON.stringify(counts)})`)
  t.same(snapshot(secrets), before, 'no root file or directory changed owner, mode or content')
  for (const [i, answer] of answers.entries()) {
    if (answer.status !== 201) continue
    const dir = statSync(join(home, `e2/n${i}`))
    const file = statSync(join(home, `e2/n${i}/f.txt`))
    if (dir.uid !== uid || file.uid !== uid) t.fail(`e2/n${i} or its file is not the home owner's`)
  }
  t.comment(`answers: ${JSON.stringify(counts)}`)

  // What the home's owner could not read is not read for them: a root-only file in their home, a hard
  // link to one (where fs.protected_hardlinks is off), a root-only directory; their own files are.
  writeFileSync(join(home, 'root-only.txt'), 'root only', { mode: 0o600 })
  linkSync(join(secrets, 'root-only'), join(home, 'hard-link'))
  mkdirSync(join(home, 'root-dir'), { mode: 0o700 })
  writeFileSync(join(home, 'mine.txt'), 'mine', { mode: 0o600 })
  chownSync(join(home, 'mine.txt'), uid, gid)
  const forbidden = (path: string) => ({ statusCode: 403, code: 'ERR_PATH_FORBIDDEN', error: 'Forbidden', message: `'${path}' is not readable by the owner of the desktop's home directory, so it is not served` })
  for (const [url, path] of [['/files/root-only.txt', 'root-only.txt'], ['/files/hard-link', 'hard-link'], ['/files?path=root-dir', 'root-dir']] as const) {
    const answer = await send(port, 'GET', url, { token: TOKEN })
    t.same({ status: answer.status, body: JSON.parse(String(answer.body)) }, { status: 403, body: forbidden(path) }, url)
  }
  t.equal(String((await send(port, 'GET', '/files/mine.txt', { token: TOKEN })).body), 'mine', "the owner's own file is served")
})

t.test('a full disk answers 507 with the reason, keeps the old file and leaves no temporary file', async (t) => {
  const home = smallDisk(t, '1m')
  const port = await listening(t, home)
  t.equal((await send(port, 'PUT', '/files/report.txt', { token: TOKEN, body: 'the old report' })).status, 201)
  const full = (path: string) => ({
    statusCode: 507,
    code: 'ERR_DISK_FULL',
    error: 'Insufficient Storage',
    message: `the disk holding the desktop's home directory is full (ENOSPC): '${path}' was not written, and any file that was there is unchanged; free some space and try again`,
  })
  for (const [name, path, body] of [
    ['replacing a file with more than the disk holds', 'report.txt', Buffer.alloc(2 * 1024 * 1024, 1)],
    ['a new file, in a new directory', 'new/big.bin', Buffer.alloc(2 * 1024 * 1024, 2)],
  ] as const) {
    const answer = await send(port, 'PUT', `/files/${path}`, { token: TOKEN, body })
    t.same({ status: answer.status, body: JSON.parse(String(answer.body)) }, { status: 507, body: full(path) }, name)
  }
  t.equal(readFileSync(join(home, 'report.txt'), 'utf8'), 'the old report', 'the old file is kept')
  t.same(readdirSync(home).filter((name) => name.endsWith('.upload')), [], 'no temporary file is left')
  t.equal((await send(port, 'PUT', '/files/small.txt', { token: TOKEN, body: 'fits' })).status, 201, 'the room a refused upload took is free again')
})
