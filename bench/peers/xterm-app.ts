/**
 * The terminal the peers bench acts on for the rows a web page cannot check as plainly: an
 * xterm (its default 6x13 cells) whose first line is a known sentence and whose shell is
 * `cat > FILE`, so a double click or a drag leaves the words it selected in the primary
 * selection (read with xclip), and a typed line, once the bench's own Return ends it, is in
 * the file byte for byte.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { promisify } from 'node:util'
import { spawnOwned, stopOwned } from '../../test/helpers/processes.ts'
import { lastLine } from './effects.ts'

const run = promisify(execFile)

/** The terminal's first line; its words are what the double click and the drag select. */
export const SENTENCE = 'alpha bravo charlie delta echo'
const TITLE = 'cg-bench-peers-terminal'
/** What the primary selection holds before each sample: still there, nothing was selected. */
export const SENTINEL = 'cg-bench-nothing-selected'
/** xterm's default font and its internal border (pixels before the first cell). */
const CELL = { width: 6, height: 13 }
const BORDER = 2

export interface Terminal {
  /** The screen point at the middle of cell (column, row). */
  cell (column: number, row: number): [number, number]
  /** Gives the terminal the keyboard focus (untimed, before a typing sample). */
  focus (): Promise<void>
  /** Puts SENTINEL in the primary selection (xterm drops its own selection when another client owns it). */
  resetSelection (): Promise<void>
  /** The primary selection's text. */
  primary (): Promise<string>
  /** Ends the typed line with the bench's own Return and answers the line `cat` wrote, within `timeoutMs`. */
  typedLine (timeoutMs?: number): Promise<string>
  stop (): Promise<void>
}

export async function startTerminal (env: NodeJS.ProcessEnv): Promise<Terminal> {
  const dir = await mkdtemp(join(tmpdir(), 'cg-bench-terminal-'))
  const file = join(dir, 'typed.txt')
  const xterm = spawnOwned(undefined, 'xterm', ['-T', TITLE, '-geometry', '120x30+0+0', '-e', 'sh', '-c', `printf '%s\\n' '${SENTENCE}'; exec cat > "$1"`, 'sh', file], { env, stdio: 'ignore' })
  const xdotool = (...args: string[]) => run('xdotool', args, { env })
  const stop = async () => { await stopOwned(xterm); await rm(dir, { recursive: true, force: true }) }
  try {
    const { stdout } = await xdotool('search', '--sync', '--name', `^${TITLE}$`)
    const window = stdout.trim().split('\n')[0]!
    // Where the window manager put it (its frame moves it): xwininfo's absolute corner.
    const { stdout: info } = await run('xwininfo', ['-id', window], { env })
    const corner = (axis: string) => Number(new RegExp(`Absolute upper-left ${axis}:\\s+(-?\\d+)`).exec(info)?.[1] ?? NaN)
    const origin = { x: corner('X'), y: corner('Y') }
    if (!Number.isFinite(origin.x) || !Number.isFinite(origin.y)) throw new Error(`xwininfo gave no corner for the terminal: ${info.slice(0, 200)}`)
    let lines = 0
    return {
      cell: (column, row) => [origin.x + BORDER + column * CELL.width + CELL.width / 2, origin.y + BORDER + row * CELL.height + Math.floor(CELL.height / 2)],
      focus: async () => { await xdotool('windowactivate', '--sync', window).catch(() => xdotool('windowfocus', '--sync', window)) },
      resetSelection: () => setPrimary(SENTINEL, env),
      primary: async () => (await run('xclip', ['-o', '-selection', 'primary'], { env, timeout: 5000 })).stdout,
      typedLine: async (timeoutMs = 5000) => {
        await xdotool('key', '--window', window, 'Return').catch(() => xdotool('key', 'Return'))
        lines++
        const deadline = Date.now() + timeoutMs
        for (;;) {
          const text = await readFile(file, 'utf8').catch(() => '')
          if (text.split('\n').length - 1 >= lines || Date.now() > deadline) return lastLine(text)
          await delay(20)
        }
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/**
 * xclip -i forks a child that owns the selection until another client takes it (then it
 * exits, or with the X server): waited for is the parent only, which exits once the child owns it.
 */
function setPrimary (text: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn('xclip', ['-i', '-selection', 'primary'], { env, stdio: ['pipe', 'ignore', 'ignore'] })
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
    child.on('error', reject)
    child.on('exit', (code) => { clearTimeout(timer); code === 0 ? resolve() : reject(new Error(`xclip -i exited ${code}`)) })
    child.stdin!.end(text)
  })
}
