/**
 * Recordings end to end: the server over the real nut driver on its own supervised Xvfb, with
 * ffmpeg's video of the display. A scripted episode through two dialects (Claude's computer
 * tool, Qwen3.5's XML tool call) is listed step by step with its native payloads and unified
 * actions; its screenshots decode; its video plays (ffprobe reads its duration) and its frame
 * at a step's moment matches the screenshot of that step, and not the screen before it; the
 * replay page shows it all in headless Chromium; killing Xvfb mid-episode leaves a playable
 * video and the steps so far; no token, cookie or Authorization is anywhere in the store.
 */
import { execFile } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { promisify } from 'node:util'
import pino from 'pino'
import sharp from 'sharp'
import t, { type Test } from 'tap'
import { buildApp } from '../src/http/app.ts'
import { openDesktop } from '../drivers/index.ts'
import type { SupervisedDesktop } from '../drivers/supervised-desktop.ts'
import { ffmpegVideo } from '../drivers/x11/ffmpeg-video.ts'
import { startBrowser } from './helpers/cdp.ts'
import { until } from './helpers/desktop.ts'
import { everyByte, recordingStore } from './helpers/recording-store.ts'
import { hex, paintRoot } from './helpers/live.ts'
import { requireProgram } from './helpers/processes.ts'
import { descendants } from './helpers/process-table.ts'
import { DEFAULT_MAX_ACTIVE } from '../src/recording/recorder.ts'

const run = promisify(execFile)
requireProgram('ffmpeg', 'the recordings\' video')
requireProgram('ffprobe', 'reading the recordings\' video')

const TOKEN = 'e2e-recording-token-0123456789abc'
const COOKIE_SECRET = 'cookie-secret-of-the-client'
const BLUE: [number, number, number] = [0x33, 0x66, 0xcc]
const RED: [number, number, number] = [0xcc, 0x22, 0x22]

async function server (t: Test) {
  const dir = await recordingStore(t, 'cg-e2e-recordings-')
  const log = pino({ level: 'silent' })
  const desktop = openDesktop('nut', { screen: { width: 1280, height: 800, depth: 24 }, log })
  t.teardown(() => desktop.stop())
  const app = await buildApp({
    driver: desktop.driver, token: TOKEN, logger: log, desktop,
    recording: { dir, maxBytes: 256 << 20, maxAgeMs: 3600_000, idleMs: 120_000, minFreeBytes: 0, video: ffmpegVideo({ display: () => desktop.display, fps: 5 }) },
  })
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const text = typeof body === 'string'
    const response = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, cookie: `session=${COOKIE_SECRET}`, ...(body !== undefined && { 'content-type': text ? 'text/plain' : 'application/json' }), ...headers },
      ...(body !== undefined && { body: text ? body : JSON.stringify(body) }),
    })
    const type = response.headers.get('content-type') ?? ''
    return { status: response.status, body: type.includes('json') ? await response.json() as any : Buffer.from(await response.arrayBuffer()) }
  }
  return { app, base, dir, desktop, request, supervised: desktop.driver as SupervisedDesktop }
}

async function ffprobeDuration (file: string): Promise<number> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'default=nw=1:nk=1', file])
  return Number(stdout.trim())
}

/** The video's frame at `seconds`, as a PNG. */
async function frameAt (file: string, seconds: number): Promise<Buffer> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-ss', seconds.toFixed(3), '-i', file, '-frames:v', '1', '-f', 'image2', '-c:v', 'png', 'pipe:1'], { encoding: 'buffer', maxBuffer: 64 << 20 })
  return stdout as unknown as Buffer
}

/** The mean absolute difference of two images per channel (0–255), compared at 64x40. */
async function difference (a: Buffer, b: Buffer): Promise<number> {
  const small = (image: Buffer) => sharp(image).removeAlpha().resize(64, 40, { fit: 'fill' }).raw().toBuffer()
  const [x, y] = await Promise.all([small(a), small(b)])
  let sum = 0
  for (let i = 0; i < x.length; i++) sum += Math.abs(x[i]! - y[i]!)
  return sum / x.length
}

