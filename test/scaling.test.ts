/**
 * Coordinate scaling (SPEC §5): points from the client's declared space land on the real
 * screen, and cursor positions and screenshots come back in the client's space.
 */
import t from 'tap'
import sharp from 'sharp'
import { Scaler } from '../src/screen/scaling.ts'
import { build, post } from './helpers/build.ts'

const real = { width: 1280, height: 800 }

t.test('Scaler maps pixel centres both ways', async (t) => {
  const table: Array<[{ width: number, height: number }, [number, number], { x: number, y: number }]> = [
    [real, [0, 0], { x: 0, y: 0 }],
    [real, [1279, 799], { x: 1279, y: 799 }],
    [{ width: 1024, height: 640 }, [0, 0], { x: 0, y: 0 }],
    [{ width: 1024, height: 640 }, [512, 320], { x: 640, y: 400 }],
    [{ width: 1024, height: 640 }, [1023, 639], { x: 1279, y: 799 }],
    [{ width: 1024, height: 768 }, [512, 384], { x: 640, y: 400 }],
    [{ width: 640, height: 400 }, [100, 50], { x: 201, y: 101 }],
    [{ width: 2560, height: 1600 }, [2559, 1599], { x: 1279, y: 799 }],
  ]
  for (const [client, point, expected] of table) {
    const scaler = new Scaler(real, client)
    t.strictSame(scaler.toReal(point), expected, `${client.width}x${client.height} ${point}`)
    if (client.width <= real.width) t.strictSame(scaler.toClient(expected), point, 'and back')
  }
})

t.test('a point outside the declared space is a 400 naming the point and the space', async (t) => {
  const scaler = new Scaler(real, { width: 1024, height: 768 })
  t.throws(() => scaler.toReal([1024, 10]), {
    statusCode: 400,
    code: 'ERR_POINT_OUT_OF_BOUNDS',
    message: 'coordinates (1024, 10) is outside the 1024x768 coordinate space declared by display_width_px/display_height_px: x must be 0..1023 and y 0..767',
  })
})

t.test('a region maps to the real rectangle that covers it', async (t) => {
  const scaler = new Scaler(real, { width: 1024, height: 640 })
  t.strictSame(scaler.regionToReal([0, 0, 1024, 640]), { rect: { x: 0, y: 0, width: 1280, height: 800 }, size: { width: 1024, height: 640 } })
  t.strictSame(scaler.regionToReal([100, 100, 200, 150]), { rect: { x: 125, y: 125, width: 125, height: 63 }, size: { width: 100, height: 50 } })
})

t.test('requests in a declared space act on the real screen and answer in the declared space', async (t) => {
  const { app, driver } = await build(t)
  const query = '?display_width_px=1024&display_height_px=640'
  const { body } = await post(app, `/computer${query}`, { action: 'click_mouse', button: 'left', coordinates: [512, 320] })
  t.strictSame(driver.calls[0], { call: 'moveMouse', x: 640, y: 400 })
  t.strictSame(body.cursor_position, [512, 320])
  t.equal(body.output, 'clicked left at (512, 320)')
  const drag = await post(app, `/computer${query}`, { action: 'drag_mouse', path: [[0, 0], [1023, 639]] })
  t.equal(drag.body.output, 'dragged from (0, 0) to (1023, 639) through 2 points')
  const off = await post(app, `/computer${query}`, { action: 'move_mouse', coordinates: [1100, 10] })
  t.equal(off.status, 400)
  t.equal(off.body.message, 'coordinates (1100, 10) is outside the 1024x640 coordinate space declared by display_width_px/display_height_px: x must be 0..1023 and y 0..639')
})

t.test('screenshots come at the declared size, and regions at their own', async (t) => {
  const { app, driver } = await build(t)
  driver.fill({ x: 640, y: 0, width: 640, height: 800 }, [255, 0, 0])
  const full = await post(app, '/computer', { action: 'take_screenshot' })
  let image = sharp(Buffer.from(full.body.base64_image, 'base64'))
  t.match(await image.metadata(), { format: 'png', width: 1280, height: 800 })
  const scaled = await post(app, '/computer?display_width_px=1024&display_height_px=768', { action: 'take_screenshot' })
  image = sharp(Buffer.from(scaled.body.base64_image, 'base64'))
  t.match(await image.metadata(), { format: 'png', width: 1024, height: 768 })
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true })
  const pixel = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)]
  t.strictSame(pixel(100, 100), [255, 255, 255], 'left half stays white')
  t.strictSame(pixel(900, 700), [255, 0, 0], 'right half is red')
  const region = await post(app, '/computer?display_width_px=1024&display_height_px=640', { action: 'take_screenshot', region: [500, 0, 540, 20] })
  t.strictSame(driver.calls.at(-1), { call: 'screenshot', region: { x: 625, y: 0, width: 50, height: 25 } })
  image = sharp(Buffer.from(region.body.base64_image, 'base64'))
  t.match(await image.metadata(), { width: 40, height: 20 })
  const crop = await image.raw().toBuffer({ resolveWithObject: true })
  const at = (x: number) => [...crop.data.subarray(x * crop.info.channels, x * crop.info.channels + 3)]
  t.strictSame(at(2), [255, 255, 255], 'white left of x=512 (real 640)')
  t.strictSame(at(30), [255, 0, 0], 'red right of it')
})

t.test('screenshot=true and the per-action screenshot flag attach a PNG', async (t) => {
  const { app } = await build(t)
  const query = await post(app, '/computer?screenshot=true', { action: 'move_mouse', coordinates: [1, 1] })
  const flag = await post(app, '/computer', { action: 'move_mouse', coordinates: [1, 1], screenshot: true })
  const none = await post(app, '/computer', { action: 'move_mouse', coordinates: [1, 1], screenshot: false })
  for (const response of [query, flag]) {
    const png = Buffer.from(response.body.base64_image, 'base64')
    t.strictSame([...png.subarray(1, 4)], [0x50, 0x4e, 0x47], 'a PNG, without a data: prefix')
  }
  t.equal(none.body.base64_image, null)
})
