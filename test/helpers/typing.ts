/**
 * What the exact-typing tests share: the corpus (test/fixtures/typing/corpus.txt), the
 * layouts and number of runs, an app on a desktop of the file's own, and a readable account
 * of where typed text first differs from what was expected.
 */
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { buildOnDisplay, startDesktop } from './desktop.ts'

interface TestContext { teardown: (fn: () => unknown) => void }

const run = promisify(execFile)
export const RUNS = 5
export const LAYOUTS = ['us', 'de', 'gr']

export const readCorpus = () => readFile(new URL('../fixtures/typing/corpus.txt', import.meta.url), 'utf8')

/** Xvfb and the app over the nut driver on it; `act` posts one action and asserts a 200. */
/** `check` is the file's tap object: the 200s are asserted there. */
export async function typingDesktop (t: TestContext, check: { equal: (found: number, wanted: number, message: string) => unknown }) {
  const { display } = await startDesktop(t)
  const { app } = await buildOnDisplay(t, display)
  return {
    display,
    setLayout: (layout: string) => run('setxkbmap', [layout], { env: { ...process.env, DISPLAY: display } }),
    act: async (body: unknown) => {
      const response = await app.inject({ method: 'POST', url: '/computer', payload: body as object })
      check.equal(response.statusCode, 200, JSON.stringify(body).slice(0, 80))
    },
  }
}

/** Where two strings first differ, for a failure message a person can read. */
export function difference (expected: string, actual: string): string {
  const [a, b] = [[...expected], [...actual]]
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  return `from code point ${i}: expected ${JSON.stringify(a.slice(i, i + 12).join(''))}, got ${JSON.stringify(b.slice(i, i + 12).join(''))}`
}
