/**
 * The runtime directory that tells `computer-gateway exec` where this user's servers are:
 * a directory or file that is not this user's own, or that others may write, is refused with
 * its path and what is wrong, by the reader and by the writer; a good one is read.
 * (A real second user squatting it: test/e2e-start-exec.test.ts.)
 */
import t from 'tap'
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { instances, InstancesUnreadable, publish, runtimeDirs } from '../src/runtime/instances.ts'

const uid = process.getuid!()
const scratch = (t: { teardown: (fn: () => unknown) => void }) => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-instances-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}
const server = (dir: string, display = ':77') => writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify({ pid: process.pid, display }), { mode: 0o600 })

interface Case { name: string, make: (root: string) => string, refused: (dir: string) => string }
const CASES: Case[] = [
  {
    name: 'a directory writable by every user',
    make: (root) => { const dir = join(root, 'rt'); mkdirSync(dir); chmodSync(dir, 0o777); server(dir); return dir },
    refused: (dir) => `${dir} is writable by every user (mode 0777)`,
  },
  {
    name: 'a directory writable by its group',
    make: (root) => { const dir = join(root, 'rt'); mkdirSync(dir); chmodSync(dir, 0o770); server(dir); return dir },
    refused: (dir) => `${dir} is writable by its group (mode 0770)`,
  },
  {
    name: 'a symbolic link to a directory',
    make: (root) => { mkdirSync(join(root, 'real'), { mode: 0o700 }); server(join(root, 'real')); symlinkSync(join(root, 'real'), join(root, 'rt')); return join(root, 'rt') },
    refused: (dir) => `${dir} is a symbolic link, not a directory`,
  },
  ...(uid === 0
    ? [{
        name: 'a directory of another user',
        make: (root: string) => { const dir = join(root, 'rt'); mkdirSync(dir, { mode: 0o755 }); server(dir); chownSync(dir, 65534, 65534); return dir },
        refused: (dir: string) => `${dir} belongs to another user (uid 65534), not to you (uid 0)`,
      }, {
        name: 'a file of another user in an own directory',
        make: (root: string) => { const dir = join(root, 'rt'); mkdirSync(dir, { mode: 0o700 }); server(dir); chownSync(join(dir, `${process.pid}.json`), 65534, 65534); return dir },
        refused: (dir: string) => `${join(dir, `${process.pid}.json`)} belongs to another user (uid 65534), not to you (uid 0)`,
      }]
    : []),
  {
    name: 'a file writable by others',
    make: (root) => { const dir = join(root, 'rt'); mkdirSync(dir, { mode: 0o700 }); server(dir); chmodSync(join(dir, `${process.pid}.json`), 0o666); return dir },
    refused: (dir) => `${join(dir, `${process.pid}.json`)} is writable by every user (mode 0666)`,
  },
  {
    name: 'a symbolic link where a file is',
    make: (root) => {
      const dir = join(root, 'rt'); mkdirSync(dir, { mode: 0o700 })
      writeFileSync(join(root, 'elsewhere.json'), JSON.stringify({ pid: process.pid, display: ':77' }))
      symlinkSync(join(root, 'elsewhere.json'), join(dir, `${process.pid}.json`))
      return dir
    },
    refused: (dir) => `${join(dir, `${process.pid}.json`)} is a symbolic link, not a file`,
  },
]

for (const { name, make, refused } of CASES) {
  t.test(`${name}: refused by the reader and the writer, with the path and why`, async (t) => {
    const dir = make(scratch(t))
    const env = { COMPUTER_GATEWAY_RUNTIME_DIR: dir }
    const message = `${refused(dir)}: refused (another user could steer computer-gateway exec to a display of theirs). ` +
      "To reach another user's server, run this as the user who started it; else remove it (as its owner, or root), or set COMPUTER_GATEWAY_RUNTIME_DIR to a directory of your own"
    t.throws(() => instances(env), new InstancesUnreadable(message))
    if (!name.includes('file')) {
      const before = readdirSync(dir)
      t.throws(() => publish({ display: ':1' }, env), new InstancesUnreadable(message))
      t.strictSame(readdirSync(dir), before, 'nothing was written there')
    }
  })
}

t.test('a private directory: published into (0700, 0600) and read back; a dead server\'s file dropped', async (t) => {
  const dir = join(scratch(t), 'rt')
  const env = { COMPUTER_GATEWAY_RUNTIME_DIR: dir }
  const remove = publish({ display: ':5', xauthority: '/x/auth' }, env)
  t.strictSame(instances(env), [{ pid: process.pid, display: ':5', xauthority: '/x/auth' }])
  writeFileSync(join(dir, '999999999.json'), JSON.stringify({ pid: 999999999, display: ':6' }), { mode: 0o600 })
  t.strictSame(instances(env), [{ pid: process.pid, display: ':5', xauthority: '/x/auth' }])
  t.strictSame(readdirSync(dir), [`${process.pid}.json`], 'the dead one removed')
  remove()
  t.strictSame(instances(env), [])
})

t.test('XDG_RUNTIME_DIR is preferred when it is a private directory of this user, else skipped', async (t) => {
  const root = scratch(t)
  const tmp = join(tmpdir(), `computer-gateway-${uid}`)
  const own = join(root, 'own')
  mkdirSync(own, { mode: 0o700 })
  t.strictSame(runtimeDirs({ XDG_RUNTIME_DIR: own }), [join(own, 'computer-gateway'), tmp])
  const open = join(root, 'open')
  mkdirSync(open)
  chmodSync(open, 0o777)
  t.strictSame(runtimeDirs({ XDG_RUNTIME_DIR: open }), [tmp], 'one others may write is not used')
  t.strictSame(runtimeDirs({ XDG_RUNTIME_DIR: join(root, 'missing') }), [tmp], 'nor a missing one')
  t.strictSame(runtimeDirs({}), [tmp])
  t.strictSame(runtimeDirs({ XDG_RUNTIME_DIR: own, COMPUTER_GATEWAY_RUNTIME_DIR: '/chosen' }), ['/chosen'])
})

t.test('a squatted folder beside a good one: the good one\'s servers, and a warning naming the other; with none there, the refusal', async (t) => {
  const root = scratch(t)
  const previous = process.env.TMPDIR
  process.env.TMPDIR = join(root, 'tmp')
  t.teardown(() => { if (previous === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = previous })
  mkdirSync(join(root, 'tmp'))
  const squatted = join(root, 'tmp', `computer-gateway-${uid}`)
  mkdirSync(squatted)
  chmodSync(squatted, 0o777)
  writeFileSync(join(squatted, '1.json'), JSON.stringify({ pid: 1, display: ':77' }))
  const xdg = join(root, 'xdg')
  mkdirSync(xdg, { mode: 0o700 })
  const env = { XDG_RUNTIME_DIR: xdg }
  const message = `${squatted} is writable by every user (mode 0777): refused (another user could steer computer-gateway exec to a display of theirs). ` +
    "To reach another user's server, run this as the user who started it; else remove it (as its owner, or root), or set COMPUTER_GATEWAY_RUNTIME_DIR to a directory of your own"
  t.throws(() => instances(env), new InstancesUnreadable(message), 'no server elsewhere: refused')
  const remove = publish({ display: ':5' }, env)
  t.teardown(remove)
  const warnings: string[] = []
  t.strictSame(instances(env, (refusal) => warnings.push(refusal.message)), [{ pid: process.pid, display: ':5' }], 'the server in XDG_RUNTIME_DIR, never :77')
  t.strictSame(warnings, [message])
})
