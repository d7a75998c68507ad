/**
 * Seed-client compatibility (SPEC §2): the seed system's official SDK, the `scrapybara` npm
 * package, pointed at this server with our token as its API key, drives all nine actions
 * through client.instance.computer(…) and parses our answers, errors included.
 */
import t from 'tap'
import { ScrapybaraError, UbuntuInstance } from 'scrapybara'
// The SDK's generated client, whose `instance.computer(id, …)` every instance object calls.
import { ScrapybaraClient } from 'scrapybara/Client.js'
import { build } from './helpers/build.ts'

const TOKEN = 'sdk-test-token'

t.test('the scrapybara SDK drives every action against this server', async (t) => {
  const { app, driver } = await build(t, { token: TOKEN })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  const client = new ScrapybaraClient({ apiKey: TOKEN, environment: `http://127.0.0.1:${port}` })
  const computer = (request: Parameters<typeof client.instance.computer>[1]) =>
    client.instance.computer('local', request, { maxRetries: 0 })

  t.match(await computer({ action: 'move_mouse', coordinates: [10, 20], holdKeys: ['shift'] }), { output: 'moved to (10, 20) holding shift' })
  t.match(await computer({ action: 'click_mouse', button: 'left', clickType: 'click', numClicks: 2, coordinates: [30, 40] }), { output: 'double-clicked left at (30, 40)' })
  t.match(await computer({ action: 'drag_mouse', path: [[1, 1], [50, 50]] }), { output: 'dragged from (1, 1) to (50, 50) through 2 points' })
  t.match(await computer({ action: 'scroll', coordinates: [5, 5], deltaX: 0, deltaY: 3 }), { output: 'scrolled 3 down at (5, 5)' })
  t.match(await computer({ action: 'press_key', keys: ['ctrl', 'c'], duration: 0.01 }), { output: 'held ctrl+c for 0.01 s' })
  t.match(await computer({ action: 'type_text', text: 'héllo' }), { output: 'typed 5 characters' })
  t.match(await computer({ action: 'wait', duration: 0.01 }), { output: 'waited 0.01 s' })
  const shot = await computer({ action: 'take_screenshot' })
  t.equal(Buffer.from(shot.base64Image!, 'base64').subarray(1, 4).toString(), 'PNG', 'base64Image is a PNG')
  const cursor = await computer({ action: 'get_cursor_position' })
  t.equal(cursor.output, 'cursor at (5, 5)')
  t.equal((cursor as Record<string, unknown>).cursor_position !== undefined, true, 'extra fields pass through')
  const attached = await computer({ action: 'move_mouse', coordinates: [1, 1], screenshot: true })
  t.type(attached.base64Image, 'string', 'the SDK\'s screenshot flag attaches a PNG')

  t.ok(driver.calls.some((c) => c.call === 'typeText' && c.text === 'héllo'))

  // What SDK users hold after client.get(id): an instance object with .computer(…).
  const instance = new UbuntuInstance('local', new Date(), 'running', client)
  t.match(await instance.computer({ action: 'click_mouse', button: 'right' }), { output: 'clicked right', error: null })

  const error = await computer({ action: 'move_mouse', coordinates: [1] }).catch((e: unknown) => e)
  t.type(error, ScrapybaraError)
  t.equal((error as ScrapybaraError).statusCode, 400)
  t.strictSame((error as ScrapybaraError).body, {
    statusCode: 400, code: 'ERR_INVALID_ACTION', error: 'Bad Request', message: 'coordinates must be a list of exactly 2 integers [x, y]',
  })

  const wrongKey = new ScrapybaraClient({ apiKey: 'wrong', environment: `http://127.0.0.1:${port}` })
  const denied = await wrongKey.instance.computer('local', { action: 'get_cursor_position' }, { maxRetries: 0 }).catch((e: unknown) => e)
  t.equal((denied as ScrapybaraError).statusCode, 401)
})
