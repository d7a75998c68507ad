/**
 * The documentation's shell examples, read out of the Markdown and checked against a running
 * server. An example is a ```bash (or ```sh) block that sends requests (`curl`, or the `post`
 * function the docs define) and prints each answer below its request as `# ` lines:
 *
 *     post /computer '{"action":"get_cursor_position"}'
 *     # {"output":"cursor at (640, 400)",…}
 *
 * In a printed answer `…` stands for anything: part of a string, members of an object, elements
 * of an array, a whole value, or (in a text answer) lines. A few values differ on every run and
 * are compared by shape only (SHAPES below). `npm start -- FLAGS` in a block says the server the
 * block needs; a block that cannot run here says why just above it, in `<!-- not run: … -->`.
 */
import { readFileSync } from 'node:fs'

export interface Step {
  /** The shell lines that make the request (and any definitions before it). */
  command: string
  /** The answer as printed, without the `# ` of each line. */
  answer: string[]
  /** 1-based line of the step's first command line in its file. */
  line: number
}

export interface ExampleBlock {
  file: string
  line: number
  /** Why the block is not run (its `<!-- not run: … -->` comment), when it is marked so. */
  notRun?: string
  /** The flags of its `npm start -- …` line, as written (shell words), when it has one. */
  serverFlags?: string
  steps: Step[]
  /** Commands after the last answer: a block must not end with a request nobody checks. */
  unanswered: string
  /** Shell definitions (`S=…`, `post() { … }`) of this block, which later blocks of the page use. */
  definitions: string[]
}

