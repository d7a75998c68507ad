/**
 * What an OSWorld `/execute` (or `/setup/execute`, `/run_python`) body asks for. The harness
 * sends pyautogui code as `["python", "-c", "import pyautogui; import time;
 * pyautogui.FAILSAFE = False; <code>"]`; that code is read by our pyautogui dialect and never
 * run as Python, so no Python process starts per action and typing is exact. The preamble's
 * statements (imports, pyautogui's settings) mean nothing to the reader and are dropped; every
 * other statement must be a call the dialect knows, else the dialect refuses it, quoting it.
 * Anything that is not `python -c` code is a command for the shell (`--shell`), pure data here.
 */

export type GuestCommand =
  /** pyautogui code, its preamble dropped, for the pyautogui dialect. */
  | { kind: 'pyautogui', code: string }
  /** `import platform; print(platform.system())`: how DesktopEnv asks for the platform. */
  | { kind: 'platform' }
  /** Anything else: a program (argv) or a shell line, for the shell alone. */
  | { kind: 'shell', command: string | string[], shell: boolean }

/** python, python3, python3.11, /usr/bin/python3 … */
const PYTHON = /^(?:.*\/)?python(?:3(?:\.\d+)?)?$/

/**
 * The `command` and `shell` of an /execute body. A string without `shell` is split as the
 * harness's own server splits it (shlex), so `python -c "…"` written as one string counts too.
 */
export function guestCommand (command: string | string[], shell: boolean): GuestCommand {
  const argv = typeof command === 'string' ? shlexSplit(command) : command
  if (argv !== undefined && argv.length === 3 && PYTHON.test(argv[0]!) && argv[1] === '-c') return pythonCode(argv[2]!, { command, shell })
  return { kind: 'shell', command, shell }
}

/**
 * A Python script (`python -c`'s code, `/run_python`'s `code`): pyautogui code when every
 * statement but the preamble calls the dialect's modules (pyautogui, time, pyperclip,
 * computer) or is WAIT/DONE/FAIL; otherwise it is Python, for the shell, as `asShell` runs it.
 */
export function pythonCode (source: string, asShell: { command: string | string[], shell: boolean } = { command: ['python3', '-c', source], shell: false }): GuestCommand {
  const kept = statements(source).filter((statement) => !PREAMBLE.some((pattern) => pattern.test(statement)))
  if (kept.length === 1 && PLATFORM.test(kept[0]!)) return { kind: 'platform' }
  if (kept.every((statement) => DIALECT.test(statement))) return { kind: 'pyautogui', code: kept.join('\n') }
  return { kind: 'shell', ...asShell }
}

/** A statement the pyautogui dialect reads (whether its arguments pass is the dialect's business). */
const DIALECT = /^(?:(?:pyautogui|time|pyperclip|computer)\.\w+\s*\(|(?:WAIT|DONE|FAIL)$)/

const NAME = String.raw`[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*`
/**
 * Statements that set nothing up the reader needs: imports (a call into an imported module is
 * still refused unless the dialect knows it) and pyautogui's own settings (its fail-safe corner
 * and pause between calls, which our input does not have).
 */
const PREAMBLE = [
  new RegExp(String.raw`^import\s+${NAME}(?:\s+as\s+\w+)?(?:\s*,\s*${NAME}(?:\s+as\s+\w+)?)*$`),
  new RegExp(String.raw`^from\s+${NAME}\s+import\s+(?:\*|\w+(?:\s+as\s+\w+)?(?:\s*,\s*\w+(?:\s+as\s+\w+)?)*)$`),
  /^pyautogui\.(?:FAILSAFE|PAUSE|MINIMUM_DURATION|MINIMUM_SLEEP|DARWIN_CATCH_UP_TIME)\s*=\s*(?:True|False|\d+(?:\.\d*)?|\.\d+)$/,
]
const PLATFORM = /^print\(\s*platform\.system\(\s*\)\s*\)$/

/**
 * The source's statements, trimmed: split at newlines and `;` outside strings, brackets and
 * comments (a newline after a backslash continues the statement). Blank ones and comments go.
 */
export function statements (source: string): string[] {
  const out: string[] = []
  let current = ''
  let depth = 0
  let quote: string | null = null
  const flush = () => {
    const statement = current.trim()
    if (statement !== '') out.push(statement)
    current = ''
  }
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!
    if (quote !== null) {
      if (char === '\\') { current += source.slice(i, i + 2); i++; continue }
      if (source.startsWith(quote, i)) { current += quote; i += quote.length - 1; quote = null; continue }
      current += char
      continue
    }
    if (char === '#') {
      while (i + 1 < source.length && source[i + 1] !== '\n') i++
      continue
    }
    if (char === '"' || char === "'") {
      quote = source.startsWith(char.repeat(3), i) ? char.repeat(3) : char
      current += quote
      i += quote.length - 1
      continue
    }
    if (char === '\\' && source[i + 1] === '\n') { current += ' '; i++; continue }
    if ('([{'.includes(char)) depth++
    if (')]}'.includes(char)) depth = Math.max(0, depth - 1)
    if ((char === ';' || char === '\n') && depth === 0) { flush(); continue }
    current += char === '\n' ? ' ' : char
  }
  flush()
  return out
}

/**
 * POSIX shell words as Python's shlex.split makes them (quotes, backslashes; no expansion), or
 * undefined for an unclosed quote.
 */
export function shlexSplit (line: string): string[] | undefined {
  const words: string[] = []
  let word: string | null = null
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!
    if (/\s/.test(char)) {
      if (word !== null) words.push(word)
      word = null
      continue
    }
    word ??= ''
    if (char === '\\') {
      if (i + 1 < line.length) word += line[++i]
      continue
    }
    if (char === "'") {
      const end = line.indexOf("'", i + 1)
      if (end === -1) return undefined
      word += line.slice(i + 1, end)
      i = end
      continue
    }
    if (char === '"') {
      let j = i + 1
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && '"\\$`\n'.includes(line[j + 1] ?? '')) j++
        word += line[j]
      }
      if (j >= line.length) return undefined
      i = j
      continue
    }
    word += char
  }
  if (word !== null) words.push(word)
  return words
}
