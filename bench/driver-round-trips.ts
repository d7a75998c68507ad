/**
 * Round trips of the two X drivers on their own, without HTTP: start(), moveMouse, a key down
 * and up, a full screenshot. Figures for the report, not a test: nothing here can fail on a
 * slow machine. `node --import tsx bench/driver-round-trips.ts` starts its own Xvfb and stops
 * it by PID.
 */
import { NutDriver } from '../drivers/nut/nut-driver.ts'
import { XdotoolDriver } from '../drivers/xdotool/xdotool-driver.ts'
import { startXvfb } from '../drivers/x11/xvfb.ts'
import type { Driver } from '../src/driver/driver.ts'
import type { KeyInfo } from '../src/keys/index.ts'

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const shift: KeyInfo = { name: 'shift_l', keysym: 'Shift_L', modifier: false }

async function timed (n: number, step: (i: number) => Promise<unknown>): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < n; i++) {
    const started = performance.now()
    await step(i)
    times.push(performance.now() - started)
  }
  return median(times)
}

async function measure (name: string, driver: Driver): Promise<void> {
  const started = performance.now()
  await driver.start()
  const startMs = performance.now() - started
  try {
    const move = await timed(1000, (i) => driver.moveMouse({ x: i % 1280, y: (i * 7) % 800 }))
    const key = await timed(100, async () => { await driver.keyDown(shift); await driver.keyUp(shift) })
    const shot = await timed(30, () => driver.screenshot())
    console.log(`${name}: start() ${startMs.toFixed(0)} ms; moveMouse p50 ${move.toFixed(3)} ms (n=1000); key down+up p50 ${key.toFixed(2)} ms (n=100); full 1280x800 screenshot p50 ${shot.toFixed(2)} ms (n=30)`)
  } finally {
    await driver.close()
  }
}

const xvfb = await startXvfb({ screen: '1280x800x24' })
try {
  await measure('nut', new NutDriver({ display: xvfb.display }))
  await measure('xdotool', new XdotoolDriver({ display: xvfb.display }))
} finally {
  await xvfb.stop()
}
