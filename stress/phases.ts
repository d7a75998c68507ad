/**
 * The stress phases. Each starts a server of its own (so that one phase breaking the desktop
 * cannot fail the next), puts the application on its desktop, does its harm, and records
 * figures and checks. The checks are the contract's (SPEC §7): a 4xx for bad input and nothing
 * done by it; 503 with Retry-After while the desktop restarts; no other 5xx; an answer to every
 * request within its deadline; nothing left held.
 */
import { connect, type Socket } from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'
import { fuzzCases, heavyCases, type FuzzCase } from './fuzz.ts'
import { App, heldOnX, okOrRetry, pointerOnX, rssMb, startServer, until, type Answer, type Checks, type Processes, type Server } from './harness.ts'
import { checkMarkers, figures, runLoad, type Sent } from './load.ts'

export interface Context {
  procs: Processes
  checks: Checks
  workdir: string
  /** The longest any request may go unanswered. */
  deadlineMs: number
  log: (line: string) => void
  xauthority?: string
  /** How the application gets onto the desktop: spawned as an X client (default), or the server's launch_app. */
  appVia?: 'spawn' | 'launch_app'
}

type Figures = Record<string, unknown>

async function openDesktop (ctx: Context): Promise<{ server: Server, app: App }> {
  const allow = ctx.appVia === 'launch_app' ? await App.allowArgs(ctx.workdir) : undefined
  const server = await startServer(ctx.procs, ctx.workdir, { ...(ctx.xauthority && { xauthority: ctx.xauthority }), ...(allow && { extraArgs: allow.args }) })
  const app = new App(ctx.procs, server, ctx.workdir, ctx.appVia ?? 'spawn', allow?.file)
  try {
    await app.launch()
  } catch (error) {
    await closeDesktop(ctx, { server, app })
    throw error
  }
  return { server, app }
}

async function closeDesktop (ctx: Context, { server, app }: { server: Server, app: App }) {
  if (app.child) await ctx.procs.end(app.child)
  server.http.close()
  await ctx.procs.end(server.child)
}

async function withDesktop<T> (ctx: Context, fn: (server: Server, app: App) => Promise<T>): Promise<T> {
  const desktop = await openDesktop(ctx)
  try {
    return await fn(desktop.server, desktop.app)
  } finally {
    await closeDesktop(ctx, desktop)
  }
}

const sample = (list: string[], n = 5) => list.slice(0, n).join('; ') + (list.length > n ? ` (+${list.length - n} more)` : '')
const describe = (c: FuzzCase, a: Answer) => `${c.kind}: POST ${c.path.slice(0, 80)} [${c.contentType}] ${JSON.stringify(c.body.subarray(0, 120).toString())} → ${a.status || a.error} ${a.body.slice(0, 120)}`

/** After harm: nothing held on X, nothing the server believes held, and an action still reaches the application. */
async function aftermath (ctx: Context, phase: string, server: Server, app: App, options: { appMustWork?: boolean } = {}) {
  const env = await server.xEnv().catch(() => undefined)
  const held = env ? await heldOnX(env).catch((e: Error) => [`xinput failed: ${e.message}`]) : ['no display reported']
  ctx.checks.add(phase, 'nothing held on X afterwards', held.length === 0, held.length ? held.join(', ') : 'xinput: no =down')
  const { health } = await server.health(ctx.deadlineMs)
  const serverHeld = health ? [...health.held.keys, ...health.held.buttons] : ['no /health answer']
  ctx.checks.add(phase, 'the server holds nothing afterwards', serverHeld.length === 0, serverHeld.join(', ') || '/health held: none')
  ctx.checks.add(phase, 'the server process is alive', server.child.exitCode === null && server.child.signalCode === null,
    `exit ${server.child.exitCode ?? server.child.signalCode ?? 'none'}`)
  if (options.appMustWork !== false) {
    const works = app.alive && await app.probe('after', ctx.deadlineMs)
    ctx.checks.add(phase, 'the desktop still works (typing reaches the application)', works, works ? '' : `ready ${health?.ready}, xterm ${app.alive ? 'alive' : 'gone'}`)
  }
}

