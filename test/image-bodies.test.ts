/**
 * Screenshots written into HTTP bodies from their bytes (src/screen/deferred-images.ts,
 * src/http/image-bodies.ts): the bodies are the JSON the serializer would have made with the
 * base64 inline, on every route that sends screenshots and in a data: URL, with other strings
 * still escaped, a recorded step keeping the text, and the images' memory freed once written.
 */
import { randomBytes } from 'node:crypto'
import Fastify, { type FastifyReply } from 'fastify'
import sharp from 'sharp'
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { assemble, deferImages, imageBodies } from '../src/http/image-bodies.ts'
import { base64Length, writeBase64 } from '../src/screen/base64.ts'
import { DeferredImages } from '../src/screen/deferred-images.ts'
import { build, post } from './helpers/build.ts'
import { recordingStore } from './helpers/recording-store.ts'

/** A screen of noise: its PNG is large (fdeflate's path, ~4 bytes a pixel). */
function noisy (driver: { pixels: Buffer }): void {
  randomBytes(driver.pixels.length).copy(driver.pixels)
}

/** An app with image bodies whose GET /shot answers what `answer` makes of the request's images. */
async function appAnswering (t: { teardown: (fn: () => unknown) => void }, answer: (images: DeferredImages) => unknown, schema?: object) {
  const app = Fastify()
  t.teardown(() => app.close())
  imageBodies(app)
  app.get('/shot', schema ? { schema: { response: { 200: schema } } } : {}, async (_request, reply) => answer(deferImages(reply)!))
  return app
}

t.test('writeBase64 writes what Buffer#toString does, across its chunks and at any offset', async (t) => {
  for (const length of [0, 1, 2, 3, 4, 5, 48 * 1024 - 1, 48 * 1024, 48 * 1024 + 1, 48 * 1024 + 2, 3 * 48 * 1024 + 7]) {
    const bytes = randomBytes(length)
    for (const offset of [0, 1, 3]) {
      const out = Buffer.alloc(offset + base64Length(length) + 2, '#')
      const written = writeBase64(bytes, out, offset)
      t.equal(written, base64Length(length), `${length} bytes: ${written} characters`)
      const expected = Buffer.concat([Buffer.alloc(offset, '#'), Buffer.from(bytes.toString('base64'), 'latin1'), Buffer.from('##')])
      if (!out.equals(expected)) t.fail(`${length} bytes at offset ${offset}: not the same base64, or written outside its place`)
    }
  }
})

t.test('a JSON body has its images inline, other strings escaped, the payload unchanged', async (t) => {
  const png = randomBytes(200_000)
  const text = png.toString('base64')
  const quoted = `"quoted" \\ and a newline\n${'x'.repeat(70_000)}`
  let payload: Record<string, unknown> = {}
  const app = await appAnswering(t, (images) => {
    const image = images.add(png)
    payload = { output: 'é "ü"', image, url: `data:image/png;base64,${image}`, blocks: [{ type: 'image', data: image }, { type: 'text', text: quoted }], nothing: null }
    return payload
  }, Type.Object({
    output: Type.String(),
    image: Type.String(),
    url: Type.String(),
    blocks: Type.Array(Type.Object({ type: Type.String(), data: Type.Optional(Type.String()), text: Type.Optional(Type.String()) })),
    nothing: Type.Null(),
  }))
  const response = await app.inject({ method: 'GET', url: '/shot' })
  const expected = { output: 'é "ü"', image: text, url: `data:image/png;base64,${text}`, blocks: [{ type: 'image', data: text }, { type: 'text', text: quoted }], nothing: null }
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^application\/json/)
  t.equal(Number(response.headers['content-length']), response.rawPayload.length)
  t.equal(response.body, JSON.stringify(expected), 'byte for byte what JSON.stringify makes of the answer with its base64 inline')
  t.equal(payload.image, (payload.blocks as Array<{ data?: string }>)[0]!.data, "the handler's object still holds its tokens")
  t.ok(String(payload.image).length < 64, `a token is short (${String(payload.image).length} characters)`)
})

