/**
 * /files (--files): uploads, downloads, listings and deletions under the desktop's home
 * directory and nowhere else. Every traversal attempt is refused with nothing written outside
 * the home; an upload over a limit or cut off midway leaves no file; off unless turned on;
 * behind the token and the Origin guard like every route.
 */
import t from 'tap'
import { appendFileSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, statSync, truncateSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { Agent, request } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { build } from './helpers/build.ts'
import { send } from './helpers/files.ts'

interface TestContext { teardown: (fn: () => unknown) => void }

const TOKEN = 'a-token-of-24-characters'
const auth = { authorization: `Bearer ${TOKEN}` }
const MiB = 1024 * 1024

/** A scratch directory holding the home and, beside it, what must never be written to. */
function scratch (t: TestContext) {
  const root = mkdtempSync(join(tmpdir(), 'files-test-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const home = join(root, 'home')
  const outside = join(root, 'outside')
  mkdirSync(home)
  mkdirSync(outside)
  writeFileSync(join(outside, 'secret.txt'), 'secret')
  return { root, home, outside }
}

/** Every file under `dir`, recursively, as relative paths: what a test compares before and after. */
function tree (dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: false }).map(String).sort()
}

async function filesApp (t: TestContext, limits: { maxFileSize?: number, maxTotal?: number } = {}) {
  const dirs = scratch(t)
  const { app } = await build(t, { token: TOKEN, files: { home: dirs.home, maxFileSize: limits.maxFileSize ?? 1024 * 1024, maxTotal: limits.maxTotal ?? 4 * 1024 * 1024 } })
  return { app, ...dirs }
}

const error = (statusCode: number, code: string, message: string) => ({
  statusCode, code, error: { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 413: 'Payload Too Large' }[statusCode], message,
})

t.test('a file goes up, is listed, comes down byte for byte with its content type, and is deleted', async (t) => {
  const { app, home } = await filesApp(t)
  const csv = 'name,amount\nAlice,10\nBob,20\nZoë 🎉,30\n'
  const put = await app.inject({ method: 'PUT', url: '/files/Documents/sheet.csv', headers: { ...auth, 'content-type': 'text/csv' }, payload: csv })
  t.equal(put.statusCode, 201)
  t.same(put.json(), { path: 'Documents/sheet.csv', size: Buffer.byteLength(csv) })
  t.equal(readFileSync(join(home, 'Documents/sheet.csv'), 'utf8'), csv)
  t.same(tree(home), ['Documents', 'Documents/sheet.csv'], 'no temporary file is left beside it')

  const binary = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256))
  const putBinary = await app.inject({ method: 'PUT', url: '/files/blob.bin', headers: auth, payload: binary })
  t.equal(putBinary.statusCode, 201)
  const got = await app.inject({ method: 'GET', url: '/files/blob.bin', headers: auth })
  t.equal(got.statusCode, 200)
  t.equal(got.headers['content-type'], 'application/octet-stream')
  t.equal(got.headers['content-length'], String(binary.length))
  t.equal(got.headers['x-content-type-options'], 'nosniff')
  t.equal(got.headers['content-disposition'], "attachment; filename*=UTF-8''blob.bin")
  t.ok(got.rawPayload.equals(binary), 'the download is the upload, byte for byte')

  const gotCsv = await app.inject({ method: 'GET', url: '/files/Documents/sheet.csv', headers: auth })
  t.equal(gotCsv.headers['content-type'], 'text/csv')
  t.equal(gotCsv.body, csv)

  const listing = await app.inject({ method: 'GET', url: '/files?path=Documents', headers: auth })
  t.equal(listing.statusCode, 200)
  const modified = statSync(join(home, 'Documents/sheet.csv')).mtime.toISOString()
  t.same(listing.json(), { path: 'Documents', entries: [{ name: 'sheet.csv', kind: 'file', size: Buffer.byteLength(csv), modified }], truncated: false })
  symlinkSync('Documents/sheet.csv', join(home, 'link.csv'))
  const root = (await app.inject({ method: 'GET', url: '/files', headers: auth })).json()
  t.same(root.entries.map((entry: { name: string, kind: string }) => [entry.name, entry.kind]), [['Documents', 'directory'], ['blob.bin', 'file'], ['link.csv', 'symlink']])
  t.equal((await app.inject({ method: 'GET', url: '/files/link.csv', headers: auth })).body, csv, 'a link inside the home is followed')

  // Replacing is atomic too: the new content, no leftovers.
  t.equal((await app.inject({ method: 'PUT', url: '/files/Documents/sheet.csv', headers: auth, payload: 'replaced' })).statusCode, 201)
  t.equal(readFileSync(join(home, 'Documents/sheet.csv'), 'utf8'), 'replaced')

  const deleted = await app.inject({ method: 'DELETE', url: '/files/Documents/sheet.csv', headers: auth })
  t.same(deleted.json(), { path: 'Documents/sheet.csv', kind: 'file' })
  t.same((await app.inject({ method: 'DELETE', url: '/files/link.csv', headers: auth })).json(), { path: 'link.csv', kind: 'symlink' })
  t.same((await app.inject({ method: 'DELETE', url: '/files/Documents', headers: auth })).json(), { path: 'Documents', kind: 'directory' })
  t.same(tree(home), ['blob.bin'])
})