// ---------------------------------------------------------------- fuzz

export interface FuzzOptions { seed: number, count: number, concurrency: number, heavy?: (name: string) => boolean }

export async function fuzz (ctx: Context, options: FuzzOptions): Promise<Figures> {
  return withDesktop(ctx, async (server, app) => {
    const phase = 'fuzz'
    const env = await server.xEnv()
    const screen = (await server.health()).health!.screen!
    // Where the pointer rests and what the application has, before any refused request.
    const rest = app.point(() => 0.25)
    await server.http.post('/computer', { action: 'move_mouse', coordinates: rest }, ctx.deadlineMs)
    const fileBefore = await app.settled()
    const pointerBefore = await pointerOnX(env)
    const cases = fuzzCases(options.seed, options.count, screen)
    const statuses: Record<string, number> = {}
    const byKind: Record<string, Record<string, number>> = {}
    const accepted: string[] = []
    const serverErrors: string[] = []
    const unanswered: string[] = []
    const reset: string[] = []
    const started = performance.now()
    let next = 0
    await Promise.all(Array.from({ length: options.concurrency }, async () => {
      while (next < cases.length) {
        const c = cases[next++]!
        const a = await server.http.send({ path: c.path, body: c.body, contentType: c.contentType, ...(c.token !== undefined && { token: c.token }), ...(c.headers && { headers: c.headers }), deadlineMs: ctx.deadlineMs })
        const key = a.status === 0 ? 'no answer' : a.status === -1 ? 'connection failed' : String(a.status)
        statuses[key] = (statuses[key] ?? 0) + 1
        const kind = (byKind[c.kind] ??= {})
        kind[key] = (kind[key] ?? 0) + 1
        if (a.status === 0) unanswered.push(describe(c, a))
        else if (a.status < 0) reset.push(describe(c, a))
        else if (a.status >= 500) serverErrors.push(describe(c, a))
        else if (a.status < 400) accepted.push(describe(c, a))
      }
    }))
    const lightMs = performance.now() - started
    ctx.log(`fuzz: ${cases.length} cases in ${(lightMs / 1000).toFixed(1)} s`)

    // Refused requests may not have typed or moved anything: the application's input and the
    // pointer are as they were.
    const fileAfter = await app.settled()
    const pointerAfter = await pointerOnX(env).catch(() => undefined)
    const c = ctx.checks
    c.add(phase, 'no 5xx', serverErrors.length === 0, serverErrors.length ? `${serverErrors.length}: ${sample(serverErrors, 3)}` : `${cases.length} cases`)
    c.add(phase, `every request answered within ${ctx.deadlineMs} ms`, unanswered.length === 0, unanswered.length ? `${unanswered.length}: ${sample(unanswered, 3)}` : '')
    // A server that answers 413 and closes before reading the body can reset the connection
    // under its own answer: the client then sees no status at all.
    c.add(phase, 'every request got its HTTP answer (no connection reset)', reset.length === 0, reset.length ? `${reset.length}: ${sample(reset, 3)}` : '')
    c.add(phase, 'every malformed request refused with a 4xx', accepted.length === 0, accepted.length ? `${accepted.length} accepted: ${sample(accepted, 3)}` : '')
    c.add(phase, 'nothing typed by a refused request', fileAfter === fileBefore, fileAfter === fileBefore ? '' : `the application received ${JSON.stringify(fileAfter.slice(fileBefore.length, fileBefore.length + 80))}`)
    c.add(phase, 'pointer not moved by a refused request', pointerAfter?.[0] === pointerBefore[0] && pointerAfter?.[1] === pointerBefore[1], `before ${pointerBefore}, after ${pointerAfter ?? 'unknown'}`)
    await aftermath(ctx, phase, server, app)
    const heavy = await beyondBounds(ctx, server, screen, options.heavy)
    return { cases: cases.length, seconds: Math.round(lightMs / 100) / 10, perSecond: Math.round(cases.length / (lightMs / 1000)), seed: options.seed, statuses, byKind, heavy }
  })
}