const xml = (params: Record<string, string>) => `<tool_call>\n<function=computer>\n${Object.entries(params).map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`).join('')}</function>\n</tool_call>`

t.test('an episode through two dialects: steps, screenshots, video, replay page', async (t) => {
  const { request, dir, base, desktop } = await server(t)
  t.ok(await until(() => desktop.driver.ready(), 20_000), 'the desktop is up')
  await paintRoot(desktop.display!, hex(BLUE))
  await delay(1200)
  const episode = { 'x-recording-id': 'two-dialects' }

  const claude = await request('POST', '/computer/anthropic?tool_version=computer_20250124', { action: 'screenshot' }, episode)
  t.equal(claude.status, 200, JSON.stringify(claude.body).slice(0, 200))
  await delay(1500)
  await paintRoot(desktop.display!, hex(RED))
  await delay(1200)
  const qwenText = `I click the middle.\n${xml({ action: 'left_click', coordinate: '[500, 500]' })}`
  const qwen = await request('POST', '/computer/qwen?version=3.5', qwenText, episode)
  t.equal(qwen.status, 200, JSON.stringify(qwen.body).slice(0, 200))
  await delay(1500)
  const stopped = await request('POST', '/recordings/two-dialects/stop')
  t.match(stopped, { status: 200, body: { state: 'stopped', stop_reason: 'stopped', steps: 2, video: true, video_error: null } })

  const { body: recording } = await request('GET', '/recordings/two-dialects')
  t.equal(recording.steps.length, 2, 'both steps are listed')
  const [first, second] = recording.steps
  t.match(first, {
    route: '/computer/anthropic', status: 200, payload: { action: 'screenshot' },
    runs: [{ actions: [{ action: 'take_screenshot' }], error: null }], images: ['0000-0.png'],
  })
  t.match(second, {
    route: '/computer/qwen', status: 200, payload: qwenText,
    runs: [{ actions: [{ action: 'click_mouse', button: 'left' }], error: null }], images: ['0001-0.png'],
  })
  // The first request starts the video: its step is at the very start.
  t.ok(first.video_offset_ms === 0 && second.video_offset_ms > first.video_offset_ms + 2500, `the steps sit in the video at ${first.video_offset_ms} and ${second.video_offset_ms} ms`)

  const shots: Buffer[] = []
  for (const step of recording.steps) {
    const image = await request('GET', `/recordings/two-dialects/images/${step.images[0]}`)
    t.equal(image.status, 200)
    const meta = await sharp(image.body as Buffer).metadata()
    t.match(meta, { format: 'png', width: 1280, height: 800 }, `the screenshot of step ${step.index} decodes`)
    shots.push(image.body as Buffer)
  }

  const video = join(dir, 'two-dialects', 'video.mp4')
  const duration = await ffprobeDuration(video)
  t.ok(duration > 4 && duration < 30, `ffprobe reads the video's duration: ${duration} s`)
  // Each screenshot was taken on a screen that stayed the same for a second around it.
  for (const [i, step] of recording.steps.entries()) {
    const frame = await frameAt(video, (step.video_offset_ms + 300) / 1000)
    const same = await difference(frame, shots[i]!)
    const other = await difference(frame, shots[1 - i]!)
    t.ok(same < 12, `the video's frame at step ${i} matches its screenshot (mean difference ${same.toFixed(1)})`)
    t.ok(other > 40, `and not the other step's (mean difference ${other.toFixed(1)})`)
  }

  await t.test('the replay page, in headless Chromium', async (t) => {
    const browser = await startBrowser(t)
    const page = await browser.open(`${base}/recordings/two-dialects/replay`, { width: 1400, height: 900 })
    t.ok(await until(() => page.evaluate<boolean>('!!document.getElementById("signin")').catch(() => false), 15_000), 'it asks for the token')
    await page.evaluate(`document.getElementById('token').value = ${JSON.stringify(TOKEN)}; document.getElementById('signin').requestSubmit()`)
    t.ok(await until(() => page.evaluate<boolean>('document.querySelectorAll("#steps li").length === 2').catch(() => false), 15_000), 'the timeline lists both steps')
    const items = await page.evaluate<string[]>('[...document.querySelectorAll("#steps li")].map((li) => li.textContent)')
    t.match(items, [/^0\. \/computer\/anthropic — take_screenshot → 200 \(\d+ ms\)$/, /^1\. \/computer\/qwen — click_mouse → 200 \(\d+ ms\)$/])
    t.ok(await until(() => page.evaluate<boolean>('document.getElementById("video").readyState >= 1').catch(() => false), 15_000), 'the video loads')
    t.ok(await page.evaluate<number>('document.getElementById("video").duration') > 4, 'with its duration')
    await page.evaluate('document.querySelectorAll("#steps li")[1].click()')
    t.ok(await until(() => page.evaluate<boolean>('(() => { const f = document.getElementById("frame"); return f.complete && f.naturalWidth === 1280 && f.src.endsWith("images/0001-0.png") })()').catch(() => false), 10_000),
      'choosing a step shows its screenshot')
    const at = await page.evaluate<number>('document.getElementById("video").currentTime')
    t.ok(Math.abs(at * 1000 - second.video_offset_ms) < 300, `and moves the video to it (${at} s)`)
    const detail = await page.evaluate<string>('document.getElementById("detail").textContent')
    t.match(detail, /native payload:\nI click the middle\.\n<tool_call>/, 'the native payload is shown as received')
    t.match(detail, /"action": "click_mouse"/, 'and the unified actions')
  })

  const everything = await everyByte(dir)
  for (const secret of [TOKEN, COOKIE_SECRET]) t.notOk(everything.includes(secret), `nothing of ${secret.slice(0, 10)}… is in the store`)
  t.notOk(/authorization/i.test(everything), 'nor any Authorization header')
})