t.test("tokens: each by its own index, in any order; a client's look-alike stays text", async (t) => {
  const images = new DeferredImages()
  const tokens = Array.from({ length: 12 }, (_, i) => images.add(Buffer.from(`s${i}`)))
  const body = `{"ten":"${tokens[10]}","one":"${tokens[1]}","eleven":"${tokens[11]}","zero":"${tokens[0]}","é":"${tokens[2]}"}`
  const b64 = (s: string) => Buffer.from(s).toString('base64')
  t.equal(assemble(body, images).toString(), `{"ten":"${b64('s10')}","one":"${b64('s1')}","eleven":"${b64('s11')}","zero":"${b64('s0')}","é":"${b64('s2')}"}`,
    'each token by its own index: 1 is not read in 10 or 11')
  t.equal(images.text(`${tokens[3]} and ${tokens[3]}`), `${b64('s3')} and ${b64('s3')}`, 'text() resolves every token it finds')
  t.same(assemble('{"a":"ü"}', images), Buffer.from('{"a":"ü"}'), 'no token: the body as UTF-8')
  // The secret is random: a client cannot write a token, not even by guessing the shape.
  const forged = tokens[0]!.replace(/image[0-9a-f]{24}n/, 'image000000000000000000000000n')
  t.equal(assemble(`{"typed":"${forged}","also":"image0i"}`, images).toString(), `{"typed":"${forged}","also":"image0i"}`)
  const other = new DeferredImages()
  t.equal(other.text(tokens[5]!), tokens[5], "a token another answer's images do not have is left as it is")
})

t.test('a schema that writes the fields in another order than the object has them', async (t) => {
  const pngs = [1, 2, 3].map((fill) => Buffer.alloc(100_000, fill))
  const app = await appAnswering(t, (images) => {
    const [a, b, c] = pngs.map((png) => images.add(png))
    return { a, b, c }
  }, Type.Object({ c: Type.String(), b: Type.String(), a: Type.String() }))
  const text = pngs.map((png) => png.toString('base64'))
  const response = await app.inject({ method: 'GET', url: '/shot' })
  t.equal(response.body, JSON.stringify({ c: text[2], b: text[1], a: text[0] }), 'each field holds its own image')
})

t.test('an image is freed once its body is written; memory shared with others is left alone', async (t) => {
  const images = new DeferredImages()
  const own = Buffer.from(randomBytes(300_000))
  const pooled = Buffer.from('a small PNG in Node\'s pool')
  const slab = Buffer.alloc(200_000, 1)
  const part = slab.subarray(1000, 2000)
  images.add(own)
  images.add(pooled)
  images.add(part)
  images.release()
  t.equal(own.buffer.byteLength, 0, 'its own memory: detached (freed)')
  t.equal(images.size, 0, 'nothing kept')
  t.equal(pooled.toString(), 'a small PNG in Node\'s pool', 'a pool slice stays')
  t.equal(part.length, 1000, 'a part of a larger buffer stays')
  t.equal(slab.buffer.byteLength, slab.length)
})

t.test('without image bodies a route gets no images to defer to', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  let deferred: DeferredImages | undefined | 'unset' = 'unset'
  app.get('/', async (_request, reply: FastifyReply) => { deferred = deferImages(reply); return {} })
  await app.inject({ method: 'GET', url: '/' })
  t.equal(deferred, undefined)
})

t.test('the routes that answer with screenshots send them whole', async (t) => {
  const { app, driver } = await build(t, { fake: { screen: { width: 320, height: 200 } } })
  noisy(driver)
  const expected = (await sharp(driver.pixels, { raw: { width: 320, height: 200, channels: 4 } }).removeAlpha().raw().toBuffer())
  const decodes = async (base64: string, where: string) => {
    t.ok(base64.length > 100_000, `${where}: a screenshot of noise (${base64.length} characters)`)
    const pixels = await sharp(Buffer.from(base64, 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true })
    t.same([pixels.info.width, pixels.info.height], [320, 200], `${where}: 320x200`)
    t.ok(pixels.data.equals(expected), `${where}: the screen's pixels`)
  }
  const unified = await post(app, '/computer', { action: 'take_screenshot' })
  t.equal(unified.status, 200)
  await decodes(unified.body.base64_image, '/computer')
  const batch = await post(app, '/computer/batch?screenshot=true', { actions: [{ action: 'take_screenshot' }, { action: 'move_mouse', coordinates: [1, 1] }] })
  t.equal(batch.status, 200)
  await decodes(batch.body.results[0].base64_image, '/computer/batch, the first')
  await decodes(batch.body.results.at(-1).base64_image, '/computer/batch, the last')
  const claude = await post(app, '/computer/anthropic?tool_version=computer_20251124', { action: 'screenshot' })
  t.equal(claude.status, 200)
  await decodes(claude.body.content[1].source.data, '/computer/anthropic')
  const openai = await post(app, '/computer/openai', { type: 'computer_call', call_id: 'call_1', actions: [{ type: 'screenshot' }] })
  t.equal(openai.status, 200)
  const url: string = openai.body.output.image_url
  t.ok(url.startsWith('data:image/png;base64,'), 'a data: URL')
  await decodes(url.slice('data:image/png;base64,'.length), '/computer/openai')
})

