/**
 * Screenshots written into JSON bodies as they are (src/http/verbatim-strings.ts): the bodies are
 * the same JSON the serializer would have made, on the routes that send screenshots, with other
 * large strings still escaped, the handler's object left alone, and nothing remembered after.
 */
import { randomBytes } from 'node:crypto'
import Fastify from 'fastify'
import sharp from 'sharp'
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { assemble, token, verbatimStrings } from '../src/http/verbatim-strings.ts'
import { imageBase64, isImageBase64, VERBATIM_MIN_LENGTH } from '../src/screen/base64.ts'
import { build, post } from './helpers/build.ts'
import { recordingStore } from './helpers/recording-store.ts'

/** A screen of noise: its PNG is far over the length written verbatim. */
function noisy (driver: { pixels: Buffer }): void {
  randomBytes(driver.pixels.length).copy(driver.pixels)
}

t.test('a JSON body keeps its screenshots, other strings escaped, the payload unchanged', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  verbatimStrings(app)
  const image = imageBase64(randomBytes(VERBATIM_MIN_LENGTH))
  const quoted = `"quoted" \\ and a newline\n${'x'.repeat(VERBATIM_MIN_LENGTH)}`
  const payload = { output: 'é "ü"', image, blocks: [{ type: 'image', data: image }, { type: 'text', text: quoted }], nothing: null }
  const snapshot = structuredClone(payload)
  app.get('/shot', {
    schema: {
      response: {
        200: Type.Object({
          output: Type.String(),
          image: Type.String(),
          blocks: Type.Array(Type.Object({ type: Type.String(), data: Type.Optional(Type.String()), text: Type.Optional(Type.String()) })),
          nothing: Type.Null(),
        }),
      },
    },
  }, async () => payload)
  const response = await app.inject({ method: 'GET', url: '/shot' })
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^application\/json/)
  t.equal(Number(response.headers['content-length']), response.rawPayload.length)
  t.same(response.json(), snapshot, 'the same JSON, the image twice, the quoted text escaped')
  t.equal(response.body, JSON.stringify(snapshot), 'byte for byte what JSON.stringify makes')
  t.same(payload, snapshot, "the handler's object is not changed")
  t.notOk(isImageBase64(image), 'forgotten once written')
  const again = await app.inject({ method: 'GET', url: '/shot' })
  t.equal(again.body, JSON.stringify(snapshot), 'sent again, forgotten: serialized the usual way')
})

t.test('only base64 this process made is written verbatim', async (t) => {
  const made = imageBase64(randomBytes(VERBATIM_MIN_LENGTH))
  t.ok(isImageBase64(made))
  t.notOk(isImageBase64(`${made.slice(1)}"`), 'a string of the same length with a quote in it')
  t.notOk(isImageBase64(imageBase64(randomBytes(100))), 'short ones cost the serializer little and are not kept')
  for (let i = 0; i < 5; i++) imageBase64(randomBytes(VERBATIM_MIN_LENGTH))
  t.notOk(isImageBase64(made), 'only the last few are remembered')
})

t.test('assemble puts each string back where its token stands, and UTF-8 around it', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  verbatimStrings(app)
  // The token is secret: what a client typed that looks like one stays text.
  app.get('/', async () => ({ typed: 'verbatim0n0', image: imageBase64(Buffer.alloc(VERBATIM_MIN_LENGTH, 7)) }))
  const response = await app.inject({ method: 'GET', url: '/' })
  t.same(response.json(), { typed: 'verbatim0n0', image: Buffer.alloc(VERBATIM_MIN_LENGTH, 7).toString('base64') })
  t.same(assemble('{"a":"ü"}', []), Buffer.from('{"a":"ü"}'), 'no strings: the body as UTF-8')
  const strings = Array.from({ length: 12 }, (_, i) => `s${i}`)
  const body = `{"ten":"${token(10)}","one":"${token(1)}","eleven":"${token(11)}","zero":"${token(0)}","é":"${token(2)}"}`
  t.equal(assemble(body, strings).toString(), '{"ten":"s10","one":"s1","eleven":"s11","zero":"s0","é":"s2"}',
    'each token by its own index, in any order: 1 is not read in 10 or 11')
})

