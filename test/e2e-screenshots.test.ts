/**
 * Screenshots and scaling against what Chromium draws: the oracle page puts a red box at known
 * screen pixels (x 900–999, y 100–159), a textarea and a light green pad. Full, scaled and
 * region screenshots are decoded and their pixels compared with those places; then a model that
 * sees the screen as 1024x768 finds the box in its screenshot and clicks its centre, in its own
 * coordinates, and the page records the click on the box.
 */
import sharp from 'sharp'
import t from 'tap'
import { oracleDesktop } from './helpers/desktop.ts'

const desktop = oracleDesktop(t)

// Where the page draws (test/fixtures/oracle/page.html), in screen pixels.
const BOX = { x0: 900, y0: 100, x1: 1000, y1: 160 }
const RED = [255, 0, 0]
const PAD = [0xe0, 0xff, 0xe0]

interface Decoded { width: number, height: number, rgb: Buffer }

async function screenshot (query: string, body: object = { action: 'take_screenshot' }): Promise<Decoded> {
  const response = await desktop.app.inject({ method: 'POST', url: `/computer${query}`, payload: body })
  t.equal(response.statusCode, 200, response.body.slice(0, 200))
  const png = Buffer.from(response.json().base64_image, 'base64')
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  return { width: info.width, height: info.height, rgb: data }
}

const at = ({ width, rgb }: Decoded, x: number, y: number) => [...rgb.subarray((y * width + x) * 3, (y * width + x) * 3 + 3)]
const near = (a: number[], b: number[], tolerance = 8) => a.every((v, i) => Math.abs(v - b[i]!) <= tolerance)

/** The bounding box of the pixels close to `colour`. */
function find (image: Decoded, colour: number[]) {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -1, -1]
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      if (!near(at(image, x, y), colour, 24)) continue
      x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y)
    }
  }
  return { x0, y0, x1: x1 + 1, y1: y1 + 1 }
}

t.test('a full screenshot has the page\'s pixels where the page draws them', async (t) => {
  const image = await screenshot('')
  t.strictSame([image.width, image.height], [1280, 800])
  t.strictSame(find(image, RED), BOX, 'the red box, exactly')
  t.ok(near(at(image, 640, 600), PAD), 'the pad below')
  t.ok(near(at(image, 300, 120), [255, 255, 255]), 'the textarea is white')
})

t.test('a region is the crop of those pixels, at its own size', async (t) => {
  const image = await screenshot('', { action: 'take_screenshot', region: [880, 90, 1020, 170] })
  t.strictSame([image.width, image.height], [140, 80])
  t.strictSame(find(image, RED), { x0: 20, y0: 10, x1: 120, y1: 70 }, 'the box, moved by the crop origin')
})

t.test('a scaled screenshot puts the box where the model space says', async (t) => {
  const image = await screenshot('?display_width_px=1024&display_height_px=768')
  t.strictSame([image.width, image.height], [1024, 768])
  const box = find(image, RED)
  // 1280 → 1024 is 0.8 across, 800 → 768 is 0.96 down; resampling blurs the edges by a pixel.
  const expected = { x0: BOX.x0 * 0.8, y0: BOX.y0 * 0.96, x1: BOX.x1 * 0.8, y1: BOX.y1 * 0.96 }
  for (const edge of ['x0', 'y0', 'x1', 'y1'] as const) {
    t.ok(Math.abs(box[edge] - expected[edge]) <= 1, `${edge} ${box[edge]} ≈ ${expected[edge]}`)
  }
})

t.test('a model at 1024x768 clicks the centre of the box it found in its screenshot', async (t) => {
  const query = '?display_width_px=1024&display_height_px=768'
  const box = find(await screenshot(query), RED)
  const centre = [Math.round((box.x0 + box.x1) / 2), Math.round((box.y0 + box.y1) / 2)]
  desktop.oracle.clear()
  const response = await desktop.app.inject({ method: 'POST', url: `/computer${query}`, payload: { action: 'click_mouse', button: 'left', coordinates: centre } })
  t.equal(response.statusCode, 200)
  t.strictSame(response.json().cursor_position, centre, 'the cursor is reported in the model\'s space')
  const events = await desktop.oracle.until((e) => e.some((x) => x.type === 'click'))
  const click = events.find((e) => e.type === 'click')
  t.equal(click?.target, 'target', 'the page saw the click on the box')
  // The box's centre on the screen is (950, 130): the model's centre maps back within a pixel.
  t.ok(Math.abs((click?.x as number) - 950) <= 2 && Math.abs((click?.y as number) - 130) <= 2, `at ${click?.x},${click?.y}`)
})
