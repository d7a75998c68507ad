/**
 * The screenshot options of every action route, over the fake driver: `format`/`quality`
 * (every image decodes as what was asked, at the declared size; adapters name its media type)
 * and settling (off on the unified routes unless asked, on for adapters unless refused, the
 * server's defaults and the query's own values reaching the driver; none for a screenshot
 * that follows no action). Refusals are 400s that say what to change.
 */
import sharp from 'sharp'
import t from 'tap'
import { loadConfig } from '../src/runtime/config.ts'
import { build, post } from './helpers/build.ts'

async function decoded (base64: string) {
  const metadata = await sharp(Buffer.from(base64, 'base64')).metadata()
  return { format: metadata.format, width: metadata.width, height: metadata.height }
}

const click = { action: 'click_mouse', button: 'left', coordinates: [10, 10] }

t.test('format picks the encoding of every screenshot, at the declared size', async (t) => {
  const { app } = await build(t)
  for (const [query, format] of [['', 'png'], ['&format=png', 'png'], ['&format=jpeg', 'jpeg'], ['&format=jpeg&quality=30', 'jpeg'], ['&format=webp', 'webp'], ['&format=webp&quality=90', 'webp']] as const) {
    const { status, body } = await post(app, `/computer?screenshot=true&display_width_px=1024&display_height_px=768${query}`, click)
    t.equal(status, 200, query)
    t.strictSame(await decoded(body.base64_image), { format, width: 1024, height: 768 }, query || 'default')
  }
  const batch = await post(app, '/computer/batch?format=jpeg', { actions: [{ action: 'take_screenshot' }, { action: 'take_screenshot', region: [0, 0, 100, 50] }] })
  t.strictSame(await Promise.all(batch.body.results.map((r: { base64_image: string }) => decoded(r.base64_image))),
    [{ format: 'jpeg', width: 1280, height: 800 }, { format: 'jpeg', width: 100, height: 50 }], 'a batch, a region too')
})

t.test('a lower quality makes a smaller jpeg', async (t) => {
  const { app, driver } = await build(t)
  // Noise, so the quality shows in the size.
  for (let i = 0; i < driver.pixels.length; i++) driver.pixels[i] = (i * 2654435761) >>> 24
  const size = async (quality: number) => Buffer.from((await post(app, `/computer?format=jpeg&quality=${quality}`, { action: 'take_screenshot' })).body.base64_image, 'base64').length
  t.ok(await size(10) < await size(95))
})

t.test('bad encoding and settling parameters are 400s that say what to change', async (t) => {
  const { app, driver } = await build(t)
  const cases: Array<[string, RegExp]> = [
    ['format=gif', /format/],
    ['format=jpeg&quality=0', /quality/],
    ['format=jpeg&quality=101', /quality/],
    ['quality=50', /^quality applies to format=jpeg or format=webp; png is lossless/],
    ['format=png&quality=50', /png is lossless/],
    ['settle=maybe', /settle/],
    ['settle_quiet_ms=0', /settle_quiet_ms/],
    ['settle_max_ms=30001', /settle_max_ms/],
    ['settle_quiet_ms=500&settle_max_ms=100', /^settle_max_ms \(100\) is below settle_quiet_ms \(500\)/],
  ]
  for (const [query, message] of cases) {
    const { status, body } = await post(app, `/computer?screenshot=true&${query}`, click)
    t.equal(status, 400, query)
    t.equal(body.code, 'ERR_INVALID_QUERY', query)
    t.match(body.message, message, query)
    const adapter = await post(app, `/computer/anthropic?tool_version=computer_20251124&${query}`, { action: 'left_click', coordinate: [10, 10] })
    t.equal(adapter.status, 400, `anthropic ${query}`)
  }
  t.strictSame(driver.calls.filter((c) => c.call !== 'screenshot'), [], 'nothing ran')
})

t.test('the unified routes settle only when asked', async (t) => {
  const { app, driver } = await build(t)
  await post(app, '/computer?screenshot=true', click)
  t.strictSame(driver.settles, [], 'not by default')
  await post(app, '/computer?screenshot=true&settle=true', click)
  t.strictSame(driver.settles, [{ quietMs: 300, maxMs: 3000 }], 'settle=true: the defaults')
  await post(app, '/computer?screenshot=true&settle_quiet_ms=50', click)
  t.strictSame(driver.settles.at(-1), { quietMs: 50, maxMs: 3000 }, 'a quiet window asks for it too')
  await post(app, '/computer?screenshot=true&settle=false&settle_quiet_ms=50', click)
  t.equal(driver.settles.length, 2, 'settle=false wins')
  await post(app, '/computer?settle=true', click)
  t.equal(driver.settles.length, 2, 'no screenshot, no wait')
  await post(app, '/computer?settle=true', { action: 'take_screenshot' })
  t.equal(driver.settles.length, 2, 'a screenshot after no action is taken at once')
  await post(app, '/computer/batch?settle=true&screenshot=true', { actions: [click, { action: 'wait', duration: 0.01 }, { action: 'take_screenshot' }] })
  t.equal(driver.settles.length, 3, 'a batch: once, before its screenshot, after the click')
})