t.test('a schema that writes the fields in another order than the object has them', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  verbatimStrings(app)
  const images = [1, 2, 3].map((fill) => imageBase64(Buffer.alloc(VERBATIM_MIN_LENGTH, fill)))
  app.get('/', {
    schema: { response: { 200: Type.Object({ c: Type.String(), b: Type.String(), a: Type.String() }) } },
  }, async () => ({ a: images[0], b: images[1], c: images[2] }))
  const response = await app.inject({ method: 'GET', url: '/' })
  t.equal(response.body, JSON.stringify({ c: images[2], b: images[1], a: images[0] }), 'each field holds its own image')
})

t.test('the routes that answer with screenshots send them whole', async (t) => {
  const { app, driver } = await build(t, { fake: { screen: { width: 320, height: 200 } } })
  noisy(driver)
  const expected = (await sharp(driver.pixels, { raw: { width: 320, height: 200, channels: 4 } }).removeAlpha().raw().toBuffer())
  const decodes = async (base64: string, where: string) => {
    t.ok(base64.length >= VERBATIM_MIN_LENGTH, `${where}: long enough to be written verbatim (${base64.length})`)
    const pixels = await sharp(Buffer.from(base64, 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true })
    t.same([pixels.info.width, pixels.info.height], [320, 200], `${where}: 320x200`)
    t.ok(pixels.data.equals(expected), `${where}: the screen's pixels`)
  }
  const unified = await post(app, '/computer', { action: 'take_screenshot' })
  t.equal(unified.status, 200)
  await decodes(unified.body.base64_image, '/computer')
  const batch = await post(app, '/computer/batch?screenshot=true', { actions: [{ action: 'move_mouse', coordinates: [1, 1] }] })
  t.equal(batch.status, 200)
  await decodes(batch.body.results.at(-1).base64_image, '/computer/batch')
  const claude = await post(app, '/computer/anthropic?tool_version=computer_20251124', { action: 'screenshot' })
  t.equal(claude.status, 200)
  await decodes(claude.body.content[1].source.data, '/computer/anthropic')
})

t.test('a recorded step keeps the answer as sent, screenshots and all', async (t) => {
  const dir = await recordingStore(t)
  const { app, driver } = await build(t, { fake: { screen: { width: 320, height: 200 } }, recording: { dir, maxBytes: 64 << 20, maxAgeMs: 3600_000, idleMs: 60_000, minFreeBytes: 0 } })
  noisy(driver)
  const shot = await app.inject({ method: 'POST', url: '/computer', payload: { action: 'take_screenshot' }, headers: { 'x-recording-id': 'noisy' } })
  t.equal(shot.statusCode, 200)
  const sent = shot.json() as { base64_image: string }
  t.ok(sent.base64_image.length >= VERBATIM_MIN_LENGTH)
  const episode = (await app.inject({ method: 'GET', url: '/recordings/noisy' })).json() as { steps: Array<{ response: unknown, images: string[] }> }
  t.same(episode.steps[0]!.response, { ...sent, base64_image: `[${sent.base64_image.length} characters of base64 not kept]` }, 'the answer, its image left to the images')
  const image = await app.inject({ method: 'GET', url: `/recordings/noisy/images/${episode.steps[0]!.images[0]}` })
  t.ok(image.rawPayload.equals(Buffer.from(sent.base64_image, 'base64')), 'the image kept is the one sent')
})

t.test('over real sockets: a body is used again only once sent, so a slow reader still gets its own', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  verbatimStrings(app)
  let next = 0
  // Each answer a different image, large enough to fill the socket's buffers: the first reader is slow.
  const images = Array.from({ length: 4 }, () => randomBytes(8 * 1024 * 1024))
  app.get('/shot', async () => ({ image: imageBase64(images[next++]!) }))
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
    t.ok(Buffer.from(image, 'base64').equals(images[i]!), `answer ${i} is its own image`)
  })
  // Sent in full: its memory is used again, and the answer is still right.
  const fourth = await get(false)
  t.ok(Buffer.from((JSON.parse((await fourth.body).toString('utf8')) as { image: string }).image, 'base64').equals(images[3]!), 'an answer in reused memory')
})
