/**
 * The images, built and run by a real Docker engine (npm run test:image, which makes sure an
 * engine runs and the base image exists first; not part of npm test).
 *
 * Both targets are built from the Dockerfile and held to their size budgets and to what they
 * must not ship. Slim is then run as deploy/compose.yaml runs it (uid 1000, read-only root file
 * system, every capability dropped, its shared memory and home volume), the desktop as a careful
 * user runs it by hand (--read-only, an in-memory /tmp, no capability, no-new-privileges, and no
 * volume: the home is the image's declared VOLUME): /health gets ready and Docker's
 * own HEALTHCHECK healthy, a click lands in a real X client inside the container, a screenshot
 * decodes at the declared size, the desktop survives its X server being killed, and `docker
 * stop` ends it within the grace with exit code 0. The full desktop shows its panel, passes a
 * task of the task suite (the scripted agent through the published port) and opens a page this
 * test serves in its browser; its session runs and launch_app opens a terminal. Run with a home
 * it cannot write, its session dies at start and /health answers 503 with that reason, the log
 * says it in one error line, the HEALTHCHECK turns unhealthy. Last, deploy/compose.yaml comes up with its desktops
 * answering on their ports and goes down leaving nothing.
 *
 * Everything made here carries the label computer-gateway.test=<run>, and is removed on every
 * path. The images themselves stay: they are the builder's layer cache for the next run.
 */
import { execFile } from 'node:child_process'
import { createServer, get as httpGet } from 'node:http'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { randomBytes } from 'node:crypto'
import sharp from 'sharp'
import t, { type Test } from 'tap'
import { parse } from 'yaml'
import { FLAGS } from '../../src/runtime/config.ts'
import { Agent } from '../../tasks/agent/agent.ts'
import { DIALECTS } from '../../tasks/agent/dialects.ts'
import { attempt, taskContext } from '../../tasks/suite.ts'
import { terminalFromPanel } from '../../tasks/terminal-from-panel.ts'
import { clickProbe } from './click-probe.ts'

const ROOT = new URL('../..', import.meta.url).pathname
const RUN = `cg-image-test-${process.pid}`
const LABEL = `computer-gateway.test=${RUN}`
const TOKEN = `image-test-${randomBytes(12).toString('hex')}`
const MB = 1e6
// The desktop's: 1800 MB, and 370 MB for Chromium (--browser chromium): chromium, chromium-common
// and the six small libraries they add to the desktop's are 362 MB installed. The slim's: 700 MB,
// and 45 MB for the fleet's Kubernetes client (@kubernetes/client-node, 38 MB trimmed).
const BUDGET = { slim: 745 * MB, desktop: 2170 * MB }
const GRACE_MS = Number(FLAGS['shutdown-grace'].default) * 1000

interface Result { code: number, stdout: string, stderr: string }

/** A command's outcome, whatever it is (no throw): the checks below say what they expect of it. */
function exec (command: string, args: string[], timeoutMs = 120_000): Promise<Result> {
  return new Promise((resolve) => {
    execFile(command, args, { maxBuffer: 256 * MB, timeout: timeoutMs, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
      resolve({ code, stdout: String(stdout), stderr: String(stderr) })
    })
  })
}

