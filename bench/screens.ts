/**
 * The screenshot rows of `npm run bench`, against their floor measured in the same run:
 * a bare GetImage of the screen (through the socket, and through MIT-SHM), a bare PNG encode
 * of that image (sharp, zlib level 1), then ours over HTTP (PNG, JPEG, WebP, scaled), each as a
 * ratio of the floor's grab + encode. Then settled screenshots: a click on a terminal that
 * starts a program opening a window (a click on a launcher) → the first screenshot that shows
 * it, taken settled, after a fixed 2 s sleep (what Anthropic's reference agent does) and at
 * once, with how often each shows the new window and how long each took; and a click that
 * changes nothing → how soon the settled screenshot returns.
 */
import { type ChildProcess } from 'node:child_process'
import { setTimeout as delay } from 'node:timers/promises'
import sharp from 'sharp'
import type { XClient } from 'x11'
import { createClient } from '../drivers/x11/connect.ts'
import { openShmGrabber, ReadBackProvider } from '../drivers/x11/shm-grabber.ts'
import { encodePng, rgbx } from '../src/screen/screenshot.ts'
import type { RawImage } from '../src/driver/driver.ts'
import { spawnOwned, stopOwned } from '../test/helpers/processes.ts'
import { client } from './http-client.ts'
import { percentile } from './percentile.ts'

export interface ScreenBenchOptions {
  /** The display our server (on `port`) drives. */
  display: string
  port: number
  smoke: boolean
  quick: boolean
}

interface Row { kind: string, p50: number, p95: number, n: number, floor?: number }

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1))

/** n timed runs after one untimed (the first of a kind warms caches and sharp's threads). */
async function sample (kind: string, n: number, run: () => Promise<unknown>): Promise<Row> {
  await run()
  const times: number[] = []
  for (let i = 0; i < n; i++) {
    const started = performance.now()
    await run()
    times.push(performance.now() - started)
  }
  return { kind, p50: percentile(times, 50), p95: percentile(times, 95), n }
}

function connect (display: string): Promise<{ x: XClient, provider: ReadBackProvider, root: number, width: number, height: number }> {
  return new Promise((resolve, reject) => {
    const provider = new ReadBackProvider()
    const x = createClient(display, (error, info) => {
      if (error) { reject(error); return }
      const screen = info.screen[0]!
      resolve({ x, provider, root: screen.root, width: screen.pixel_width, height: screen.pixel_height })
    }, { shm: provider })
  })
}