t.test('the X server killed mid-episode: the steps so far and a playable video remain', async (t) => {
  const { request, dir, desktop, supervised } = await server(t)
  t.ok(await until(() => desktop.driver.ready(), 20_000), 'the desktop is up')
  await paintRoot(desktop.display!, hex(BLUE))
  const episode = { 'x-recording-id': 'x-dies' }
  const shot = await request('POST', '/computer?screenshot=true', { action: 'move_mouse', coordinates: [100, 100] }, episode)
  t.equal(shot.status, 200)
  await delay(3000)
  process.kill(supervised.xvfbPid!, 'SIGKILL')
  t.ok(await until(async () => (await request('GET', '/recordings/x-dies')).body.state === 'stopped', 15_000), 'the episode ends when its capture does')
  const { body: recording } = await request('GET', '/recordings/x-dies')
  t.match(recording.stop_reason, /^desktop-gone: /)
  t.equal(recording.steps.length, 1, 'the step before is intact')
  const video = join(dir, 'x-dies', 'video.mp4')
  const duration = await ffprobeDuration(video)
  t.ok(duration >= 2, `the video plays up to the end: ffprobe reads ${duration} s`)
  const frame = await frameAt(video, 1)
  t.ok(await difference(frame, Buffer.from(shot.body.base64_image, 'base64')) < 12, 'and its frames show the desktop')
  const again = await request('POST', '/computer', { action: 'move_mouse', coordinates: [5, 5] }, episode)
  t.equal(again.status, 409, 'the ended episode takes no more steps')
})

/** The ffmpeg encoders this test process started (the recorder's video captures), with their resident memory in KB. */
function encoders (): Map<number, number> {
  const found = new Map<number, number>()
  for (const [pid, command] of descendants(process.pid)) {
    if (!command.includes('x11grab')) continue
    try {
      found.set(pid, Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0))
    } catch { /* gone meanwhile */ }
  }
  return found
}

t.test('40 parallel episodes: the default --record-max-active start with an encoder each, the rest are 429 before anything runs', async (t) => {
  const { request, desktop } = await server(t)
  t.ok(await until(() => desktop.driver.ready(), 20_000), 'the desktop is up')
  t.equal(encoders().size, 0, 'no encoder before')
  let peak = 0
  let peakKb = 0
  const sampler = setInterval(() => {
    const now = encoders()
    peak = Math.max(peak, now.size)
    peakKb = Math.max(peakKb, [...now.values()].reduce((a, b) => a + b, 0))
  }, 100)
  t.teardown(() => clearInterval(sampler))
  const ids = Array.from({ length: 40 }, (_, i) => `flood-${i}`)
  const answers = await Promise.all(ids.map((id) => request('POST', '/computer', { action: 'move_mouse', coordinates: [10, 10] }, { 'x-recording-id': id })))
  const started = ids.filter((_, i) => answers[i]!.status === 200)
  t.equal(started.length, DEFAULT_MAX_ACTIVE, `exactly ${DEFAULT_MAX_ACTIVE} started`)
  t.strictSame(answers.filter((answer) => answer.status !== 200).map((answer) => answer.body.code), Array(40 - DEFAULT_MAX_ACTIVE).fill('ERR_RECORDING_LIMIT'), 'every other one: 429')
  await delay(2000)
  t.equal(encoders().size, DEFAULT_MAX_ACTIVE, 'one ffmpeg per started episode')
  const health = await request('GET', '/health')
  t.strictSame(health.body.recording, { active: DEFAULT_MAX_ACTIVE, encoders: DEFAULT_MAX_ACTIVE, max_active: DEFAULT_MAX_ACTIVE })
  t.strictSame((await request('GET', '/recordings')).body.recordings.map((r: { id: string }) => r.id).sort(), [...started].sort(), 'only they were stored')
  for (const id of started) t.equal((await request('POST', `/recordings/${id}/stop`)).status, 200)
  t.ok(await until(() => encoders().size === 0, 10_000), 'every encoder ended after')
  clearInterval(sampler)
  t.ok(peak <= DEFAULT_MAX_ACTIVE, `at most ${DEFAULT_MAX_ACTIVE} encoders at any time (peak ${peak})`)
  t.ok(peakKb < DEFAULT_MAX_ACTIVE * 200 * 1024, `their memory together stayed bounded (peak ${Math.round(peakKb / 1024)} MB)`)
  t.strictSame((await request('GET', '/health')).body.recording, { active: 0, encoders: 0, max_active: DEFAULT_MAX_ACTIVE })
})