/**
 * Each request beyond a bound, one at a time, each on a desktop that is ready: one that a
 * server accepts can leave it busy or broken for long, and the next case would then test
 * nothing (a fresh server is started for it). After each: a 400, nothing held, still ready.
 */
async function beyondBounds (ctx: Context, first: Server, screen: { width: number, height: number }, filter?: (kind: string) => boolean) {
  const heavy: Array<{ kind: string, status: number | string, ms: number, heldAfter: string[], readyAfter: boolean, freshServer: boolean, body: string }> = []
  let spare: { server: Server, app: App } | undefined
  let broken = false
  try {
    for (const c of heavyCases(screen).filter((h) => filter?.(h.kind) ?? true)) {
      let server = spare?.server ?? first
      const ready = (await server.health(ctx.deadlineMs)).health?.ready === true
      const fresh = broken || !ready
      if (fresh) {
        if (spare) await closeDesktop(ctx, spare)
        spare = undefined
        spare = await openDesktop(ctx)
        server = spare.server
      }
      const a = await server.http.send({ path: c.path, body: c.body, contentType: c.contentType, deadlineMs: ctx.deadlineMs })
      await delay(500)
      const env = await server.xEnv().catch(() => undefined)
      const heldAfter = env ? await heldOnX(env).catch((e: Error) => [`xinput: ${e.message}`]) : ['no display']
      const readyAfter = (await server.health(ctx.deadlineMs)).health?.ready === true
      broken = a.status <= 0 || !readyAfter || heldAfter.length > 0
      heavy.push({ kind: c.kind, status: a.status || 'no answer', ms: Math.round(a.ms), heldAfter, readyAfter, freshServer: fresh, body: a.body.slice(0, 160) })
      ctx.log(`fuzz: beyond a bound: ${c.kind} → ${a.status || 'no answer'} in ${Math.round(a.ms)} ms; held after: ${heldAfter.join(', ') || 'nothing'}; ready after: ${readyAfter}`)
      ctx.checks.add('fuzz', `beyond a bound: ${c.kind} → 400, nothing held, desktop ready`, a.status === 400 && heldAfter.length === 0 && readyAfter,
        `${a.status || 'no answer'} after ${Math.round(a.ms)} ms${heldAfter.length ? `; held on X: ${heldAfter.join(', ')}` : ''}${readyAfter ? '' : '; /health not ready afterwards'}`)
    }
  } finally {
    if (spare) await closeDesktop(ctx, spare)
  }
  return heavy
}


// ---------------------------------------------------------------- browsers

/**
 * A web page the user visits posts to the server (a "simple" text/plain request needs no CORS
 * preflight), and a rebinding DNS name reaches it under a foreign Host: both refused with 403
 * before routing, token or not, and nothing clicked.
 */