/** The floor rows: what the X server and the encoder take with nothing of ours around them. */
async function floor (display: string, n: number) {
  const { x, provider, root, width, height } = await connect(display)
  try {
    const core = () => new Promise<RawImage>((resolve, reject) => x.GetImage(2, root, 0, 0, width, height, 0xffffffff, (error, image) => {
      if (error) reject(error)
      else resolve({ width, height, order: 'bgra', data: image.data.subarray(0, width * height * 4) })
    }))
    const rows: Row[] = [await sample(`floor: GetImage ${width}x${height} (socket)`, n, core)]
    const shm = await openShmGrabber(x, root, { width, height }, provider).catch(() => undefined)
    if (shm) rows.push(await sample(`floor: GetImage ${width}x${height} (MIT-SHM)`, n, () => shm.grab({ x: 0, y: 0, width, height })))
    const image = await core()
    // The encoder alone, on pixels already in RGB order.
    const rgb = await sharp(rgbx(image), { raw: { width, height, channels: 4 } }).removeAlpha().raw().toBuffer()
    rows.push(await sample('floor: PNG encode (zlib 1)', n, () => sharp(rgb, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer()))
    rows.push(await sample('floor: PNG encode → 1024x768', n, () => sharp(rgb, { raw: { width, height, channels: 3 } }).resize(1024, 768, { fit: 'fill', kernel: 'lanczos3' }).png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer()))
    rows.push(await sample('ours in-process: reorder + PNG', n, () => encodePng(image)))
    return rows
  } finally {
    x.terminate()
  }
}

// The terminal that starts a program on a click: X10 mouse reporting sends a press as 6 bytes.
// Each click opens a red window at WINDOW, or closes the one open.
const LAUNCHER_AT = [60, 60] as const
const WINDOW = { left: 700, top: 400, width: 200, height: 100 }
const LAUNCHER = [
  'stty raw -echo; printf "\\033[?9h"; pid=""',
  'while :; do dd bs=6 count=1 2>/dev/null >/dev/null',
  `  if [ -n "$pid" ]; then kill $pid; pid=""; else xterm -geometry 34x7+${WINDOW.left}+${WINDOW.top} -bg red -e sleep 600 & pid=$!; fi`,
  'done',
].join('\n')

/** Whether a screenshot (base64 PNG) shows the red window: most of its middle is red. */
async function showsWindow (base64: string): Promise<boolean> {
  const middle = { left: WINDOW.left + 40, top: WINDOW.top + 30, width: 100, height: 40 }
  const rgb = await sharp(Buffer.from(base64, 'base64')).extract(middle).removeAlpha().raw().toBuffer()
  let red = 0
  for (let i = 0; i < rgb.length; i += 3) if (rgb[i]! > 200 && rgb[i + 1]! < 60 && rgb[i + 2]! < 60) red++
  return red > (rgb.length / 3) * 0.8
}

async function settled (options: ScreenBenchOptions) {
  const http = client(options.port)
  const trials = options.smoke ? 1 : options.quick ? 3 : 10
  let launcher: ChildProcess | undefined
  const post = async (path: string, body: unknown) => {
    const response = await http.post(path, body)
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${response.body.slice(0, 200)}`)
    return JSON.parse(response.body) as { base64_image: string | null }
  }
  const screen = async () => (await post('/computer', { action: 'take_screenshot' })).base64_image!
  const until = async (shown: boolean, what: string) => {
    const deadline = Date.now() + 10_000
    while (await showsWindow(await screen()) !== shown) {
      if (Date.now() > deadline) throw new Error(`the launched window did not ${what} within 10 s`)
      await delay(50)
    }
  }
  const click = { action: 'click_mouse', button: 'left', coordinates: LAUNCHER_AT }
  try {
    launcher = spawnOwned(undefined, 'xterm', ['-geometry', '20x5+0+0', '-e', 'sh', '-c', LAUNCHER], { env: { ...process.env, DISPLAY: options.display }, stdio: 'ignore' })
    // Ready once a click opens the window (the terminal has mapped and its script runs).
    const ready = Date.now() + 20_000
    for (;;) {
      await post('/computer', click)
      const opened = await showsWindow(await screen()) || await delay(1000).then(screen).then(showsWindow)
      if (opened) break
      if (Date.now() > ready) throw new Error('the launcher terminal did not start a window within 20 s')
    }
    await post('/computer', click)
    await until(false, 'close')

    const ways: Array<{ name: string, take: () => Promise<string> }> = [
      { name: 'settled (default 300 ms quiet, 3 s cap)', take: async () => (await post('/computer?screenshot=true&settle=true', click)).base64_image! },
      { name: 'fixed 2 s sleep', take: async () => { await post('/computer', click); await delay(2000); return screen() } },
      { name: 'immediate', take: async () => (await post('/computer?screenshot=true', click)).base64_image! },
    ]
    const results = ways.map((way) => ({ way: way.name, shown: 0, times: [] as number[] }))
    // Interleaved, so a busy moment hits every way alike.
    for (let i = 0; i < trials; i++) {
      for (const [w, way] of ways.entries()) {
        const started = performance.now()
        const image = await way.take()
        results[w]!.times.push(performance.now() - started)
        if (await showsWindow(image)) results[w]!.shown++
        // Wait for it, whatever the screenshot showed, then close it for the next trial.
        await until(true, 'open')
        await post('/computer', click)
        await until(false, 'close')
      }
    }
    const nothing = await sample('settled after a click that changes nothing', trials * 3, () => post('/computer?screenshot=true&settle=true', { action: 'click_mouse', button: 'left', coordinates: [1100, 780] }))
    return {
      opensWindow: results.map((r) => ({ way: r.way, shown: r.shown, trials, p50: percentile(r.times, 50), p95: percentile(r.times, 95) })),
      nothing,
    }
  } finally {
    http.close()
    if (launcher) await stopOwned(launcher)
  }
}

/** Runs the screenshot rows against our server on `display`, prints them and returns them for the JSON. */
export async function benchScreens (options: ScreenBenchOptions) {
  const n = options.smoke ? 2 : options.quick ? 5 : 30
  const floorRows = await floor(options.display, n)
  const http = client(options.port)
  const ours: Row[] = []
  try {
    const shot = (query: string) => async () => {
      const response = await http.post(`/computer${query}`, { action: 'take_screenshot' })
      if (response.status !== 200) throw new Error(`screenshot ${query}: ${response.status} ${response.body.slice(0, 200)}`)
    }
    ours.push(await sample('ours: screenshot 1280x800 PNG', n, shot('')))
    ours.push(await sample('ours: screenshot → 1024x768 PNG', n, shot('?display_width_px=1024&display_height_px=768')))
    ours.push(await sample('ours: screenshot 1280x800 JPEG q80', n, shot('?format=jpeg')))
    ours.push(await sample('ours: screenshot 1280x800 WebP q80', n, shot('?format=webp')))
  } finally {
    http.close()
  }
  const p50 = (prefix: string) => floorRows.find((r) => r.kind.startsWith(prefix))?.p50 ?? NaN
  const grab = Math.min(p50('floor: GetImage'), p50('floor: GetImage 1280x800 (MIT-SHM)') || Infinity)
  ours[0]!.floor = grab + p50('floor: PNG encode (zlib 1)')
  ours[1]!.floor = grab + p50('floor: PNG encode → 1024x768')
  const settle = await settled(options)

  console.log('screenshots | p50 / p95 ms | floor (grab + encode) | ÷ floor')
  for (const row of [...floorRows, ...ours]) {
    console.log([row.kind, `${fmt(row.p50)} / ${fmt(row.p95)}`, row.floor ? fmt(row.floor) : '', row.floor ? `${(row.p50 / row.floor).toFixed(1)}x` : ''].join(' | '))
  }
  console.log('click that opens a window → first screenshot | shows it | p50 / p95 ms')
  for (const r of settle.opensWindow) console.log(`${r.way} | ${r.shown}/${r.trials} | ${fmt(r.p50)} / ${fmt(r.p95)}`)
  console.log(`${settle.nothing.kind} | — | ${fmt(settle.nothing.p50)} / ${fmt(settle.nothing.p95)}`)

  const [settledWay, sleepWay] = settle.opensWindow
  const targets: Array<[string, boolean]> = [
    ['screenshot 1280x800 PNG ≤ 2x its floor (grab + encode)', ours[0]!.p50 <= 2 * ours[0]!.floor],
    ['screenshot → 1024x768 ≤ 12 ms', ours[1]!.p50 <= 12],
    ['settled screenshot shows the new window every time', settledWay!.shown === settledWay!.trials],
    ['settled screenshot sooner than a 2 s sleep', settledWay!.p50 < sleepWay!.p50],
  ]
  for (const [target, met] of targets) console.log(`${met ? 'MET ' : 'MISS'} ${target}`)
  return { floor: floorRows, ours, settle, targets }
}