async function docker (args: string[], timeoutMs?: number): Promise<string> {
  const result = await exec('docker', args, timeoutMs)
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} failed (${result.code}): ${(result.stderr || result.stdout).slice(-2000)}`)
  return result.stdout.trim()
}

const compose = parse(await readFile(join(ROOT, 'deploy/compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, Record<string, any>>, volumes?: Record<string, unknown> }
const service = Object.values(compose.services)[0]!
const TAGS = { build: 'computer-gateway:build', slim: 'computer-gateway:slim', desktop: service.image as string }
const BASE = /^FROM (\S+)/m.exec(await readFile(join(ROOT, 'Dockerfile'), 'utf8'))![1]!
const [WIDTH, HEIGHT] = (service.environment.SCREEN as string).split('x').map(Number) as [number, number]

// Whatever happens, nothing this run made is left: containers, then volumes (compose's are
// removed by its own `down` below; a failed run's are found by its project label).
async function sweep () {
  for (const filter of [`label=${LABEL}`, `label=com.docker.compose.project=${RUN}`]) {
    const containers = (await exec('docker', ['ps', '-aq', '--filter', filter])).stdout.split('\n').filter(Boolean)
    if (containers.length) await exec('docker', ['rm', '-f', '-v', ...containers])
    const volumes = (await exec('docker', ['volume', 'ls', '-q', '--filter', filter])).stdout.split('\n').filter(Boolean)
    if (volumes.length) await exec('docker', ['volume', 'rm', '-f', ...volumes])
  }
  const networks = (await exec('docker', ['network', 'ls', '-q', '--filter', `label=com.docker.compose.project=${RUN}`])).stdout.split('\n').filter(Boolean)
  if (networks.length) await exec('docker', ['network', 'rm', ...networks])
}
t.teardown(sweep)
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => { void sweep().finally(() => process.exit(1)) })

/** The build command scripts/test-image.sh chose: BuildKit where the client can drive it, else the classic builder. */
const BUILD = (process.env.IMAGE_BUILD ?? 'docker build').split(' ')
const BUILDKIT = process.env.IMAGE_BUILD !== undefined

async function build (t: Test, tag: string, target?: string) {
  const started = Date.now()
  const result = await exec(BUILD[0]!, [...BUILD.slice(1), '--network', 'host', ...(target ? ['--target', target] : []), '-t', tag, ROOT], 30 * 60_000)
  t.equal(result.code, 0, `docker build ${target ? `--target ${target}` : '(the last stage)'} → ${tag}`, { log: result.code === 0 ? undefined : (result.stdout + result.stderr).slice(-6000) })
  t.comment(`${tag}: built in ${((Date.now() - started) / 1000).toFixed(0)} s`)
}

const size = async (image: string) => Number(await docker(['image', 'inspect', '-f', '{{.Size}}', image]))

t.test('the images build, within their budgets, shipping only what runs', { timeout: 45 * 60_000 }, async (t) => {
  // Under the classic builder the build stage is tagged too: its cache is images, and an
  // untagged stage would be a dangling image that the next prune takes away with its npm ci
  // layer. BuildKit keeps its cache apart, and builds that stage beside slim's packages.
  if (!BUILDKIT) await build(t, TAGS.build, 'build')
  await build(t, TAGS.slim, 'slim')
  await build(t, TAGS.desktop)
  const base = await size(BASE)
  for (const kind of ['slim', 'desktop'] as const) {
    const added = await size(TAGS[kind]) - base
    t.comment(`${TAGS[kind]}: ${(added / MB).toFixed(0)} MB over ${BASE}`)
    t.ok(added <= BUDGET[kind], `${kind} adds ${(added / MB).toFixed(0)} MB to its base (budget ${BUDGET[kind] / MB} MB)`)
    // Listed as root: what the image holds that it does not run.
    const found = await docker(['run', '--rm', '--user', '0', '--entrypoint', 'sh', TAGS[kind], '-c',
      'ls -d /app/src /app/test /app/tsconfig.json /app/node_modules/typescript /app/node_modules/tap /app/node_modules/node ' +
      '/root/.npm /home/node/.npm /usr/local/share/.cache /tmp/install-system-deps.sh 2>/dev/null; ' +
      'find /var/lib/apt/lists /var/cache/apt -type f 2>/dev/null; find /app/node_modules -name "*.map" -o -name "*.d.ts" | head -n 3; true'])
    t.equal(found, '', `${kind}: no sources, TypeScript, dev dependencies (node among them), source maps or declarations, npm cache or apt lists`)
  }
})

/**
 * How a careful user runs the image by hand, as the Dockerfile's header says: read-only, an
 * in-memory /tmp, no capability, no privilege gained, and no volume (the home is the image's
 * declared VOLUME, an anonymous one).
 */
const HARDENED = ['--read-only', '--tmpfs', '/tmp', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--shm-size', '1g']

/** How a container runs: as deploy/compose.yaml's desktop service does, or hardened by hand with no volume; `extra` flags after. */
type Run = { as: 'compose' } | { as: 'hardened', extra?: string[] }

/** The container's flags, with a port of its own and a faster health interval. */
function runArgs (name: string, home: string, run: Run): string[] {
  const args = ['--name', name, '--label', LABEL, '-p', '127.0.0.1::8000', '-e', `API_TOKEN=${TOKEN}`, '--health-interval', '2s']
  if (run.as === 'hardened') return [...args, ...HARDENED, ...run.extra ?? []]
  for (const [key, value] of Object.entries(service.environment as Record<string, string>)) args.push('-e', `${key}=${value}`)
  if (service.read_only) args.push('--read-only')
  for (const path of service.tmpfs ?? []) args.push('--tmpfs', path)
  for (const cap of service.cap_drop ?? []) args.push('--cap-drop', cap)
  for (const option of service.security_opt ?? []) args.push('--security-opt', option)
  if (service.shm_size) args.push('--shm-size', String(service.shm_size))
  if (service.mem_limit) args.push('--memory', String(service.mem_limit))
  // Its named volumes (the home) as volumes of this run.
  for (const volume of service.volumes ?? []) {
    const [source, target] = String(volume).split(':')
    if (!source!.startsWith('/') && !source!.startsWith('.')) args.push('-v', `${home}-${source}:${target}`)
  }
  return args
}

class Desktop {
  constructor (readonly name: string, readonly base: string) {}
  act (body: unknown) {
    return fetch(`${this.base}/computer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    })
  }

  /**
   * Through node:http, not fetch: while the server inside has not listened yet, Docker's proxy
   * accepts the connection and closes it at once, and Node 20's fetch then leaves its promise
   * pending with no handle keeping the event loop alive, so the process ended mid-test.
   */
  async health (): Promise<{ status: number, body: Record<string, any> }> {
    return new Promise((resolve) => {
      const failed = () => resolve({ status: 0, body: {} })
      const request = httpGet(`${this.base}/health`, { timeout: 5000 }, (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk) => { text += chunk })
        response.on('error', failed)
        response.on('end', () => {
          try { resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Record<string, any> }) } catch { failed() }
        })
      })
      request.on('timeout', () => request.destroy(new Error('timeout')))
      request.on('error', failed)
    })
  }

  async ready (timeoutMs: number) {
    const deadline = Date.now() + timeoutMs
    let last = await this.health()
    while (!last.body.ready && Date.now() < deadline) {
      await delay(250)
      last = await this.health()
    }
    return last
  }

  async dockerHealth (timeoutMs: number) {
    const deadline = Date.now() + timeoutMs
    let status = ''
    do {
      status = await docker(['inspect', '-f', '{{.State.Health.Status}}', this.name])
      if (status === 'healthy' || status === 'unhealthy') break
      await delay(500)
    } while (Date.now() < deadline)
    return status
  }
}