const FENCE = /^(`{3,})\s*(\S*)\s*$/
const NOT_RUN = /^<!--\s*not run:\s*(.+?)\s*-->$/
const REQUEST = /(^|[\s;(])(curl|post) /
/** A whole line that only sets a variable (`S=…`, `H=(…)`) or defines a function (`post() { … }`). */
const DEFINITION = /^([A-Za-z_][A-Za-z0-9_]*=(\S+|\(.*\))|[A-Za-z_][A-Za-z0-9_]*\(\)\s*\{.*\})\s*$/
const SERVER = /^(?:API_TOKEN=\S+\s+)?npm start(?:\s+--\s+(.*))?\s*(?:#.*)?$/

/** Every shell block of a Markdown file that sends a request, in order. */
export function exampleBlocks (file: string): ExampleBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n')
  const blocks: ExampleBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!)
    if (!open) continue
    const fence = open[1]!
    const start = i
    let end = i + 1
    while (end < lines.length && lines[end]!.trim() !== fence) end++
    i = end
    if (!['bash', 'sh'].includes(open[2]!)) continue
    const body = lines.slice(start + 1, end)
    if (!body.some((line) => REQUEST.test(line) && !line.startsWith('#'))) continue
    let before = start - 1
    while (before >= 0 && lines[before]!.trim() === '') before--
    const notRun = NOT_RUN.exec(lines[before]?.trim() ?? '')?.[1]
    blocks.push(parseBlock(file, start + 2, body, notRun))
  }
  return blocks
}

function parseBlock (file: string, firstLine: number, body: string[], notRun: string | undefined): ExampleBlock {
  const block: ExampleBlock = { file, line: firstLine - 1, steps: [], unanswered: '', definitions: [], ...(notRun && { notRun }) }
  let pending: string[] = []
  let pendingLine = firstLine
  for (let i = 0; i < body.length; i++) {
    const line = body[i]!
    const server = SERVER.exec(line)
    if (server && pending.every((l) => l.trim() === '' || DEFINITION.test(l))) {
      block.serverFlags = server[1] ?? ''
      continue
    }
    if (line === '#' || line.startsWith('# ')) {
      if (pending.join('').trim() === '') continue
      const answer: string[] = []
      while (i < body.length && (body[i] === '#' || body[i]!.startsWith('# '))) answer.push(body[i++]!.slice(2))
      i--
      block.steps.push({ command: pending.join('\n'), answer, line: pendingLine })
      pending = []
      continue
    }
    if (pending.length === 0) pendingLine = firstLine + i
    if (DEFINITION.test(line)) block.definitions.push(line)
    pending.push(line)
  }
  block.unanswered = pending.filter((l) => l.trim() !== '' && !DEFINITION.test(l)).join('\n')
  return block
}

// ---- Printed answers as patterns ----------------------------------------------------------

type Pattern =
  | { kind: 'any' }
  | { kind: 'rest' }
  | { kind: 'literal', value: unknown }
  | { kind: 'string', exact: string, regex: RegExp }
  | { kind: 'number' }
  | { kind: 'array', items: Pattern[] }
  | { kind: 'object', members: Array<[string, Pattern]>, open: boolean }

const ELLIPSIS = '…'
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Values that differ on every run, compared by shape: window ids (`0x…`) and process ids, in
 * their own members and inside messages, and ISO timestamps.
 */
const SHAPES: Array<[RegExp, string]> = [
  [/0x[0-9a-f]+/g, '0x[0-9a-f]+'],
  [/pid \d+/g, 'pid \\d+'],
  [/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z'],
]
/** Members whose number is a per-run value: a process id, a duration or offset in milliseconds. */
const PER_RUN_NUMBERS = new Set(['pid', 'ms', 'video_offset_ms'])

/** Members whose string is a per-run value: the X display a server picked for itself. */
const PER_RUN_STRINGS: Record<string, RegExp> = { display: /^:\d+$/ }

function stringPattern (value: string, key?: string): Pattern {
  const perRun = key === undefined ? undefined : PER_RUN_STRINGS[key]
  if (perRun?.test(value)) return { kind: 'string', exact: value, regex: perRun }
  let source = ''
  for (const [index, part] of value.split(ELLIPSIS).entries()) {
    if (index > 0) source += '[\\s\\S]*'
    source += shapeIn(part)
  }
  return { kind: 'string', exact: value, regex: new RegExp(`^${source}$`) }
}

/** A literal piece of a printed string as a regex source, its per-run values by shape. */
function shapeIn (part: string): string {
  const marks: Array<{ start: number, end: number, regex: string }> = []
  for (const [shape, regex] of SHAPES) {
    for (const match of part.matchAll(shape)) marks.push({ start: match.index, end: match.index + match[0].length, regex })
  }
  marks.sort((a, b) => a.start - b.start)
  let out = ''
  let at = 0
  for (const mark of marks) {
    if (mark.start < at) continue
    out += escape(part.slice(at, mark.start)) + mark.regex
    at = mark.end
  }
  return out + escape(part.slice(at))
}

/** Parses a printed JSON answer, with `…` where anything may stand. */
export function parsePattern (text: string): Pattern {
  let at = 0
  const space = () => { while (at < text.length && /\s/.test(text[at]!)) at++ }
  const fail = (what: string): never => { throw new Error(`printed answer: ${what} at ${at}: ${text.slice(Math.max(0, at - 30), at + 30)}`) }
  const ellipsis = (): boolean => {
    space()
    if (text[at] !== ELLIPSIS) return false
    at++
    // `…16 tools`: words after the ellipsis are a comment on what it stands for.
    while (at < text.length && !',]}'.includes(text[at]!)) at++
    return true
  }
  const string = (): string => {
    const start = at
    at++
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1
    at++
    return JSON.parse(text.slice(start, at)) as string
  }
  const value = (key?: string): Pattern => {
    space()
    if (ellipsis()) return { kind: 'any' }
    const c = text[at]
    if (c === '{') {
      at++
      const members: Array<[string, Pattern]> = []
      let open = false
      space()
      if (text[at] === '}') { at++; return { kind: 'object', members, open } }
      for (;;) {
        if (ellipsis()) open = true
        else {
          space()
          if (text[at] !== '"') fail('a member name expected')
          const name = string()
          space()
          if (text[at++] !== ':') fail('":" expected')
          members.push([name, value(name)])
        }
        space()
        if (text[at] === ',') { at++; continue }
        if (text[at] === '}') { at++; return { kind: 'object', members, open } }
        fail('"," or "}" expected')
      }
    }
    if (c === '[') {
      at++
      const items: Pattern[] = []
      space()
      if (text[at] === ']') { at++; return { kind: 'array', items } }
      for (;;) {
        items.push(ellipsis() ? { kind: 'rest' } : value())
        space()
        if (text[at] === ',') { at++; continue }
        if (text[at] === ']') { at++; return { kind: 'array', items } }
        fail('"," or "]" expected')
      }
    }
    if (c === '"') return stringPattern(string(), key)
    const literal = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(at))
    if (!literal) fail('a value expected')
    at += literal![0].length
    const parsed = JSON.parse(literal![0]) as unknown
    if (key !== undefined && PER_RUN_NUMBERS.has(key) && typeof parsed === 'number') return { kind: 'number' }
    return { kind: 'literal', value: parsed }
  }
  const pattern = value()
  space()
  if (at < text.length) fail('text after the answer')
  return pattern
}

/** Why `actual` does not fit `pattern` (a JSON path and both sides), or undefined when it does. */
export function mismatch (pattern: Pattern, actual: unknown, path = '$'): string | undefined {
  const show = (value: unknown) => JSON.stringify(value)?.slice(0, 300)
  switch (pattern.kind) {
    case 'any': case 'rest': return undefined
    case 'literal': return Object.is(pattern.value, actual) ? undefined : `${path}: printed ${show(pattern.value)}, got ${show(actual)}`
    case 'number': return typeof actual === 'number' && actual >= 0 ? undefined : `${path}: printed a number, got ${show(actual)}`
    case 'string': return typeof actual === 'string' && pattern.regex.test(actual) ? undefined : `${path}: printed ${show(pattern.exact)}, got ${show(actual)}`
    case 'object': {
      if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return `${path}: printed an object, got ${show(actual)}`
      const record = actual as Record<string, unknown>
      for (const [name, member] of pattern.members) {
        if (!(name in record)) return `${path}: printed member "${name}" is missing from ${show(actual)}`
        const found = mismatch(member, record[name], `${path}.${name}`)
        if (found) return found
      }
      if (!pattern.open) {
        const extra = Object.keys(record).filter((name) => !pattern.members.some(([printed]) => printed === name))
        if (extra.length > 0) return `${path}: members not printed (and no …): ${extra.join(', ')}`
      }
      return undefined
    }
    case 'array': {
      if (!Array.isArray(actual)) return `${path}: printed an array, got ${show(actual)}`
      return sequence(pattern.items, actual, path, 0, 0)
    }
  }
}

function sequence (items: Pattern[], actual: unknown[], path: string, i: number, j: number): string | undefined {
  if (i === items.length) return j === actual.length ? undefined : `${path}: ${actual.length - j} more elements than printed`
  const item = items[i]!
  if (item.kind === 'rest') {
    for (let k = j; k <= actual.length; k++) if (!sequence(items, actual, path, i + 1, k)) return undefined
    return `${path}: no way to fit the elements around "…"`
  }
  if (j === actual.length) return `${path}: fewer elements than printed`
  return mismatch(item, actual[j], `${path}[${j}]`) ?? sequence(items, actual, path, i + 1, j + 1)
}

/** A text answer: `…` alone on a line stands for any lines, inside a line for any text. */
function textMismatch (printed: string[], actual: string): string | undefined {
  const source = printed.map((line) => line.trim() === ELLIPSIS ? '(?:[^\\n]*\\n)*?' : line.split(ELLIPSIS).map(shapeIn).join('[^\\n]*') + '\\n').join('')
  return new RegExp(`^${source}$`).test(actual.endsWith('\n') ? actual : `${actual}\n`) ? undefined : `printed:\n${printed.join("\n")}\ngot:\n${actual}\n(as JSON: ${JSON.stringify(actual)})`
}

/** Compares what a request printed with the answer printed beside it in the docs. */
export function answerMismatch (printed: string[], actual: string): string | undefined {
  const text = printed.join('\n').trim()
  if (!text.startsWith('{') && !text.startsWith('[')) return textMismatch(printed, actual)
  let value: unknown
  try {
    value = JSON.parse(actual)
  } catch {
    return `not JSON: ${actual.slice(0, 500)}`
  }
  const found = mismatch(parsePattern(text), value)
  return found && `${found}\nthe whole answer: ${actual.slice(0, 2000)}`
}
