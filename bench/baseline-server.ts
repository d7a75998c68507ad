/**
 * The approaches users would otherwise pick, behind the same HTTP action API, so the bench
 * compares like with like over the same keep-alive client:
 * - `xdotool`: one xdotool process per action with its default delays, screenshots through
 *   screenshot-desktop (ImageMagick) — how the Anthropic demo and most peers run;
 * - `xdotool-nodelay`: the same with --delay 0, the fairest subprocess baseline;
 * - `nut-default`: nut-js in-process with its default auto-delays, screenshots with
 *   screen.capture (jimp) — how bytebot configures it.
 * Only the action kinds the bench uses are implemented. Usage: baseline-server.ts MODE PORT
 */
import { execFile } from 'node:child_process'
import { readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import Fastify from 'fastify'
import screenshotDesktop from 'screenshot-desktop'
import sharp from 'sharp'

type Mode = 'xdotool' | 'xdotool-nodelay' | 'nut-default'
type Action = { action: string, [field: string]: unknown }

const mode = process.argv[2] as Mode
const port = Number(process.argv[3])
const run = promisify(execFile)
const xdotool = (...args: string[]) => run('xdotool', args)
const delayArgs = mode === 'xdotool-nodelay' ? ['--delay', '0'] : []

const nut = mode === 'nut-default' ? await import('@nut-tree-fork/nut-js') : undefined

async function screenshot (size?: { width: number, height: number }): Promise<string> {
  let png: Buffer
  if (nut) {
    const file = await nut.screen.capture(`shot-${process.pid}`, nut.FileType.PNG, tmpdir())
    png = await readFile(file)
    await rm(file, { force: true })
  } else {
    png = await screenshotDesktop({ format: 'png' })
  }
  if (size) png = await sharp(png).resize(size.width, size.height, { fit: 'fill' }).png().toBuffer()
  return png.toString('base64')
}

async function xdotoolAction (a: Action): Promise<void> {
  const [x, y] = (a.coordinates as number[] | undefined) ?? []
  switch (a.action) {
    case 'move_mouse': await xdotool('mousemove', String(x), String(y)); break
    case 'click_mouse': {
      const repeat = Number(a.num_clicks ?? 1)
      await xdotool('mousemove', String(x), String(y), 'click', ...delayArgs, '--repeat', String(repeat), '1')
      break
    }
    case 'press_key': await xdotool('key', ...delayArgs, (a.keys as string[]).join('+')); break
    case 'type_text': await xdotool('type', ...(mode === 'xdotool' ? ['--delay', '12'] : delayArgs), '--', a.text as string); break
    case 'scroll': await xdotool('mousemove', String(x), String(y), 'click', ...delayArgs, '--repeat', String(a.delta_y), '5'); break
    case 'drag_mouse': {
      const path = a.path as number[][]
      const args = ['mousemove', String(path[0]![0]), String(path[0]![1]), 'mousedown', '1']
      for (const [px, py] of path.slice(1)) args.push('mousemove', String(px), String(py))
      await xdotool(...args, 'mouseup', '1')
      break
    }
    default: throw new Error(`not in the bench: ${a.action}`)
  }
}

async function nutAction (a: Action): Promise<void> {
  const { mouse, keyboard, Key, Button, Point, straightTo } = nut!
  const [x, y] = (a.coordinates as number[] | undefined) ?? []
  switch (a.action) {
    case 'move_mouse': await mouse.setPosition(new Point(x!, y!)); break
    case 'click_mouse':
      await mouse.setPosition(new Point(x!, y!))
      await (Number(a.num_clicks ?? 1) === 2 ? mouse.doubleClick(Button.LEFT) : mouse.click(Button.LEFT))
      break
    case 'press_key': {
      const keys = (a.keys as string[]).map((k) => k === 'ctrl' ? Key.LeftControl : (Key as unknown as Record<string, number>)[k.toUpperCase()]! as unknown as typeof Key.A)
      await keyboard.pressKey(...keys)
      await keyboard.releaseKey(...keys)
      break
    }
    case 'type_text': await keyboard.type(a.text as string); break
    case 'scroll': await mouse.setPosition(new Point(x!, y!)); await mouse.scrollDown(Number(a.delta_y)); break
    case 'drag_mouse': {
      const path = a.path as number[][]
      await mouse.setPosition(new Point(path[0]![0]!, path[0]![1]!))
      await mouse.pressButton(Button.LEFT)
      for (const [px, py] of path.slice(1)) await mouse.setPosition(new Point(px!, py!))
      await mouse.releaseButton(Button.LEFT)
      break
    }
    default: throw new Error(`not in the bench: ${a.action}`)
  }
  void straightTo
}

async function perform (a: Action, size?: { width: number, height: number }) {
  if (a.action === 'take_screenshot') return { output: 'took a screenshot', base64_image: await screenshot(size) }
  await (nut ? nutAction(a) : xdotoolAction(a))
  return { output: 'ok', base64_image: null }
}

const app = Fastify({ bodyLimit: 1024 * 1024 })
app.post('/computer', async (request) => {
  const query = request.query as { display_width_px?: string, display_height_px?: string }
  const size = query.display_width_px ? { width: Number(query.display_width_px), height: Number(query.display_height_px) } : undefined
  return perform(request.body as Action, size)
})
app.post('/computer/batch', async (request) => {
  const results = []
  for (const a of (request.body as { actions: Action[] }).actions) results.push(await perform(a))
  return { results, failed_index: null }
})
await app.listen({ host: '127.0.0.1', port })
process.send?.('listening')