t.test('paths that leave the home, or cannot be paths, are refused and nothing is written outside it', async (t) => {
  const { app, home, outside, root } = await filesApp(t)
  symlinkSync(outside, join(home, 'out-dir'))
  symlinkSync(join(outside, 'secret.txt'), join(home, 'out-file'))
  symlinkSync(join(root, 'nowhere'), join(home, 'dangling-out'))
  symlinkSync('nowhere', join(home, 'dangling'))
  mkdirSync(join(home, 'dir'))
  writeFileSync(join(home, 'plain.txt'), 'plain')
  const before = { root: tree(root), secret: readFileSync(join(outside, 'secret.txt'), 'utf8') }
  const long = 'x'.repeat(256)
  const cases: Array<[string, string, ReturnType<typeof error>]> = [
    ['../ in the path', '/files/..%2Foutside%2Fnew.txt', error(403, 'ERR_PATH_FORBIDDEN', "'../outside/new.txt' climbs out with '..': paths stay under the desktop's home directory")],
    ['.. deeper in', '/files/dir/..%2F..%2Foutside%2Fsecret.txt', error(403, 'ERR_PATH_FORBIDDEN', "'dir/../../outside/secret.txt' climbs out with '..': paths stay under the desktop's home directory")],
    ['an absolute path', `/files/${encodeURIComponent(join(outside, 'new.txt'))}`, error(403, 'ERR_PATH_FORBIDDEN', `'${join(outside, 'new.txt')}' is absolute: paths are relative to the desktop's home directory`)],
    ['a double slash (absolute)', `/files/${join(outside, 'new.txt')}`, error(403, 'ERR_PATH_FORBIDDEN', `'${join(outside, 'new.txt')}' is absolute: paths are relative to the desktop's home directory`)],
    ['a symlinked directory pointing out', '/files/out-dir/new.txt', error(403, 'ERR_PATH_FORBIDDEN', "'out-dir' is a symbolic link leading out of the desktop's home directory")],
    ['a symlinked file pointing out', '/files/out-file', error(403, 'ERR_PATH_FORBIDDEN', "'out-file' is a symbolic link leading out of the desktop's home directory")],
    ['a dangling symlink', '/files/dangling', error(403, 'ERR_PATH_FORBIDDEN', "'dangling' is a symbolic link to nothing: it is not followed")],
    ['a dangling symlink pointing out', '/files/dangling-out', error(403, 'ERR_PATH_FORBIDDEN', "'dangling-out' is a symbolic link leading out of the desktop's home directory")],
    ['a NUL byte', '/files/a%00b.txt', error(400, 'ERR_INVALID_PATH', 'the path contains a NUL byte, which no file name can hold')],
    ['a name over 255 bytes', `/files/${long}`, error(400, 'ERR_INVALID_PATH', `the name '${'x'.repeat(32)}…' is 256 bytes long, over the limit of 255`)],
    ['a directory where a file is expected', '/files/dir', error(409, 'ERR_PATH_CONFLICT', "'dir' is a directory: an upload needs a file name")],
    ['a file where a directory is expected', '/files/plain.txt/inner.txt', error(409, 'ERR_PATH_CONFLICT', "'plain.txt' is a file, not a directory: nothing can be under it")],
    ['the home itself', '/files/', error(403, 'ERR_PATH_FORBIDDEN', 'the home directory itself cannot be replaced by a file: name a file under it')],
  ]
  for (const [name, url, expected] of cases) {
    const response = await app.inject({ method: 'PUT', url, headers: auth, payload: 'pwned' })
    t.same({ status: response.statusCode, body: response.json() }, { status: expected.statusCode, body: expected }, `PUT: ${name}`)
  }
  // Reading and deleting take the same road out, and are refused the same way.
  for (const [name, url, status] of [['GET ../', '/files/..%2Foutside%2Fsecret.txt', 403], ['GET absolute', `/files/${encodeURIComponent(join(outside, 'secret.txt'))}`, 403],
    ['GET a link out', '/files/out-file', 403], ['GET a link out (dir)', '/files/out-dir/secret.txt', 403], ['DELETE ../', '/files/..%2Foutside%2Fsecret.txt', 403],
    ['DELETE through a link out', '/files/out-dir/secret.txt', 403], ['GET a directory', '/files/dir', 409], ['GET nothing', '/files/none.txt', 404]] as const) {
    const method = name.startsWith('GET') ? 'GET' : 'DELETE'
    t.equal((await app.inject({ method, url, headers: auth })).statusCode, status, name)
  }
  for (const [query, status] of [['..', 403], ['/etc', 403], ['out-dir', 403], ['plain.txt', 409]] as const) {
    t.equal((await app.inject({ method: 'GET', url: `/files?path=${encodeURIComponent(query)}`, headers: auth })).statusCode, status, `list ${query}`)
  }
  t.same(tree(root), before.root, 'nothing was written or deleted anywhere')
  t.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), before.secret)
})