export async function web (ctx: Context): Promise<Figures> {
  return withDesktop(ctx, async (server, app) => {
    const phase = 'web'
    const env = await server.xEnv()
    const rest = app.point(() => 0.1)
    await server.http.post('/computer', { action: 'move_mouse', coordinates: rest }, ctx.deadlineMs)
    const before = await pointerOnX(env)
    const fileBefore = await app.settled()
    const click = "Action: click(start_box='(500,500)')"
    const cases: Array<{ name: string, send: () => Promise<Answer> }> = [
      { name: 'web page, no token: uitars text/plain with Origin https://evil.example', send: () => server.http.send({ path: '/computer/uitars', body: click, contentType: 'text/plain', token: null, headers: { origin: 'https://evil.example' }, deadlineMs: ctx.deadlineMs }) },
      { name: 'web page, with the token: uitars text/plain with Origin https://evil.example', send: () => server.http.send({ path: '/computer/uitars', body: click, contentType: 'text/plain', headers: { origin: 'https://evil.example' }, deadlineMs: ctx.deadlineMs }) },
      { name: 'web page, with the token: /computer with Origin https://evil.example', send: () => server.http.post('/computer', { action: 'type_text', text: 'pwned' }, ctx.deadlineMs, { headers: { origin: 'https://evil.example' } }) },
      { name: 'DNS rebinding: Host evil.example', send: () => server.http.post('/computer', { action: 'click_mouse', button: 'left', coordinates: [500, 500] }, ctx.deadlineMs, { headers: { host: `evil.example:${server.port}` } }) },
      { name: 'Origin null (sandboxed page)', send: () => server.http.send({ path: '/computer/qwen', body: '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [500, 500]}}\n</tool_call>', contentType: 'text/plain', headers: { origin: 'null' }, deadlineMs: ctx.deadlineMs }) },
    ]
    const results: Record<string, number | string> = {}
    for (const k of cases) {
      const a = await k.send()
      results[k.name] = a.status || 'no answer'
      ctx.checks.add(phase, `${k.name} → 403`, a.status === 403, `${a.status || a.error} ${a.body.slice(0, 140)}`)
    }
    const after = await pointerOnX(env)
    const fileAfter = await app.settled()
    ctx.checks.add(phase, 'nothing clicked or moved by a refused browser request', after[0] === before[0] && after[1] === before[1], `pointer before ${before}, after ${after}`)
    ctx.checks.add(phase, 'nothing typed by a refused browser request', fileAfter === fileBefore, fileAfter === fileBefore ? '' : `received ${JSON.stringify(fileAfter.slice(fileBefore.length, fileBefore.length + 60))}`)
    // A client of our own (no Origin, the server's own Host) still gets through.
    const own = await server.http.post('/computer', { action: 'get_cursor_position' }, ctx.deadlineMs)
    ctx.checks.add(phase, 'a request without Origin still works', own.status === 200, `${own.status}`)
    return { results }
  })
}

// ---------------------------------------------------------------- mixed load

function loadChecks (ctx: Context, phase: string, sent: Sent[], file: string, options: { errorsAllowed: boolean }) {
  const unanswered = sent.filter((s) => s.status <= 0)
  ctx.checks.add(phase, `every request answered within ${ctx.deadlineMs} ms`, unanswered.length === 0, unanswered.length ? `${unanswered.length} unanswered (${unanswered[0]!.error})` : `${sent.length} requests`)
  if (options.errorsAllowed) {
    const bad = sent.filter((s) => s.status > 0 && !(s.status === 200 || (s.status === 503 && s.retryAfter)))
    ctx.checks.add(phase, 'only 200, or 503 with Retry-After', bad.length === 0, bad.length ? `${bad.length}: ${sample(bad.map((s) => `${s.kind} → ${s.status}${s.status === 503 ? ' without Retry-After' : ''}`), 4)}` : '')
  } else {
    const errors = sent.filter((s) => s.status !== 200)
    ctx.checks.add(phase, 'no errors', errors.length === 0, errors.length ? `${errors.length}: ${sample(errors.map((s) => `${s.kind} → ${s.status || s.error}`), 4)}` : '')
  }
  const m = checkMarkers(file, sent)
  if (!options.errorsAllowed) {
    ctx.checks.add(phase, 'every typed marker arrived whole, once, in its client\'s order', m.missing.length + m.duplicated.length + m.fragments.length + m.outOfOrder.length === 0 && m.typed > 0,
      `${m.typed} typed, ${m.found} found; missing ${m.missing.length} ${sample(m.missing, 3)}; duplicated ${m.duplicated.length}; fragments ${m.fragments.length} ${sample(m.fragments, 3)}; out of order ${m.outOfOrder.length} ${sample(m.outOfOrder, 2)}`)
  } else {
    // Input sent as X died is lost with it, and a marker may be missing; a piece of one, or
    // one out of order, is still interleaving.
    ctx.checks.add(phase, 'no marker interleaved or out of order', m.fragments.length + m.outOfOrder.length === 0, `fragments ${m.fragments.length} ${sample(m.fragments, 3)}; out of order ${m.outOfOrder.length} ${sample(m.outOfOrder, 2)}`)
  }
  return m
}