t.test('the server sets the defaults', async (t) => {
  const { app, driver } = await build(t, { settle: { quietMs: 120, maxMs: 900 } })
  await post(app, '/computer?screenshot=true&settle=true', click)
  await post(app, '/computer?screenshot=true&settle_max_ms=2000', click)
  t.strictSame(driver.settles, [{ quietMs: 120, maxMs: 900 }, { quietMs: 120, maxMs: 2000 }])
})

t.test('adapters settle by default and name the media type asked for', async (t) => {
  const { app, driver } = await build(t)
  const anthropic = await post(app, '/computer/anthropic?tool_version=computer_20251124', { action: 'left_click', coordinate: [10, 10] })
  t.equal(anthropic.status, 200)
  t.equal(driver.settles.length, 1, 'settled')
  const image = anthropic.body.content.find((block: { type: string }) => block.type === 'image')
  t.equal(image.source.media_type, 'image/png')
  t.equal((await decoded(image.source.data)).format, 'png')

  const jpeg = await post(app, '/computer/anthropic?tool_version=computer_20251124&format=jpeg&settle=false', { action: 'left_click', coordinate: [10, 10] })
  t.equal(driver.settles.length, 1, 'settle=false: at once')
  const jpegImage = jpeg.body.content.find((block: { type: string }) => block.type === 'image')
  t.equal(jpegImage.source.media_type, 'image/jpeg')
  t.equal((await decoded(jpegImage.source.data)).format, 'jpeg')

  const openai = await post(app, '/computer/openai?format=webp', { type: 'computer_call', call_id: 'c1', actions: [{ type: 'click', button: 'left', x: 5, y: 5 }] })
  t.equal(openai.status, 200)
  const url: string = openai.body.output.image_url
  t.ok(url.startsWith('data:image/webp;base64,'), url.slice(0, 30))
  t.equal((await decoded(url.slice('data:image/webp;base64,'.length))).format, 'webp')

  const gemini = await post(app, '/computer/gemini?format=jpeg&quality=50', { name: 'click_at', args: { x: 500, y: 300 } })
  t.equal(gemini.status, 200)
  const inline = gemini.body.functionResponse.parts[0].inlineData
  t.equal(inline.mimeType, 'image/jpeg')
  t.equal((await decoded(inline.data)).format, 'jpeg')
  t.equal(driver.settles.length, 3, 'each adapter call settled once')

  const shot = await post(app, '/computer/anthropic?tool_version=computer_20251124', { action: 'screenshot' })
  t.equal(shot.status, 200)
  t.equal(driver.settles.length, 3, "the model's own screenshot action follows no action: taken at once")

  const member = { type: 'tool_use', id: 'toolu_01R', name: 'screenshot', toolset_name: 'computer', input: {} }
  const toolset = await post(app, '/computer/anthropic?format=webp', member)
  t.equal(toolset.status, 200)
  const toolsetImage = toolset.body[0].content.find((block: { type: string }) => block.type === 'image')
  t.equal(toolsetImage.source.media_type, 'image/webp', 'the computer toolset names it too')
  t.equal((await decoded(toolsetImage.source.data)).format, 'webp')
})

t.test('--settle-quiet-ms and --settle-max-ms (or their variables) set the defaults; a cap below the window is refused', async (t) => {
  t.strictSame(loadConfig([], {}).settle, { quietMs: 300, maxMs: 3000 })
  t.strictSame(loadConfig(['--settle-quiet-ms', '150', '--settle-max-ms', '2000'], {}).settle, { quietMs: 150, maxMs: 2000 })
  t.strictSame(loadConfig([], { SETTLE_QUIET_MS: '80', SETTLE_MAX_MS: '900' }).settle, { quietMs: 80, maxMs: 900 })
  t.throws(() => loadConfig(['--settle-quiet-ms', '500', '--settle-max-ms', '100'], {}), { code: 'ERR_INVALID_CONFIG', message: /--settle-max-ms \(100\) must not be below --settle-quiet-ms \(500\)/ })
  t.throws(() => loadConfig(['--settle-quiet-ms', '0'], {}), { code: 'ERR_INVALID_CONFIG', message: /settle-quiet-ms/ })
})
