/**
 * UI-TARS-2 / Doubao-Seed's XML calls: after the reasoning (`<think>`, `<thinkt>`,
 * `<think_never_used>` …), one or more `<seed:tool_call>` blocks, each holding one or more
 * functions in either attribute style —
 *   <function=click><parameter=point><point>17 58</point></parameter></function>
 *   <function name='scroll'><parameter name='direction'>up</parameter></function>
 * — read into the same calls as the text format (points 0–1000, `point` read as start_box), as
 * ByteDance's XMLFormatParser does (UI-TARS-desktop multimodal/gui-agent/action-parser).
 * Anything between or after the blocks other than whitespace is refused, quoting it.
 */
import { UnparseableModelOutput } from '../../src/errors/errors.ts'
import type { ParsedCall } from './calls.ts'
import { quote } from './quote.ts'
import { labelled, type Sections } from './sections.ts'

const OPEN = '<seed:tool_call>'
const CLOSE = '</seed:tool_call>'
const FUNCTION = /\s*<function(?:=([^\s>]+)|\s+name\s*=\s*(['"])([^'"]*)\2)\s*>([\s\S]*?)<\/function>/y
const PARAMETER = /\s*<parameter(?:=([^\s>]+)|\s+name\s*=\s*(['"])([^'"]*)\2)\s*>([\s\S]*?)<\/parameter>/y
const BLANK = /\s*/y

export const isSeedXml = (text: string): boolean => text.includes(OPEN)

export function parseSeedXml (text: string): { sections: Omit<Sections, 'actions'>, calls: ParsedCall[] } {
  const first = text.indexOf(OPEN)
  const sections = labelled(text.slice(0, first))
  const calls: ParsedCall[] = []
  let at = first
  while (at < text.length) {
    if (!text.startsWith(OPEN, at)) {
      throw new UnparseableModelOutput(`cannot parse the Seed tool call: unexpected text after </seed:tool_call>: ${quote(text.slice(at))}`)
    }
    const end = text.indexOf(CLOSE, at)
    if (end === -1) throw new UnparseableModelOutput(`cannot parse the Seed tool call: <seed:tool_call> is not closed: ${quote(text.slice(at))}`)
    const body = text.slice(at + OPEN.length, end)
    const own = functions(body)
    if (own.length === 0) throw new UnparseableModelOutput('cannot parse the Seed tool call: the <seed:tool_call> holds no <function=…>')
    calls.push(...own)
    at = end + CLOSE.length
    BLANK.lastIndex = at
    BLANK.exec(text)
    at = BLANK.lastIndex
  }
  return { sections, calls }
}

function functions (body: string): ParsedCall[] {
  const calls: ParsedCall[] = []
  const stray = (rest: string) => new UnparseableModelOutput(`cannot parse the Seed tool call: expected <function=name>…</function>, not ${quote(rest)}`)
  for (const match of eachMatch(FUNCTION, body, stray)) {
    const name = match[1] ?? match[3]!
    calls.push({ name, args: parameters(match[4]!, match[0].trim()), text: match[0].trim() })
  }
  return calls
}

function parameters (body: string, call: string): Record<string, string> {
  const args: Record<string, string> = {}
  const stray = (rest: string) => new UnparseableModelOutput(`cannot parse the Seed tool call ${quote(call)}: expected <parameter=name>…</parameter>, not ${quote(rest)}`)
  for (const match of eachMatch(PARAMETER, body, stray)) {
    const key = match[1] ?? match[3]!
    if (Object.hasOwn(args, key)) throw new UnparseableModelOutput(`cannot parse the Seed tool call ${quote(call)}: ${key} is given twice`)
    // The value as written; a line break right after the opening tag is layout, not content.
    args[key] = key === 'content' ? match[4]!.replace(/^\r?\n/, '') : match[4]!.trim()
  }
  return args
}

/** Each match of the global `pattern` in `body` in turn; what is left after the last must be blank, or `stray` is thrown. */
function * eachMatch (pattern: RegExp, body: string, stray: (rest: string) => Error): Generator<RegExpExecArray> {
  let at = 0
  for (;;) {
    pattern.lastIndex = at
    const match = pattern.exec(body)
    if (!match) break
    yield match
    at = pattern.lastIndex
  }
  if (body.slice(at).trim() !== '') throw stray(body.slice(at))
}
