/**
 * The XML form of a tool call that Qwen3.5 writes inside `<tool_call>` (its chat template's
 * function-call format): `<function=NAME>` then one `<parameter=KEY>VALUE</parameter>` per
 * argument. A value is the text between the tags without the one newline the template puts on
 * either side; a value that reads as JSON (a list, a number, true/false) is that JSON value, so
 * `[500, 300]` is a coordinate, and anything else stays text. Nothing is evaluated.
 */
import { UnparseableModelOutput } from '../../src/errors/errors.ts'

const FUNCTION = /^<function=([^>\s]+)>/
const PARAMETER = /<parameter=([^>\s]+)>([\s\S]*?)<\/parameter>/g
/** Parameters the tools type as strings: their text is never read as JSON ("123" typed stays "123"). */
const TEXT = new Set(['action', 'text', 'status', 'url', 'query', 'fact'])

export function xmlCall (block: string, where: string): { name: string, arguments: Record<string, unknown> } {
  const opened = FUNCTION.exec(block)
  if (!opened) throw new UnparseableModelOutput(`${where} is not a call <function=NAME>…</function>: ${quoted(block)}`)
  // A reply cut short may lack </function>: the parameters written so far are the call.
  const close = block.lastIndexOf('</function>')
  const body = block.slice(opened[0].length, close === -1 ? block.length : close)
  const args: Record<string, unknown> = {}
  for (const [, key, raw] of body.matchAll(PARAMETER)) {
    const value = raw!.replace(/^\n/, '').replace(/\n$/, '')
    args[key!] = TEXT.has(key!) ? value : jsonOrText(value.trim())
  }
  const rest = body.replace(PARAMETER, '').trim()
  if (rest) throw new UnparseableModelOutput(`${where} has text outside its <parameter=…> tags: ${quoted(rest)}`)
  return { name: opened[1]!, arguments: args }
}

function jsonOrText (value: string): unknown {
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

const quoted = (text: string) => JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text)