export async function load (ctx: Context, options: { clients: number, durationMs: number, seed: number }): Promise<Figures> {
  return withDesktop(ctx, async (server, app) => {
    const started = performance.now()
    const sent = await runLoad(server, app, { ...options, deadlineMs: ctx.deadlineMs })
    const elapsed = performance.now() - started
    const file = await app.settled()
    const m = loadChecks(ctx, 'load', sent, file, { errorsAllowed: false })
    await aftermath(ctx, 'load', server, app)
    return { clients: options.clients, ...figures(sent, elapsed), markers: { typed: m.typed, found: m.found, missing: m.missing.length, fragments: m.fragments.length } }
  })
}

// ---------------------------------------------------------------- faults

/** Time from `since` until an action succeeds and /health says ready, or undefined at the deadline. */
async function recovery (ctx: Context, server: Server, since: number, deadlineMs: number): Promise<number | undefined> {
  const ok = await until(async () => {
    const move = await server.http.post('/computer', { action: 'move_mouse', coordinates: [5, 5] }, ctx.deadlineMs)
    if (move.status !== 200) return false
    const { health } = await server.health(ctx.deadlineMs)
    return health?.ready === true
  }, deadlineMs, 50)
  return ok ? Math.round(performance.now() - since) : undefined
}

export interface FaultOptions { xvfbKills: number, workerKills: number, clients: number, dwellMs: number, recoveryDeadlineMs: number, seed: number }

/**
 * Xvfb killed (-9) and the driver worker killed, each under mixed load with the application
 * focused: every request is answered in time (200, or 503 with Retry-After), and the desktop
 * comes back — an action succeeds, /health is ready, a new xterm (X took the old one with it)
 * gets what is typed.
 */
export async function faults (ctx: Context, options: FaultOptions): Promise<Figures> {
  return withDesktop(ctx, async (server, app) => {
    const phase = 'faults'
    let stop = false
    const loadStarted = performance.now()
    const loading = runLoad(server, app, { clients: options.clients, durationMs: 30 * 60_000, seed: options.seed, deadlineMs: ctx.deadlineMs, stop: () => stop })
    const plan = [...Array.from({ length: options.xvfbKills }, () => 'Xvfb'), ...Array.from({ length: options.workerKills }, () => 'worker')]
    const results: Array<{ fault: string, pid?: number, recoveredMs?: number, appBackMs?: number, note?: string }> = []
    try {
      for (const [n, fault] of plan.entries()) {
        await delay(options.dwellMs)
        const pid = fault === 'Xvfb' ? await server.xvfbPid() : await server.workerPid()
        if (pid === undefined) { results.push({ fault, note: `no ${fault} process to kill` }); ctx.checks.add(phase, `${fault} kill ${n + 1}: found its process`, false, 'not among the server\'s children'); continue }
        // The kill lands mid-typing into the focused application: text the layout lacks makes
        // the typer rebind keycodes and wait for the application (_NET_WM_PING) between phases.
        const typing = server.http.post('/computer', { action: 'type_text', text: 'éàü中文ñß€'.repeat(40) }, ctx.deadlineMs)
        await delay(80)
        process.kill(pid, 'SIGKILL')
        const killedAt = performance.now()
        const recoveredMs = await recovery(ctx, server, killedAt, options.recoveryDeadlineMs)
        const typed = await typing
        ctx.checks.add(phase, `${fault} kill ${n + 1}: the request typing as it died answered in time (200, or 503 with Retry-After)`, okOrRetry(typed), `${typed.status || typed.error} after ${Math.round(typed.ms)} ms`)
        ctx.checks.add(phase, `${fault} kill ${n + 1}: desktop back within ${options.recoveryDeadlineMs} ms`, recoveredMs !== undefined, recoveredMs !== undefined ? `${recoveredMs} ms` : 'never (no successful action and ready /health)')
        const result: (typeof results)[number] = { fault, pid, ...(recoveredMs !== undefined && { recoveredMs }) }
        results.push(result)
        ctx.log(`faults: ${fault} kill ${n + 1} (pid ${pid}): ${recoveredMs !== undefined ? `back in ${recoveredMs} ms` : 'not back'}`)
        if (recoveredMs === undefined) {
          result.note = 'the desktop did not come back; later faults not run'
          break
        }
        // The application: X took it with it; a worker's death must not have.
        let appOk = false
        if (fault === 'Xvfb' || !app.alive) {
          appOk = await app.launch(ctx.deadlineMs).then(() => true, (e: Error) => { result.note = `xterm relaunch: ${e.message}`; return false })
        } else appOk = await app.probe(`wk${n}`, ctx.deadlineMs)
        if (appOk) result.appBackMs = Math.round(performance.now() - killedAt)
        ctx.checks.add(phase, `${fault} kill ${n + 1}: the application gets input again`, appOk, result.note ?? '')
      }
    } finally {
      stop = true
    }
    const sent = await loading
    const elapsed = performance.now() - loadStarted
    loadChecks(ctx, phase, sent, await app.settled(), { errorsAllowed: true })
    await aftermath(ctx, phase, server, app)
    return { faults: results, load: figures(sent, elapsed) }
  })
}