t.test('a batch that fails after a screenshot still sends it, and a failing request sends none', async (t) => {
  let fail = false
  const { app, driver } = await build(t, {
    fake: { screen: { width: 320, height: 200 }, beforeCall: (call) => { if (fail && call.call === 'moveMouse') throw new Error('the pointer is gone') } },
  })
  noisy(driver)
  fail = true
  const batch = await post(app, '/computer/batch', { actions: [{ action: 'take_screenshot' }, { action: 'move_mouse', coordinates: [1, 1] }] })
  t.equal(batch.body.failed_index, 1)
  const png = Buffer.from(batch.body.results[0].base64_image, 'base64')
  t.same((await sharp(png).metadata()).width, 320, 'the screenshot before the failure decodes')
  const single = await post(app, '/computer?screenshot=true', { action: 'move_mouse', coordinates: [1, 1] })
  t.equal(single.status >= 500, true, `answered ${single.status}`)
  t.notOk(JSON.stringify(single.body).includes('base64'), 'an error body, no token in it')
})

t.test('a recorded step keeps the answer as sent, screenshots and all', async (t) => {
  const dir = await recordingStore(t)
  const { app, driver } = await build(t, { fake: { screen: { width: 320, height: 200 } }, recording: { dir, maxBytes: 64 << 20, maxAgeMs: 3600_000, idleMs: 60_000, minFreeBytes: 0 } })
  noisy(driver)
  const shot = await app.inject({ method: 'POST', url: '/computer', payload: { action: 'take_screenshot' }, headers: { 'x-recording-id': 'noisy' } })
  t.equal(shot.statusCode, 200)
  const sent = shot.json() as { base64_image: string }
  t.ok(sent.base64_image.length > 100_000)
  const episode = (await app.inject({ method: 'GET', url: '/recordings/noisy' })).json() as { steps: Array<{ response: unknown, images: string[], runs: unknown[] }> }
  t.same(episode.steps[0]!.response, { ...sent, base64_image: `[${sent.base64_image.length} characters of base64 not kept]` }, 'the answer, its image left to the images')
  const image = await app.inject({ method: 'GET', url: `/recordings/noisy/images/${episode.steps[0]!.images[0]}` })
  t.ok(image.rawPayload.equals(Buffer.from(sent.base64_image, 'base64')), 'the image kept is the one sent')
})

t.test('over real sockets: a body is used again only once sent, so a slow reader still gets its own', async (t) => {
  // Each answer a different image, large enough to fill the socket's buffers: the first reader is slow.
  const pngs = Array.from({ length: 4 }, () => randomBytes(8 * 1024 * 1024))
  const copies = pngs.map((png) => Buffer.from(png))
  let next = 0
  const app = await appAnswering(t, (images) => ({ image: images.add(pngs[next++]!) }))
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  const { request } = await import('node:http')
  const get = (paused: boolean) => new Promise<{ body: Promise<Buffer>, resume: () => void }>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/shot', agent: false }, (res) => {
      const chunks: Buffer[] = []
      const body = new Promise<Buffer>((done) => res.on('end', () => done(Buffer.concat(chunks))))
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      if (paused) res.pause()
      resolve({ body, resume: () => res.resume() })
    }).on('error', reject).end()
  })
  const slow = await get(true)
  // The slow answer is still being written: the next ones cannot take its memory.
  const quick = await get(false)
  const third = await get(false)
  slow.resume()
  const bodies = await Promise.all([slow.body, quick.body, third.body])
  bodies.forEach((body, i) => {
    const { image } = JSON.parse(body.toString('utf8')) as { image: string }
    t.ok(Buffer.from(image, 'base64').equals(copies[i]!), `answer ${i} is its own image`)
  })
  // Sent in full: its memory is used again, and the answer is still right.
  const fourth = await get(false)
  t.ok(Buffer.from((JSON.parse((await fourth.body).toString('utf8')) as { image: string }).image, 'base64').equals(copies[3]!), 'an answer in reused memory')
  t.equal(pngs[0]!.buffer.byteLength, 0, "a written image's memory is freed")
})