async function start (t: Test, image: string, kind: string, run: Run): Promise<Desktop> {
  const name = `${RUN}-${kind}`
  const volumes = run.as === 'hardened' ? [] : (service.volumes ?? []).map((v: string) => v.split(':')[0]).filter((v: string) => !v.startsWith('/') && !v.startsWith('.'))
  for (const volume of volumes) await docker(['volume', 'create', '--label', LABEL, `${name}-${volume}`])
  await docker(['run', '-d', ...runArgs(name, name, run), image])
  const port = (await docker(['port', name, '8000/tcp'])).split('\n')[0]!
  const desktop = new Desktop(name, `http://${port}`)
  t.teardown(() => exec('docker', ['rm', '-f', '-v', name]))
  return desktop
}

async function checkDesktop (t: Test, kind: 'slim' | 'desktop', run: Run) {
  const desktop = await start(t, TAGS[kind], kind, run)
  const health = await desktop.ready(kind === 'desktop' ? 120_000 : 60_000)
  t.equal(health.status, 200, `/health ready (${JSON.stringify(health.body)}; logs: ${health.body.ready ? '' : (await exec('docker', ['logs', '--tail', '40', desktop.name])).stdout})`)
  t.equal(await desktop.dockerHealth(60_000), 'healthy', 'Docker\'s HEALTHCHECK: healthy')
  if (run.as === 'hardened') {
    t.equal(await docker(['inspect', '-f', '{{range .Mounts}}{{.Type}} {{.Destination}} {{.Name}}{{"\\n"}}{{end}}', desktop.name]).then((mounts) => mounts.replace(/ [0-9a-f]{64}$/gm, ' (anonymous)')),
      'volume /home/node (anonymous)', 'no volume given: the home is the image\'s declared VOLUME, an anonymous one')
  }

  // As it was run.
  t.equal(await docker(['exec', desktop.name, 'id', '-u']), '1000', 'runs as uid 1000')
  t.match((await exec('docker', ['exec', desktop.name, 'touch', '/app/written'])).stderr, /Read-only file system/, 'the root file system is read-only')
  t.match(await docker(['exec', desktop.name, 'grep', 'CapEff', '/proc/1/status']), /CapEff:\s+0+$/, 'no capability left')
  t.match(await docker(['exec', desktop.name, 'sh', '-c', 'touch "$HOME/written" && stat -c %u "$HOME/written"']), '1000', 'the home is writable')

  const display = health.body.display as string
  const probed = await clickProbe(desktop.name, display, async () => {
    const clicked = await desktop.act({ action: 'click_mouse', button: 'left', coordinates: [500, 400] })
    t.equal(clicked.status, 200, 'click_mouse answered')
  })
  t.equal(probed.code, 0, `the probe saw a click (${probed.stderr})`)
  t.strictSame(JSON.parse(probed.line || '{}'), { button: 1, x: 500, y: 400 }, 'a left button press at (500, 400), in a real X client')

  const screenshot = async () => {
    const answer = await desktop.act({ action: 'take_screenshot' })
    const body = await answer.json() as { base64_image?: string }
    return sharp(Buffer.from(body.base64_image ?? '', 'base64')).metadata().catch((e) => ({ error: String(e) }))
  }
  t.match(await screenshot(), { format: 'png', width: WIDTH, height: HEIGHT }, `a screenshot decodes at ${WIDTH}x${HEIGHT}`)

  if (kind === 'desktop') {
    await checkSession(t, desktop)
    await checkTask(t, desktop)
    await checkFullDesktop(t, desktop)
  }

  // Its X server killed: the server starts another and answers again.
  t.equal((await exec('docker', ['exec', desktop.name, 'pkill', '-KILL', '-x', 'Xvfb'])).code, 0, 'Xvfb killed inside the container')
  await delay(500)
  const again = await desktop.ready(90_000)
  t.equal(again.status, 200, `ready again after Xvfb died (${JSON.stringify(again.body)})`)
  t.equal(await docker(['inspect', '-f', '{{.State.Running}} {{.RestartCount}}', desktop.name]), 'true 0', 'the container kept running')
  t.match(await screenshot(), { format: 'png', width: WIDTH, height: HEIGHT }, 'and a screenshot decodes again')

  const stopped = Date.now()
  await docker(['stop', '-t', String(Math.ceil(GRACE_MS / 1000) + 5), desktop.name], 60_000)
  const took = Date.now() - stopped
  t.ok(took < GRACE_MS, `docker stop took ${took} ms, within the server's ${GRACE_MS} ms grace`)
  t.equal(await docker(['inspect', '-f', '{{.State.ExitCode}} {{.State.OOMKilled}}', desktop.name]), '0 false', 'exit code 0')
  const logs = await exec('docker', ['logs', desktop.name])
  t.notMatch(logs.stdout + logs.stderr, new RegExp(TOKEN), 'the token is in no log line')
}