t.test('uploads over --max-file-size or --max-files-total are refused and leave no file', async (t) => {
  const { app, home } = await filesApp(t, { maxFileSize: 1000, maxTotal: 2500 })
  const declared = await app.inject({ method: 'PUT', url: '/files/big.bin', headers: auth, payload: Buffer.alloc(1001) })
  t.same(declared.json(), error(413, 'ERR_TOO_LARGE', 'the file is over the limit of 1000 bytes (--max-file-size)'))
  for (const name of ['a', 'b']) t.equal((await app.inject({ method: 'PUT', url: `/files/${name}.bin`, headers: auth, payload: Buffer.alloc(1000) })).statusCode, 201)
  const total = await app.inject({ method: 'PUT', url: '/files/c.bin', headers: auth, payload: Buffer.alloc(600) })
  t.same(total.json(), error(413, 'ERR_TOO_LARGE', 'the files under the home directory hold 2000 bytes; 600 more would pass the limit of 2500 bytes (--max-files-total): delete some first'))
  // Replacing a file counts its new size, not both.
  t.equal((await app.inject({ method: 'PUT', url: '/files/a.bin', headers: auth, payload: Buffer.alloc(1000) })).statusCode, 201)
  await app.inject({ method: 'DELETE', url: '/files/a.bin', headers: auth })
  t.equal((await app.inject({ method: 'PUT', url: '/files/c.bin', headers: auth, payload: Buffer.alloc(600) })).statusCode, 201, 'deleting frees room')
  t.same(tree(home), ['b.bin', 'c.bin'])

  // Without a Content-Length (chunked), the limit is met while streaming: the partial file is removed.
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const status = await new Promise<number>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'PUT', path: '/files/streamed.bin', headers: { ...auth, 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume()
      resolve(res.statusCode!)
    })
    req.on('error', reject)
    req.write(Buffer.alloc(800))
    req.end(Buffer.alloc(800))
  })
  t.equal(status, 413)
  t.same(tree(home), ['b.bin', 'c.bin'], 'no partial or temporary file')
})

