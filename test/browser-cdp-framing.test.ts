/** CDP's pipe framing: NUL-ended JSON texts, whatever the chunks, a character cut in two included. */
import { PassThrough } from 'node:stream'
import t from 'tap'
import { framedPipe } from '../src/browser/cdp-framing.ts'

const cases: Array<{ name: string, chunks: Buffer[], messages: string[] }> = [
  { name: 'one message, one chunk', chunks: [Buffer.from('{"id":1}\0')], messages: ['{"id":1}'] },
  { name: 'two messages in one chunk', chunks: [Buffer.from('{"id":1}\0{"id":2}\0')], messages: ['{"id":1}', '{"id":2}'] },
  { name: 'a message over three chunks', chunks: [Buffer.from('{"id"'), Buffer.from(':3,"x":"'), Buffer.from('y"}\0')], messages: ['{"id":3,"x":"y"}'] },
  { name: 'a character cut between chunks', chunks: [Buffer.from('{"v":"é').subarray(0, 7), Buffer.concat([Buffer.from('é').subarray(1), Buffer.from('"}\0')])], messages: ['{"v":"é"}'] },
  { name: 'an unfinished message waits', chunks: [Buffer.from('{"id":1}\0{"id":')], messages: ['{"id":1}'] },
]

for (const { name, chunks, messages } of cases) {
  t.test(name, async (t) => {
    const [toBrowser, fromBrowser] = [new PassThrough(), new PassThrough()]
    const pipe = framedPipe(toBrowser, fromBrowser)
    const got: string[] = []
    pipe.onMessage((message) => got.push(message))
    for (const chunk of chunks) fromBrowser.write(chunk)
    await new Promise((resolve) => setImmediate(resolve))
    t.same(got, messages)
  })
}

t.test('sending ends each message with NUL; the pipe closes once, with why, and sends nothing after', async (t) => {
  const [toBrowser, fromBrowser] = [new PassThrough(), new PassThrough()]
  const pipe = framedPipe(toBrowser, fromBrowser)
  const reasons: string[] = []
  pipe.onClose((reason) => reasons.push(reason))
  pipe.send('{"id":1,"method":"Browser.getVersion"}')
  t.equal(String(toBrowser.read()), '{"id":1,"method":"Browser.getVersion"}\0')
  fromBrowser.destroy()
  await new Promise((resolve) => setImmediate(resolve))
  toBrowser.emit('error', new Error('EPIPE'))
  t.same(reasons, ['the browser closed its DevTools pipe (it exited)'])
  t.ok(pipe.closed)
  pipe.send('{"id":2}')
  t.equal(toBrowser.read(), null, 'nothing is written to a closed pipe')
})
