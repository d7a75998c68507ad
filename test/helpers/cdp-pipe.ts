/** An in-memory DevTools pipe and source: what the server sends is kept, the browser's side is played by the test. */
import type { CdpPipe, DevtoolsSource } from '../../src/browser/source.ts'

export interface FakePipe extends CdpPipe {
  /** Messages the server sent the browser, parsed. */
  sent: Array<Record<string, unknown>>
  /** The browser sends `message`. */
  emit: (message: object) => void
  /** The browser exits. */
  end: (reason: string) => void
}

export function fakePipe (): FakePipe {
  const messages: Array<(text: string) => void> = []
  const closes: Array<(reason: string) => void> = []
  let closed = false
  const pipe: FakePipe = {
    sent: [],
    send: (text) => { pipe.sent.push(JSON.parse(text) as Record<string, unknown>) },
    onMessage: (listener) => { messages.push(listener) },
    onClose: (listener) => { closes.push(listener) },
    get closed () { return closed },
    emit: (message) => { for (const listener of messages) listener(JSON.stringify(message)) },
    end: (reason) => { closed = true; for (const listener of closes) listener(reason) },
  }
  return pipe
}

/** A source whose browser is a fake pipe, a new one after each end; `fail` makes the next start fail. */
export function fakeSource () {
  const source = {
    pipes: [] as FakePipe[],
    fail: undefined as Error | undefined,
    closed: false,
    get current (): FakePipe { return source.pipes.at(-1)! },
    pipe: async (): Promise<CdpPipe> => {
      if (source.fail) throw source.fail
      const last = source.pipes.at(-1)
      if (last && !last.closed) return last
      source.pipes.push(fakePipe())
      return source.pipes.at(-1)!
    },
    close: async () => { source.closed = true },
  } satisfies DevtoolsSource & Record<string, unknown>
  return source
}