t.test('an upload cut off midway leaves no file, and the file it would replace is untouched', async (t) => {
  const { app, home } = await filesApp(t)
  writeFileSync(join(home, 'report.txt'), 'the old report')
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  for (const name of ['new.txt', 'report.txt']) {
    const socket = connect(port, '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write(`PUT /files/${name} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 100000\r\n\r\n`)
    socket.write('x'.repeat(50_000))
    // The server has the first half on disk in its temporary file before the client goes.
    for (let i = 0; i < 100 && !readdirSync(home).some((entry) => entry.endsWith('.upload')); i++) await delay(20)
    t.ok(readdirSync(home).some((entry) => entry.endsWith('.upload')), `${name}: the upload was under way`)
    socket.destroy()
    for (let i = 0; i < 100 && readdirSync(home).some((entry) => entry.endsWith('.upload')); i++) await delay(20)
  }
  t.same(tree(home), ['report.txt'], 'no new file, no temporary file')
  t.equal(readFileSync(join(home, 'report.txt'), 'utf8'), 'the old report')
})

t.test('files are off unless turned on, and need the token and a clean Origin', async (t) => {
  const { app: off } = await build(t, {})
  for (const [method, url] of [['GET', '/files'], ['GET', '/files/a.txt'], ['PUT', '/files/a.txt'], ['DELETE', '/files/a.txt']] as const) {
    const response = await off.inject({ method, url, ...(method === 'PUT' && { payload: 'x', headers: { 'content-type': 'application/octet-stream' } }) })
    t.same(response.json(), error(404, 'ERR_NOT_FOUND', 'file transfer is off on this server: start it with --files (env FILES=1)'), `${method} ${url} off`)
  }
  const { app, home } = await filesApp(t)
  const noToken = await app.inject({ method: 'PUT', url: '/files/a.txt', payload: 'x' })
  t.equal(noToken.statusCode, 401)
  const page = await app.inject({ method: 'PUT', url: '/files/a.txt', headers: { ...auth, origin: 'https://evil.example' }, payload: 'x' })
  t.equal(page.statusCode, 403)
  t.equal(page.json().code, 'ERR_FORBIDDEN_ORIGIN')
  t.same(tree(home), [], 'neither wrote anything')
})

t.test("uploads belong to the desktop's user: the home's owner when the server runs as root, else the server's own user", async (t) => {
  const { app, home } = await filesApp(t)
  const root = process.getuid!() === 0
  if (root) chownSync(home, 65534, 65534)
  const owner = root ? [65534, 65534] : [process.getuid!(), process.getgid!()]
  t.equal((await app.inject({ method: 'PUT', url: '/files/new/dir/file.txt', headers: auth, payload: 'x' })).statusCode, 201)
  for (const path of ['new', 'new/dir', 'new/dir/file.txt']) {
    const info = statSync(join(home, path))
    t.same([info.uid, info.gid], owner, path)
  }
})

t.test('edges answer 4xx or work: a looping link, names of 252 to 255 bytes, a path of exactly 4096 bytes, a FIFO', async (t) => {
  const { app, home } = await filesApp(t)
  symlinkSync('loop', join(home, 'loop'))
  symlinkSync('pong', join(home, 'ping'))
  symlinkSync('ping', join(home, 'pong'))
  execFileSync('mkfifo', [join(home, 'fifo')])
  const loop = (name: string) => error(409, 'ERR_PATH_CONFLICT', `'${name}' leads through more than 40 symbolic links (a loop): it is not followed`)
  const fifo = error(409, 'ERR_PATH_CONFLICT', "'fifo' is not a regular file")
  const cases: Array<[string, string, ReturnType<typeof error>]> = [
    ['GET', '/files/loop', loop('loop')],
    ['GET', '/files/ping', loop('ping')],
    ['PUT', '/files/loop', loop('loop')],
    ['PUT', '/files/ping/inner.txt', loop('ping')],
    ['GET', '/files?path=pong', loop('pong')],
    ['DELETE', '/files/loop/inner.txt', loop('loop')],
    // A FIFO is never opened: nothing blocks waiting for a writer.
    ['GET', '/files/fifo', fifo],
    ['PUT', '/files/fifo', fifo],
    ['GET', '/files/fifo/x', error(409, 'ERR_PATH_CONFLICT', "'fifo' is not a directory: nothing can be under it")],
    ['PUT', `/files/${'p/'.repeat(2048)}p`, error(400, 'ERR_INVALID_PATH', 'the path is 4097 bytes long, over the limit of 4096')],
  ]
  for (const [method, url, expected] of cases) {
    const response = await app.inject({ method: method as 'GET', url, headers: auth, ...(method === 'PUT' && { payload: 'x' }) })
    t.same({ status: response.statusCode, body: response.json() }, { status: expected.statusCode, body: expected }, `${method} ${url.slice(0, 40)}`)
  }
  t.same((await app.inject({ method: 'DELETE', url: '/files/fifo', headers: auth })).json(), { path: 'fifo', kind: 'other' }, 'a FIFO is deleted, not opened')
  t.same((await app.inject({ method: 'DELETE', url: '/files/loop', headers: auth })).json(), { path: 'loop', kind: 'symlink' }, 'a looping link is deleted itself')

  // Legal names up to NAME_MAX bytes, in ASCII and in characters of two and three bytes: the temporary name stays within it too.
  const names = [252, 253, 254, 255].map((length) => 'n'.repeat(length)).concat(['é'.repeat(127) + 'x', '日'.repeat(85)])
  for (const name of names) {
    const url = `/files/${encodeURIComponent(name)}`
    const put = await app.inject({ method: 'PUT', url, headers: auth, payload: name })
    t.same({ status: put.statusCode, body: put.json() }, { status: 201, body: { path: name, size: Buffer.byteLength(name) } }, `a name of ${Buffer.byteLength(name)} bytes (${name.length} UTF-16 units)`)
    t.equal((await app.inject({ method: 'GET', url, headers: auth })).body, name)
  }
  // 17 names of 240 bytes and 16 slashes: 4096 bytes, the most a path may have (each step opens one name: the kernel never sees it whole).
  const deep = Array.from({ length: 17 }, (_, i) => String(i % 10).repeat(240))
  const deepUrl = `/files/${deep.join('/')}`
  t.equal(Buffer.byteLength(deep.join('/')), 4096)
  const put = await app.inject({ method: 'PUT', url: deepUrl, headers: auth, payload: 'deep' })
  t.same({ status: put.statusCode, body: put.json() }, { status: 201, body: { path: deep.join('/'), size: 4 } }, 'a path of 4096 bytes is written')
  t.equal((await app.inject({ method: 'GET', url: deepUrl, headers: auth })).body, 'deep')
  t.same((await app.inject({ method: 'DELETE', url: deepUrl, headers: auth })).json(), { path: deep.join('/'), kind: 'file' })
  t.notOk(tree(home).some((entry) => entry.endsWith('.upload')), 'no temporary file is left')

  // Deep: 300 directories, and links whose targets climb back up through more of them than a walk holds open.
  const depth = Array.from({ length: 300 }, (_, i) => `d${i}`)
  const fds = readdirSync('/proc/self/fd').length
  t.equal((await app.inject({ method: 'PUT', url: `/files/${depth.join('/')}/f.txt`, headers: auth, payload: 'deepest' })).statusCode, 201, '300 directories deep')
  writeFileSync(join(home, 'top.txt'), 'top')
  symlinkSync(`${'../'.repeat(300)}top.txt`, join(home, ...depth, 'up'))
  symlinkSync(`${'../'.repeat(301)}top.txt`, join(home, ...depth, 'out'))
  t.equal((await app.inject({ method: 'GET', url: `/files/${depth.join('/')}/up`, headers: auth })).body, 'top', 'a link climbing 300 levels back to the home is followed')
  t.same((await app.inject({ method: 'GET', url: `/files/${depth.join('/')}/out`, headers: auth })).json(),
    error(403, 'ERR_PATH_FORBIDDEN', `'${depth.join('/')}/out' is a symbolic link leading out of the desktop's home directory`), 'one level more leads out')
  t.equal((await app.inject({ method: 'GET', url: `/files/${depth.join('/')}/f.txt`, headers: auth })).body, 'deepest')
  // A download's file is closed by its stream just after the answer ends.
  for (let i = 0; i < 100 && readdirSync('/proc/self/fd').length !== fds; i++) await delay(20)
  t.equal(readdirSync('/proc/self/fd').length, fds, 'every descriptor the walks opened is closed')
})

t.test('--max-files-total counts what is on disk at start: a restart forgets nothing', async (t) => {
  const dirs = scratch(t)
  const options = { token: TOKEN, files: { home: dirs.home, maxFileSize: MiB, maxTotal: 3 * MiB } }
  const first = await build(t, options)
  for (const name of ['a', 'b']) t.equal((await first.app.inject({ method: 'PUT', url: `/files/${name}.bin`, headers: auth, payload: Buffer.alloc(MiB) })).statusCode, 201)
  await first.app.close()
  // Something the desktop's own programs wrote counts too.
  writeFileSync(join(dirs.home, 'notes.txt'), 'x'.repeat(1000))
  const { app } = await build(t, options)
  t.equal((await app.inject({ method: 'PUT', url: '/files/c.bin', headers: auth, payload: Buffer.alloc(MiB - 1000) })).statusCode, 201, 'what is left fits')
  const refused = await app.inject({ method: 'PUT', url: '/files/d.bin', headers: auth, payload: Buffer.alloc(1) })
  t.same(refused.json(), error(413, 'ERR_TOO_LARGE', `the files under the home directory hold ${3 * MiB} bytes; 1 more would pass the limit of ${3 * MiB} bytes (--max-files-total): delete some first`))
  // Deleted behind the server's back: counted again before refusing.
  rmSync(join(dirs.home, 'notes.txt'))
  t.equal((await app.inject({ method: 'PUT', url: '/files/d.bin', headers: auth, payload: Buffer.alloc(1000) })).statusCode, 201, 'room freed on the disk is found')
  t.same(tree(dirs.home), ['a.bin', 'b.bin', 'c.bin', 'd.bin'])
})

t.test('uploads at once reserve their declared length: of ten 1 MiB uploads with room for three, three are written and seven refused', async (t) => {
  const { app, home } = await filesApp(t, { maxFileSize: MiB, maxTotal: 3 * MiB })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => send(port, 'PUT', `/files/r${round}-${i}.bin`, { token: TOKEN, body: Buffer.alloc(MiB, i) })))
    const statuses = answers.map((answer) => answer.status).sort()
    t.same(statuses, [201, 201, 201, 413, 413, 413, 413, 413, 413, 413], `round ${round}: three written, seven refused`)
    for (const answer of answers.filter((a) => a.status === 413)) {
      t.match(JSON.parse(String(answer.body)), { statusCode: 413, code: 'ERR_TOO_LARGE', message: new RegExp(`^the files under the home directory hold \\d+ bytes( and uploads under way \\d+ more)?; ${MiB} more would pass the limit of ${3 * MiB} bytes \\(--max-files-total\\): delete some first$`) })
    }
    const written = tree(home)
    t.equal(written.length, 3, 'three files, no temporary file')
    t.equal(written.reduce((sum, name) => sum + statSync(join(home, name)).size, 0), 3 * MiB)
    for (const name of written) rmSync(join(home, name))
  }
  // Without a declared length (chunked), each upload counts its own bytes as they come: together never past the limit.
  const chunked = await Promise.all(Array.from({ length: 10 }, (_, i) => chunkedPut(port, `/files/c${i}.bin`, 8, MiB / 8)))
  const kept = tree(home)
  t.ok(chunked.every((status) => status === 201 || status === 413), `each is written or refused: ${chunked.join(' ')}`)
  t.equal(kept.length, chunked.filter((status) => status === 201).length, 'one file per upload written, no temporary file')
  t.ok(kept.length <= 3, `at most three fit (${kept.length})`)
})