// ---------------------------------------------------------------- a hung call

/**
 * The driver worker — or the X server itself — stopped (SIGSTOP) mid-load: a call that never
 * returns. Requests are still answered in time (200, or 503 with Retry-After) and the desktop
 * comes back. The stopped process is continued at the end, whatever happened.
 */
export async function hung (ctx: Context, options: { target: 'worker' | 'Xvfb', clients: number, dwellMs: number, recoveryDeadlineMs: number, seed: number }): Promise<Figures> {
  return withDesktop(ctx, async (server, app) => {
    const phase = 'hung'
    const what = options.target === 'worker' ? 'the driver worker' : 'Xvfb'
    let stop = false
    const started = performance.now()
    const loading = runLoad(server, app, { clients: options.clients, durationMs: 10 * 60_000, seed: options.seed, deadlineMs: ctx.deadlineMs, stop: () => stop })
    let pid: number | undefined
    let recoveredMs: number | undefined
    try {
      await delay(options.dwellMs)
      pid = options.target === 'worker' ? await server.workerPid() : await server.xvfbPid()
      ctx.checks.add(phase, `${what} stopped: found its process`, pid !== undefined, pid !== undefined ? `pid ${pid}` : 'none among the server\'s children')
      if (pid !== undefined) {
        process.kill(pid, 'SIGSTOP')
        const stoppedAt = performance.now()
        recoveredMs = await recovery(ctx, server, stoppedAt, options.recoveryDeadlineMs)
        ctx.log(`hung: ${what} (pid ${pid}) stopped: ${recoveredMs !== undefined ? `back in ${recoveredMs} ms` : 'not back'}`)
        ctx.checks.add(phase, `${what} stopped: desktop back within ${options.recoveryDeadlineMs} ms`, recoveredMs !== undefined, recoveredMs !== undefined ? `${recoveredMs} ms` : 'never (no successful action and ready /health)')
      }
    } finally {
      stop = true
      // Never leave a stopped process behind (the server may have ended it already).
      if (pid !== undefined) try { process.kill(pid, 'SIGCONT') } catch { /* gone */ }
    }
    const sent = await loading
    const before = ctx.checks.list.length
    loadChecks(ctx, phase, sent, await app.settled(), { errorsAllowed: true })
    await aftermath(ctx, phase, server, app, { appMustWork: false })
    // The application may have gone with a replaced X server: relaunch it if so, then it must get input.
    const works = (app.alive || await app.launch(ctx.deadlineMs).then(() => true, () => false)) && await app.probe('after', ctx.deadlineMs)
    ctx.checks.add(phase, 'the desktop still works (typing reaches the application)', works)
    for (const c of ctx.checks.list.slice(before)) c.name = `${what} stopped: ${c.name}`
    return { target: options.target, pid, recoveredMs, load: figures(sent, performance.now() - started) }
  })
}