/**
 * A task of the task suite (tasks/), inside the container: the scripted agent drives it through
 * the published port, in Claude's dialect, with the container's token; the checker reads the
 * file the terminal wrote in the home volume, as the host sees that volume.
 */
async function checkTask (t: Test, desktop: Desktop) {
  const task = terminalFromPanel
  const dialect = DIALECTS.find((d) => d.name === 'claude')!
  const volume = (await docker(['inspect', '-f', '{{range .Mounts}}{{if eq .Destination "/home/node"}}{{.Name}}{{end}}{{end}}', desktop.name]))
  const home = await docker(['volume', 'inspect', '-f', '{{.Mountpoint}}', volume])
  const name = `${task.name}-${dialect.name}`
  // Made by the desktop's own user, who writes into it.
  await docker(['exec', desktop.name, 'mkdir', '-p', `/home/node/Documents/${name}`])
  const cleanups: Array<() => unknown> = []
  const ctx = taskContext(desktop.base, home, name, cleanups, async (app, target) => {
    const answer = await desktop.act({ action: 'launch_app', app, ...(target === undefined ? {} : { target }) })
    if (answer.status !== 200) throw new Error(`launch_app ${app}: ${answer.status} ${await answer.text()}`)
  })
  const agent = new Agent(desktop.base, dialect, { authorization: `Bearer ${TOKEN}` })
  const started = Date.now()
  let reason: string | undefined
  try {
    reason = await attempt(task, agent, ctx)
  } finally {
    for (const fn of cleanups.reverse()) await fn()
  }
  t.equal(reason, undefined, `the task ${task.name} passes inside the container via ${dialect.name} (${agent.steps} steps, ${((Date.now() - started) / 1000).toFixed(1)} s)`)
}