/** A PUT without Content-Length, its body sent in `chunks` pieces of `size` bytes; the status. */
async function chunkedPut (port: number, path: string, chunks: number, size: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'PUT', path, headers: { ...auth, 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume()
      resolve(res.statusCode!)
    })
    req.setTimeout(20_000, () => req.destroy(new Error(`${path} was not answered within 20 s`)))
    // A refusal may close the socket before the whole body is sent; the status already came.
    req.on('error', (error) => reject(error))
    let sent = 0
    const next = () => {
      if (sent === chunks) return req.end()
      sent++
      req.write(Buffer.alloc(size), () => setImmediate(next))
    }
    next()
  })
}

t.test('a download sends exactly the length it promised: a file growing meanwhile is cut there, one shrinking ends the connection', async (t) => {
  const { app, home } = await filesApp(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const size = 16 * MiB
  // One connection kept alive: a byte sent past the promised length would be read as the next answer's start.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())
  const next = () => new Promise<number>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/files?path=', headers: auth, agent }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode!)) })
    req.setTimeout(10_000, () => req.destroy(new Error('not answered within 10 s')))
    req.on('error', reject).end()
  })
  const download = (name: string, meanwhile: () => void) => new Promise<{ length: string | undefined, received: number, complete: boolean }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: `/files/${name}`, headers: auth, agent }, (res) => {
      let received = 0
      let first = true
      res.on('data', (chunk: Buffer) => {
        received += chunk.length
        if (!first) return
        first = false
        res.pause()
        meanwhile()
        setTimeout(() => res.resume(), 50)
      })
      const done = () => resolve({ length: res.headers['content-length'], received, complete: res.complete })
      res.on('end', done)
      res.on('close', done)
    })
    req.setTimeout(20_000, () => req.destroy(new Error('the download was not answered within 20 s')))
    req.on('error', reject)
    req.end()
  })
  writeFileSync(join(home, 'growing.bin'), Buffer.alloc(size, 1))
  t.same(await download('growing.bin', () => appendFileSync(join(home, 'growing.bin'), Buffer.alloc(MiB, 2))),
    { length: String(size), received: size, complete: true }, 'bytes appended meanwhile are not sent')
  t.equal(await next(), 200, 'the next answer on the same connection is read whole: nothing was sent past the promised length')
  writeFileSync(join(home, 'shrinking.bin'), Buffer.alloc(size, 1))
  const shrunk = await download('shrinking.bin', () => truncateSync(join(home, 'shrinking.bin'), 10))
  t.same({ length: shrunk.length, complete: shrunk.complete }, { length: String(size), complete: false }, 'cut short: the client sees an incomplete answer, not a wrong one')
  t.ok(shrunk.received < size, `fewer bytes than promised (${shrunk.received})`)
  t.equal(await next(), 200, 'the server answers on')
})