// ---------------------------------------------------------------- misbehaving clients

function rawRequest (port: number, token: string, json: unknown): { socket: Socket } {
  const body = JSON.stringify(json)
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  socket.write(`POST /computer${json && typeof json === 'object' && 'actions' in json ? '/batch' : ''} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  return { socket }
}

const opened = (port: number) => new Promise<Socket>((resolve, reject) => {
  const socket = connect(port, '127.0.0.1', () => resolve(socket))
  socket.once('error', reject)
})

export async function clients (ctx: Context, options: { idleSockets: number, slowSockets: number, slowCutMs: number }): Promise<Figures> {
  return withDesktop(ctx, async (server, app) => {
    const phase = 'clients'
    const env = await server.xEnv()
    const out: Figures = {}

    // Disconnect mid-wait and mid-duration: what the request pressed is released all the same.
    const hold = [
      { action: 'press_key', keys: ['shift'], duration: 3 },
      { action: 'wait', duration: 3 },
      { actions: [{ action: 'press_key', keys: ['ctrl'], duration: 2 }, { action: 'wait', duration: 2 }] },
      { action: 'click_mouse', button: 'left', coordinates: app.point(() => 0.5), hold_keys: ['alt'] },
    ]
    for (const body of hold) {
      const { socket } = rawRequest(server.port, server.token, body)
      await delay(300)
      socket.destroy()
    }
    const during = await server.health(ctx.deadlineMs)
    ctx.checks.add(phase, 'disconnects: /health answers while the cut requests run', during.answer.status === 200 || during.answer.status === 503, `${during.answer.status} in ${Math.round(during.answer.ms)} ms`)
    await delay(5000)
    const held = await heldOnX(env).catch((e: Error) => [`xinput: ${e.message}`])
    ctx.checks.add(phase, 'disconnects: nothing held on X after the cut requests\' time', held.length === 0, held.join(', ') || 'none')
    const after = await server.http.post('/computer', { action: 'get_cursor_position' }, ctx.deadlineMs)
    ctx.checks.add(phase, 'disconnects: the server answers afterwards', after.status === 200, `${after.status || after.error} in ${Math.round(after.ms)} ms`)

    // Idle sockets: connected, silent.
    const idle: Socket[] = []
    try {
      for (let i = 0; i < options.idleSockets; i++) idle.push(await opened(server.port))
      const move = await server.http.post('/computer', { action: 'move_mouse', coordinates: app.point(() => 0.3) }, ctx.deadlineMs)
      const h = await server.health(ctx.deadlineMs)
      const still = idle.filter((s) => !s.destroyed && s.readyState === 'open').length
      ctx.checks.add(phase, `${options.idleSockets} idle sockets: the server still answers`, move.status === 200 && h.answer.status === 200, `move ${move.status || move.error} in ${Math.round(move.ms)} ms, health ${h.answer.status}; ${still} idle sockets open`)
      out.idle = { sockets: options.idleSockets, moveMs: Math.round(move.ms), stillOpen: still }
    } finally { for (const s of idle) s.destroy() }

    // Slowloris: headers a line at a time, and bodies a byte at a time; the server must cut
    // them off (within slowCutMs) and answer others meanwhile.
    const slow: Array<{ kind: string, socket: Socket, openedAt: number, closedAt?: number }> = []
    const timers: NodeJS.Timeout[] = []
    const answers: number[] = []
    try {
      for (let i = 0; i < options.slowSockets; i++) {
        for (const kind of ['headers', 'body']) {
          const socket = await opened(server.port)
          const entry: (typeof slow)[number] = { kind, socket, openedAt: performance.now() }
          socket.on('close', () => { entry.closedAt ??= performance.now() })
          socket.on('error', () => {})
          socket.on('data', () => {})
          slow.push(entry)
          if (kind === 'headers') socket.write(`POST /computer HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`)
          else socket.write(`POST /computer HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"action":"type_text","text":"`)
          let n = 0
          timers.push(setInterval(() => { if (!socket.destroyed) socket.write(kind === 'headers' ? `X-Slow-${n++}: a\r\n` : 'a') }, 1000))
        }
      }
      const deadline = performance.now() + options.slowCutMs
      let worst = 0
      while (performance.now() < deadline && slow.some((s) => s.closedAt === undefined)) {
        const a = await server.http.post('/computer', { action: 'get_cursor_position' }, ctx.deadlineMs)
        answers.push(a.status)
        worst = Math.max(worst, a.ms)
        await delay(2000)
      }
      for (const kind of ['headers', 'body']) {
        const mine = slow.filter((s) => s.kind === kind)
        const cut = mine.filter((s) => s.closedAt !== undefined)
        const slowest = Math.max(0, ...cut.map((s) => s.closedAt! - s.openedAt))
        ctx.checks.add(phase, `slowloris ${kind}: every connection cut off within ${options.slowCutMs / 1000} s`, cut.length === mine.length, `${cut.length}/${mine.length} cut${cut.length ? `, the last after ${Math.round(slowest / 1000)} s` : ''}`)
        out[`slow_${kind}`] = { sockets: mine.length, cut: cut.length, lastCutS: Math.round(slowest / 1000) }
      }
      const failed = answers.filter((s) => s !== 200)
      ctx.checks.add(phase, 'slowloris: the server answers others meanwhile', answers.length > 0 && failed.length === 0, `${answers.length} requests, ${failed.length} not 200, slowest ${Math.round(worst)} ms`)
    } finally {
      for (const t of timers) clearInterval(t)
      for (const s of slow) s.socket.destroy()
    }
    await aftermath(ctx, phase, server, app)
    return out
  })
}