/** The full desktop's session runs (its session manager and window manager), and launch_app opens a terminal into it. */
async function checkSession (t: Test, desktop: Desktop) {
  for (const program of ['xfce4-session', 'xfwm4']) {
    t.equal((await exec('docker', ['exec', desktop.name, 'pgrep', '-x', program])).code, 0, `${program} runs`)
  }
  const launched = await desktop.act({ action: 'launch_app', app: 'terminal' })
  const body = await launched.json() as { window?: { class: string } }
  t.equal(launched.status, 200, `launch_app terminal answered (${JSON.stringify(body)})`)
  t.match(body.window?.class ?? '', /xfce4-terminal/i, 'its window is the terminal\'s')
}

/**
 * Hardened, with a home it cannot write (an in-memory, read-only one over the volume): the
 * session dies at start, and /health says so (503, with the session's own complaint), the
 * log says it in one error line, and Docker's HEALTHCHECK turns unhealthy.
 */
async function checkSessionDown (t: Test) {
  const desktop = await start(t, TAGS.desktop, 'desktop-down', { as: 'hardened', extra: ['--tmpfs', '/home/node:ro'] })
  const deadline = Date.now() + 120_000
  let health = await desktop.health()
  while (!/session/.test(String(health.body.reason)) && Date.now() < deadline) {
    await delay(250)
    health = await desktop.health()
  }
  const display = String(health.body.display)
  const why = 'xfce4-session exited at start (code 1): xfce4-session: Unable to access file /home/node/.ICEauthority: Read-only file system'
  t.strictSame(health, {
    status: 503,
    body: {
      status: 'unavailable', ready: false, driver: 'nut', display, screen: { width: WIDTH, height: HEIGHT }, held: { keys: [], buttons: [] },
      queue: 0, oldest_wait_ms: 0, reason: `the full desktop's session is not running on ${display}: ${why}`, recording: null,
      control: { taken_over: false, waiting: 0, oldest_wait_ms: null },
    },
  }, '/health: 503, and why')
  const lines = (await exec('docker', ['logs', desktop.name])).stdout.split('\n').filter((line) => line.startsWith('{'))
  const errors = lines.map((line) => JSON.parse(line) as { level: number, msg: string }).filter((entry) => entry.level >= 50)
  t.strictSame(errors.map((entry) => entry.msg), [`the full desktop's session did not start on ${display}: ${why}; GET /health answers 503 and window actions are refused`], 'one error line says it')
  t.equal(await desktop.dockerHealth(90_000), 'unhealthy', 'Docker\'s HEALTHCHECK: unhealthy')
}

