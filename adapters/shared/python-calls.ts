/**
 * A restricted reader of the Python that models write as actions: a sequence of calls
 * (`pyautogui.click(x=10, y=20)`, `left_click(start_box='[1, 2]')`) and bare names (`DONE`),
 * whose arguments are literals only — numbers, strings (single, double, triple quoted, with
 * Python's escapes; adjacent ones joined), True/False/None, and lists or tuples of those.
 * Nothing is evaluated and no Python runs: a name that is not a literal, an operator, an
 * attribute of a value, a nested call, an f-string or any other statement is refused, quoting
 * the line it is on. Comments, blank lines, `;` and backslash continuations are allowed.
 * Which calls mean something is the adapter's business, not this reader's.
 */
export type PyValue = number | string | boolean | null | PyValue[]

export interface PyCall {
  /** The dotted name called (`pyautogui.click`), or the bare name (`DONE`). */
  name: string
  /** False for a bare name written without parentheses. */
  called: boolean
  args: PyValue[]
  kwargs: Record<string, PyValue>
  /** The statement as written. */
  text: string
  /** Its first line, 1-based. */
  line: number
}

export class PythonSyntaxError extends Error {
  readonly line: number
  readonly lineText: string
  constructor (why: string, line: number, lineText: string) {
    super(why)
    this.line = line
    this.lineText = lineText
  }
}

type Token =
  | { kind: 'name', value: string, at: number }
  | { kind: 'number', value: number, at: number }
  | { kind: 'string', value: string, at: number }
  | { kind: 'op', value: string, at: number }
  | { kind: 'end', value: '', at: number }