// ---------------------------------------------------------------- soak

export async function soak (ctx: Context, options: { clients: number, durationMs: number, sampleMs: number, seed: number }): Promise<Figures> {
  return withDesktop(ctx, async (server, app) => {
    const phase = 'soak'
    const samples: Array<{ s: number, mb: number }> = []
    const started = performance.now()
    let stop = false
    const sampler = (async () => {
      while (!stop) {
        samples.push({ s: Math.round((performance.now() - started) / 1000), mb: await rssMb(await server.tree()) })
        const next = performance.now() + options.sampleMs
        while (!stop && performance.now() < next) await delay(200)
      }
    })()
    const sent = await runLoad(server, app, { clients: options.clients, durationMs: options.durationMs, seed: options.seed, deadlineMs: ctx.deadlineMs })
    stop = true
    await sampler
    samples.push({ s: Math.round((performance.now() - started) / 1000), mb: await rssMb(await server.tree()) })
    const file = await app.settled()
    loadChecks(ctx, phase, sent, file, { errorsAllowed: false })
    // Least-squares slope of RSS over time, MB per minute.
    const n = samples.length
    const mx = samples.reduce((a, p) => a + p.s, 0) / n
    const my = samples.reduce((a, p) => a + p.mb, 0) / n
    const slope = samples.reduce((a, p) => a + (p.s - mx) * (p.mb - my), 0) / Math.max(1e-9, samples.reduce((a, p) => a + (p.s - mx) ** 2, 0)) * 60
    const first = samples[0]!.mb
    const last = samples[n - 1]!.mb
    const max = Math.max(...samples.map((p) => p.mb))
    ctx.checks.add(phase, 'RSS does not run away (end ≤ start + max(100 MB, 50 %))', last <= first + Math.max(100, first / 2), `start ${first} MB, end ${last} MB, max ${max} MB, trend ${slope.toFixed(1)} MB/min`)
    await aftermath(ctx, phase, server, app)
    return { rss: { startMb: first, endMb: last, maxMb: max, trendMbPerMin: Math.round(slope * 10) / 10, samples }, load: figures(sent, performance.now() - started) }
  })
}
