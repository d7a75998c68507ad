/**
 * The calls after `Action:` — `name(key='value', …)`, separated by blank lines (UI-TARS'
 * multi-action replies) or by further `Action:` lines — are read as Python keyword calls, the way
 * ByteDance's parser reads them with `ast.parse`. Quoted values take Python's escapes (`\'`,
 * `\"`, `\n`, `\\`); a quote the model left unescaped inside `type(content='…')` is kept as
 * text unless it closes the value (followed by `)` or `, key=`), as the official parser's
 * re-escaping of single quotes does. Anything else that does not read as a call is refused,
 * quoting the call.
 */
import { UnparseableModelOutput } from '../../src/errors/errors.ts'
import { quote } from './quote.ts'

export interface ParsedCall {
  name: string
  /** Keyword arguments as written (escapes resolved), in order. */
  args: Record<string, string>
  /** The call as it appears in the reply. */
  text: string
}

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y
// Between and after calls: blank lines, further `Action:` markers, closing tags such as the
// o1 format's </Output> and Seed's </computer_env>.
const SEPARATOR = /(?:\s|;|Action[:：]|<\/[A-Za-z_]\w*>)*/y
const CLOSES_VALUE = /[ \t]*(?:\)|,\s*[A-Za-z_][A-Za-z0-9_]*\s*=)/y
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"' }

export function parseCalls (source: string): ParsedCall[] {
  const calls: ParsedCall[] = []
  let at = skip(source, 0)
  while (at < source.length) {
    const { call, end } = parseCall(source, at)
    calls.push(call)
    at = skip(source, end)
  }
  if (calls.length === 0) throw new UnparseableModelOutput(`the UI-TARS reply has no call after 'Action:': ${quote(source) === '""' ? 'nothing follows it' : quote(source)}`)
  return calls
}

function skip (source: string, at: number): number {
  SEPARATOR.lastIndex = at
  SEPARATOR.exec(source)
  return SEPARATOR.lastIndex
}

function parseCall (source: string, start: number): { call: ParsedCall, end: number } {
  const fail = (why: string, end = lineEnd(source, start)): never => {
    throw new UnparseableModelOutput(`cannot parse the UI-TARS action ${quote(source.slice(start, end))}: ${why}`)
  }
  const name = match(IDENTIFIER, source, start)
  if (!name) fail('expected a call like click(start_box=\'(x,y)\')')
  let at = start + name!.length
  at = spaces(source, at)
  const args: Record<string, string> = {}
  if (source[at] !== '(') {
    // `Action: wait` — a call without arguments written without its parentheses.
    if (at >= source.length || source[at] === '\n') return { call: { name: name!, args, text: name! }, end: at }
    fail(`expected '(' after ${name}`)
  }
  at++
  for (;;) {
    at = blanks(source, at)
    if (source[at] === ')') break
    const key = match(IDENTIFIER, source, at)
    if (!key) fail(at >= source.length ? "missing ')'" : 'expected key=value arguments', Math.min(source.length, at + 1))
    at = blanks(source, at + key!.length)
    if (source[at] !== '=') fail(`expected '=' after ${key}`, Math.min(source.length, at + 1))
    at = blanks(source, at + 1)
    const value = source[at] === "'" || source[at] === '"' ? quoted(source, at) : bare(source, at)
    if (!value) fail(`the value of ${key} is not closed`, source.length)
    if (key! in args) fail(`${key} is given twice`)
    args[key!] = value!.value
    at = blanks(source, value!.end)
    if (source[at] === ',') { at++; continue }
    if (source[at] === ')') break
    fail("missing ')'", Math.min(source.length, at + 1))
  }
  const end = at + 1
  return { call: { name: name!, args, text: source.slice(start, end) }, end }
}

function quoted (source: string, start: number): { value: string, end: number } | null {
  const quote = source[start]!
  let value = ''
  for (let at = start + 1; at < source.length; at++) {
    const char = source[at]!
    if (char === '\\' && at + 1 < source.length) {
      const next = source[at + 1]!
      value += ESCAPES[next] ?? `\\${next}`
      at++
    } else if (char === quote && closesValue(source, at + 1)) {
      return { value, end: at + 1 }
    } else {
      value += char
    }
  }
  return null
}

function closesValue (source: string, at: number): boolean {
  CLOSES_VALUE.lastIndex = at
  return at >= source.length || CLOSES_VALUE.test(source)
}

/** An unquoted value (`direction=down`, `start_box=(10,20)`): up to a `,` or `)` outside brackets. */
function bare (source: string, start: number): { value: string, end: number } | null {
  let depth = 0
  for (let at = start; at < source.length; at++) {
    const char = source[at]!
    if (char === '(' || char === '[') depth++
    else if ((char === ')' || char === ']') && depth > 0) depth--
    else if ((char === ',' || char === ')') && depth === 0) return { value: source.slice(start, at).trim(), end: at }
  }
  return null
}

function match (pattern: RegExp, source: string, at: number): string | null {
  pattern.lastIndex = at
  return pattern.exec(source)?.[0] ?? null
}

const spaces = (source: string, at: number) => {
  while (source[at] === ' ' || source[at] === '\t') at++
  return at
}

const blanks = (source: string, at: number) => {
  while (at < source.length && /\s/.test(source[at]!)) at++
  return at
}

function lineEnd (source: string, start: number): number {
  const newline = source.indexOf('\n', start)
  return newline === -1 ? source.length : newline
}