t.test('a home named but not there yet is made, private to the server\'s user; one that cannot be made answers 503 saying why', async (t) => {
  const { root } = scratch(t)
  const home = join(root, 'not-yet', 'desktop')
  const { app } = await build(t, { token: TOKEN, files: { home, maxFileSize: MiB, maxTotal: 4 * MiB } })
  const put = await app.inject({ method: 'PUT', url: '/files/notes.txt', headers: auth, payload: 'hello' })
  t.strictSame({ status: put.statusCode, body: put.json() }, { status: 201, body: { path: 'notes.txt', size: 5 } })
  t.equal(statSync(home).mode & 0o777, 0o700, 'made 0700')
  t.equal(readFileSync(join(home, 'notes.txt'), 'utf8'), 'hello')

  writeFileSync(join(root, 'a-file'), '')
  const blocked = join(root, 'a-file', 'desktop')
  const { app: refused } = await build(t, { token: TOKEN, files: { home: blocked, maxFileSize: MiB, maxTotal: 4 * MiB } })
  const list = await refused.inject({ method: 'GET', url: '/files?path=', headers: auth })
  t.strictSame({ status: list.statusCode, body: list.json() }, {
    status: 503,
    body: { statusCode: 503, code: 'ERR_DESKTOP_UNAVAILABLE', error: 'Service Unavailable', message: `the desktop's home directory ${blocked} cannot be opened (ENOTDIR): /files has nothing to serve until it can` },
  })
})
