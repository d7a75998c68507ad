/**
 * Every format from a real Xvfb through the nut driver, at the real size and scaled: decodable,
 * exactly the declared size, and the colours where X drew them (a red terminal on the black
 * root), whatever X leaves in the pixels' pad byte; adapters name the media type of what they
 * return.
 */
import sharp from 'sharp'
import t from 'tap'
import { buildOnDisplay, startClient, startDesktop, waitForWindow } from './helpers/desktop.ts'

let app: Awaited<ReturnType<typeof buildOnDisplay>>['app']
t.before(async () => {
  const xvfb = await startDesktop(t)
  ;({ app } = await buildOnDisplay(t, xvfb.display))
  // 80x24 at the top left: red well inside (0..~480, 0..~310), black root from x 640 on.
  startClient(t, xvfb.display, 'xterm', ['-geometry', '80x24+0+0', '-bg', 'red', '-e', 'sleep 600'])
  await waitForWindow(xvfb.display, ['--class', 'xterm'])
})

async function pixel (base64: string, x: number, y: number) {
  const { data, info } = await sharp(Buffer.from(base64, 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  const at = (y * info.width + x) * 3
  return [...data.subarray(at, at + 3)]
}
const near = (a: number[], b: number[]) => a.every((v, i) => Math.abs(v - b[i]!) <= 40)

t.test('png, jpeg and webp at the real size and scaled', async (t) => {
  for (const format of ['png', 'jpeg', 'webp']) {
    for (const [width, height] of [[1280, 800], [1024, 768], [640, 400]] as const) {
      const what = `${format} ${width}x${height}`
      const response = await app.inject({ method: 'POST', url: `/computer?format=${format}&display_width_px=${width}&display_height_px=${height}`, payload: { action: 'take_screenshot' } })
      t.equal(response.statusCode, 200, what)
      const image = response.json().base64_image as string
      const meta = await sharp(Buffer.from(image, 'base64')).metadata()
      t.strictSame([meta.format, meta.width, meta.height], [format, width, height], `${what}: decodes at the declared size`)
      // Real (200, 150) is inside the red terminal; real (1000, 600) is the black root.
      const red = await pixel(image, Math.round(200 * width / 1280), Math.round(150 * height / 800))
      const black = await pixel(image, Math.round(1000 * width / 1280), Math.round(600 * height / 800))
      t.ok(near(red, [255, 0, 0]), `${what}: red where the terminal is (${red})`)
      t.ok(near(black, [0, 0, 0]), `${what}: black root (${black})`)
    }
  }
})

t.test('an adapter names the media type of the image it returns', async (t) => {
  const response = await app.inject({ method: 'POST', url: '/computer/anthropic?tool_version=computer_20251124&format=webp&settle=false', payload: { action: 'screenshot' } })
  t.equal(response.statusCode, 200)
  const image = response.json().content.find((block: { type: string }) => block.type === 'image')
  t.equal(image.source.media_type, 'image/webp')
  t.equal((await sharp(Buffer.from(image.source.data, 'base64')).metadata()).format, 'webp')
})