async function checkFullDesktop (t: Test, desktop: Desktop) {
  const windowsOf = async () => ((await (await desktop.act({ action: 'list_windows' })).json()) as { windows?: Array<{ class: string, title: string }> }).windows ?? []
  t.ok((await windowsOf()).some((w) => /xfce4-panel/i.test(w.class)), 'the XFCE panel is on the screen')

  // A page served here, reached from the container through the bridge's gateway.
  const gateway = await docker(['inspect', '-f', '{{range .NetworkSettings.Networks}}{{.Gateway}}{{end}}', desktop.name])
  const title = `image test page ${randomBytes(4).toString('hex')}`
  const requests: string[] = []
  const server = createServer((request, response) => {
    requests.push(String(request.headers['user-agent']))
    response.setHeader('content-type', 'text/html')
    response.end(`<!doctype html><title>${title}</title><h1>${title}</h1>`)
  })
  await new Promise<void>((resolve) => server.listen(0, gateway, resolve))
  t.teardown(() => server.close())
  const url = `http://${gateway}:${(server.address() as { port: number }).port}/page`
  const launched = await desktop.act({ action: 'launch_app', app: 'browser', target: url })
  const body = await launched.json() as { window?: { title: string } }
  t.equal(launched.status, 200, `launch_app browser answered (${JSON.stringify(body)})`)
  const deadline = Date.now() + 30_000
  while (!(await windowsOf()).some((w) => w.title.includes(title)) && Date.now() < deadline) await delay(500)
  t.ok(requests.some((agent) => /Firefox/.test(agent)), `the browser fetched the page (${requests.join(', ')})`)
  t.ok((await windowsOf()).some((w) => w.title.includes(title)), 'its window shows the page\'s title')
}

t.test('slim, run as compose runs it', { timeout: 10 * 60_000 }, (t) => checkDesktop(t, 'slim', { as: 'compose' }))
t.test('desktop, run hardened by hand with no volume', { timeout: 10 * 60_000 }, (t) => checkDesktop(t, 'desktop', { as: 'hardened' }))
t.test('desktop, hardened with a home it cannot write: /health 503 with the reason', { timeout: 5 * 60_000 }, (t) => checkSessionDown(t))

t.test('deploy/compose.yaml: its desktops answer on their ports, then go down leaving nothing', { timeout: 10 * 60_000 }, async (t) => {
  const ports = Object.values(compose.services).map((s) => Number(/^127\.0\.0\.1:(\d+):/.exec(s.ports[0])![1]))
  for (const port of ports) {
    const busy = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) }).then(() => true, () => false)
    if (busy) t.fail(`127.0.0.1:${port}, a port of deploy/compose.yaml, is taken on this machine: free it`)
  }
  // The file as it is, beside an env file of this run's token (deploy/desktops.env is the user's).
  const dir = await mkdtemp(join(tmpdir(), 'cg-compose-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(join(ROOT, 'deploy/compose.yaml'), join(dir, 'compose.yaml'))
  await writeFile(join(dir, 'desktops.env'), `API_TOKEN=${TOKEN}\n`)
  const engineCompose = (await exec('docker', ['compose', 'version'])).code === 0
  const composeCmd = (args: string[]) => engineCompose
    ? exec('docker', ['compose', '-p', RUN, '-f', join(dir, 'compose.yaml'), ...args], 5 * 60_000)
    : exec('docker-compose', ['-p', RUN, '-f', join(dir, 'compose.yaml'), ...args], 5 * 60_000)
  t.teardown(() => composeCmd(['down', '-v', '--timeout', '20']))

  const up = await composeCmd(['up', '-d', '--no-build'])
  t.equal(up.code, 0, `compose up (${up.stderr.slice(-2000)})`)
  for (const port of ports) {
    const desktop = new Desktop('', `http://127.0.0.1:${port}`)
    const health = await desktop.ready(180_000)
    t.equal(health.status, 200, `127.0.0.1:${port}: /health ready`)
    const shot = await (await desktop.act({ action: 'take_screenshot' })).json() as { base64_image?: string }
    t.match(await sharp(Buffer.from(shot.base64_image ?? '', 'base64')).metadata(), { width: WIDTH, height: HEIGHT }, `127.0.0.1:${port}: a screenshot`)
  }
  const down = await composeCmd(['down', '-v', '--timeout', '20'])
  t.equal(down.code, 0, `compose down (${down.stderr.slice(-2000)})`)
  for (const kind of ['ps -aq', 'volume ls -q', 'network ls -q']) {
    const left = await docker([...kind.split(' '), '--filter', `label=com.docker.compose.project=${RUN}`])
    t.equal(left, '', `no ${kind.split(' ')[0] === 'ps' ? 'container' : kind.split(' ')[0]} left`)
  }
})