/** Nesting deeper than this is refused rather than recursed into. */
const MAX_DEPTH = 8
const NAME = /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/y
const NUMBER = /(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?/y
const STRING_START = /([rRuU]?)('''|"""|'|")/y
const OPS = new Set(['(', ')', '[', ']', ',', '=', '-', '+', ';'])
const ESCAPES: Record<string, string> = {
  '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', 0: '\0',
}

export interface ReadOptions {
  /**
   * A quote of a single-quoted string that is not followed by `)`, `,` + a keyword, `]` or the
   * end is text, not the string's end — `type(content='it's here')` as models write it (the
   * repair UI-TARS' own parser makes). Off: Python's own rule.
   */
  lenientQuotes?: boolean
}

export function parsePythonCalls (source: string, options: ReadOptions = {}): PyCall[] {
  const lineOf = lineLocator(source)
  const tokens = tokenize(source, lineOf, options.lenientQuotes === true)
  const calls: PyCall[] = []
  let i = 0
  const peek = () => tokens[i]!
  const next = () => tokens[i++]!
  const fail = (why: string, at: number): never => {
    // Past the last character (an unclosed call): the line the code ends on.
    const end = source.trimEnd().length
    const { line, text } = lineOf(at >= end ? Math.max(0, end - 1) : at)
    throw new PythonSyntaxError(why, line, text)
  }
  const isOp = (token: Token, op: string) => token.kind === 'op' && token.value === op

  function value (depth: number): PyValue {
    if (depth > MAX_DEPTH) fail(`values nest deeper than ${MAX_DEPTH} levels`, peek().at)
    const token = next()
    if (token.kind === 'number') return token.value
    if (token.kind === 'string') {
      let text = token.value
      while (peek().kind === 'string') text += (next() as { value: string }).value
      return text
    }
    if (isOp(token, '-') || isOp(token, '+')) {
      const number = next()
      if (number.kind !== 'number') fail(`'${token.value}' may only sign a number`, token.at)
      return token.value === '-' ? -(number.value as number) : number.value as number
    }
    if (token.kind === 'name') {
      if (token.value === 'True') return true
      if (token.value === 'False') return false
      if (token.value === 'None') return null
      return fail(`${token.value} is not a literal; arguments may only be numbers, strings, True, False, None, or lists of them`, token.at)
    }
    if (isOp(token, '[') || isOp(token, '(')) {
      const close = token.value === '[' ? ']' : ')'
      const items: PyValue[] = []
      while (!isOp(peek(), close)) {
        items.push(value(depth + 1))
        if (isOp(peek(), ',')) next()
        else if (!isOp(peek(), close)) fail(`expected ',' or '${close}'`, peek().at)
      }
      next()
      return items
    }
    return fail(token.kind === 'end' ? 'the call is not closed' : `unexpected '${token.value}'`, token.at)
  }

  function call (): PyCall {
    const name = next()
    if (name.kind !== 'name') fail('expected a call like name(arg=value)', name.at)
    const start = name.at
    const base = { name: name.value as string, args: [] as PyValue[], kwargs: {} as Record<string, PyValue> }
    if (!isOp(peek(), '(')) return { ...base, called: false, text: source.slice(start, name.at + String(name.value).length), line: lineOf(start).line }
    next()
    while (!isOp(peek(), ')')) {
      const token = peek()
      if (token.kind === 'name' && isOp(tokens[i + 1]!, '=')) {
        i += 2
        if (Object.hasOwn(base.kwargs, token.value)) fail(`${token.value} is given twice`, token.at)
        base.kwargs[token.value] = value(1)
      } else {
        if (Object.keys(base.kwargs).length > 0) fail('a positional argument follows a keyword argument', token.at)
        base.args.push(value(1))
      }
      if (isOp(peek(), ',')) next()
      else if (!isOp(peek(), ')')) fail(peek().kind === 'end' ? "missing ')'" : "expected ',' or ')'", peek().at)
    }
    const close = next()
    return { ...base, called: true, text: source.slice(start, close.at + 1), line: lineOf(start).line }
  }

  while (peek().kind !== 'end') {
    if (isOp(peek(), 'newline') || isOp(peek(), ';')) { next(); continue }
    const statement = call()
    calls.push(statement)
    const after = peek()
    if (after.kind !== 'end' && !isOp(after, 'newline') && !isOp(after, ';')) {
      if (!statement.called) fail('not a call: only calls with literal arguments (and bare names like DONE) are read, no other Python', after.at)
      fail(`unexpected ${after.kind === 'string' ? 'string' : `'${after.value}'`} after the call; one call per statement`, after.at)
    }
  }
  return calls
}

function tokenize (source: string, lineOf: LineOf, lenient: boolean): Token[] {
  const tokens: Token[] = []
  let depth = 0
  let at = 0
  const fail = (why: string, where: number): never => {
    const { line, text } = lineOf(where)
    throw new PythonSyntaxError(why, line, text)
  }
  while (at < source.length) {
    const char = source[at]!
    if (char === '\n') {
      if (depth === 0) tokens.push({ kind: 'op', value: 'newline', at })
      at++
    } else if (char === ' ' || char === '\t' || char === '\r' || char === '\f') {
      at++
    } else if (char === '#') {
      while (at < source.length && source[at] !== '\n') at++
    } else if (char === '\\' && source[at + 1] === '\n') {
      at += 2
    } else if (stringAt(source, at)) {
      const match = stringAt(source, at)!
      const { value, end } = readString(source, at, match[1]!, match[2]!, lenient, fail)
      tokens.push({ kind: 'string', value, at })
      at = end
    } else if (/[A-Za-z_]/.test(char)) {
      NAME.lastIndex = at
      const name = NAME.exec(source)![0]
      if (/^[bfBF][rR]?$|^[rR][bfBF]$/.test(name) && /['"]/.test(source[at + name.length] ?? '')) {
        fail(`${name}-prefixed strings are not literals this reader takes`, at)
      }
      tokens.push({ kind: 'name', value: name, at })
      at += name.length
    } else if (/[0-9.]/.test(char) && /[0-9]/.test(char === '.' ? source[at + 1] ?? '' : char)) {
      NUMBER.lastIndex = at
      const written = NUMBER.exec(source)![0]
      const value = Number(written.replace(/_/g, ''))
      if (!Number.isFinite(value)) fail(`${written} is not a number`, at)
      tokens.push({ kind: 'number', value, at })
      at += written.length
    } else if (OPS.has(char)) {
      if (char === '(' || char === '[') depth++
      if ((char === ')' || char === ']') && depth > 0) depth--
      tokens.push({ kind: 'op', value: char, at })
      at++
    } else {
      // Left to the parser, which refuses it where it stands with what it expected there.
      tokens.push({ kind: 'op', value: char, at })
      at++
    }
  }
  tokens.push({ kind: 'end', value: '', at: source.length })
  return tokens
}

function stringAt (source: string, at: number): RegExpExecArray | null {
  STRING_START.lastIndex = at
  return STRING_START.exec(source)
}

/** After a quote, what shows it closes a value: `)`, `]`, `,` then a keyword or value, or the end. */
const CLOSES_VALUE = /[ \t]*(?:[)\]]|,\s*(?:[A-Za-z_]\w*\s*=|['"\d\-[(]|[A-Za-z_])|$)/y

export function closesValue (source: string, at: number): boolean {
  CLOSES_VALUE.lastIndex = at
  return CLOSES_VALUE.test(source)
}

function readString (source: string, start: number, prefix: string, quote: string, lenient: boolean, fail: (why: string, at: number) => never): { value: string, end: number } {
  const raw = prefix === 'r' || prefix === 'R'
  const triple = quote.length === 3
  let value = ''
  let at = start + prefix.length + quote.length
  while (at < source.length) {
    if (source.startsWith(quote, at) && (!lenient || quote.length === 3 || closesValue(source, at + 1))) return { value, end: at + quote.length }
    const char = source[at]!
    if (char === '\n' && !triple) break
    if (char === '\\' && at + 1 < source.length) {
      const escape = source[at + 1]!
      if (raw) {
        value += char + escape
        at += 2
        continue
      }
      if (escape === '\n') { at += 2; continue }
      if (Object.hasOwn(ESCAPES, escape)) { value += ESCAPES[escape]; at += 2; continue }
      const hex = escape === 'x' ? 2 : escape === 'u' ? 4 : escape === 'U' ? 8 : 0
      if (hex) {
        const digits = source.slice(at + 2, at + 2 + hex)
        const code = /^[0-9a-fA-F]+$/.test(digits) && digits.length === hex ? parseInt(digits, 16) : NaN
        if (Number.isNaN(code) || code > 0x10ffff) fail(`\\${escape}${digits} is not a valid escape`, at)
        value += String.fromCodePoint(code)
        at += 2 + hex
        continue
      }
      if (escape === 'N') fail('\\N{…} escapes are not supported; write the character itself', at)
      value += char + escape
      at += 2
      continue
    }
    value += char
    at++
  }
  return fail(`the string opened with ${quote} is not closed`, start)
}

type LineOf = (at: number) => { line: number, text: string }

/** A position → its line, by binary search over where each line starts (no rescan per call). */
function lineLocator (source: string): LineOf {
  const starts = [0]
  for (let at = source.indexOf('\n'); at !== -1; at = source.indexOf('\n', at + 1)) starts.push(at + 1)
  return (at) => {
    let low = 0
    let high = starts.length - 1
    while (low < high) {
      const mid = (low + high + 1) >> 1
      if (starts[mid]! <= at) low = mid
      else high = mid - 1
    }
    const begin = starts[low]!
    const end = source.indexOf('\n', begin)
    return { line: low + 1, text: source.slice(begin, end === -1 ? source.length : end) }
  }
}
