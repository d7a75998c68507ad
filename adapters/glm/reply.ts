/**
 * Splits a GLM-V PC reply the way the reference parser (`parse_pc_response` in zai-org/GLM-V
 * gui_agent_45v.py) does: reasoning in <think>…</think>; the answer up to `Memory:`; the action
 * inside <|begin_of_box|>…<|end_of_box|> when the model boxed it, else a call found in the
 * answer (the last one, skipping names inside an earlier call's strings); the memory after
 * `Memory:`, which the model expects back in its next prompt.
 */
import { UnparseableModelOutput } from '../../src/errors/errors.ts'
import { closesValue } from '../shared/python-calls.ts'
import { FUNCTIONS, TERMINALS } from './functions.ts'

export interface Reply {
  reasoning: string | null
  /** The explanation before the action, box markers removed. */
  thought: string | null
  /** The action call as written (bare terminals get their parentheses: `DONE` → `DONE()`). */
  action: string
  memory: string | null
}

const THINK = /<think>([\s\S]*?)<\/think>/
const BEGIN = '<|begin_of_box|>'
const END = '<|end_of_box|>'
const SPECIAL = /<\|[a-z_]+\|>/g
const CALL_START = new RegExp(`\\b(${Object.keys(FUNCTIONS).join('|')})\\s*\\(`, 'gi')
// Without parentheses only in capitals: "let's wait and see" is prose, "…, WAIT" the action.
const BARE_TERMINAL = new RegExp(`\\b(${TERMINALS.join('|')})\\b`, 'g')

export function splitReply (text: string): Reply {
  const think = THINK.exec(text)
  const afterThink = think ? text.slice(think.index + think[0].length) : text
  const memoryAt = afterThink.lastIndexOf('Memory:')
  const answer = memoryAt === -1 ? afterThink : afterThink.slice(0, memoryAt)
  const memory = memoryAt === -1 ? null : afterThink.slice(memoryAt + 'Memory:'.length).replace(SPECIAL, '').trim()
  const boxAt = answer.indexOf(BEGIN)
  let region = answer
  let regionStart = 0
  if (boxAt !== -1) {
    const end = answer.indexOf(END, boxAt)
    regionStart = boxAt + BEGIN.length
    region = answer.slice(regionStart, end === -1 ? answer.length : end)
  }
  const found = lastCall(region)
  if (!found) {
    const where = boxAt !== -1 ? `the box holds no action: ${quote(region)}` : `no action in ${quote(answer)}`
    throw new UnparseableModelOutput(`cannot find the GLM action (a call like left_click(start_box='[x,y]') or DONE()): ${where}`)
  }
  const before = boxAt !== -1 ? answer.slice(0, boxAt) : answer.slice(0, found.at)
  const thought = before.replace(SPECIAL, '').replace(/Action[:：]\s*$/, '').trim() || null
  return { reasoning: think ? think[1]!.trim() || null : null, thought, action: found.call, memory }
}

/** The last call written with parentheses, else the last bare terminal (`DONE`). */
function lastCall (region: string): { call: string, at: number } | null {
  let last: { call: string, at: number } | null = null
  CALL_START.lastIndex = 0
  for (let match = CALL_START.exec(region); match; match = CALL_START.exec(region)) {
    // Function names are case-sensitive; only the terminals are matched in any case (`done()`).
    if (!Object.hasOwn(FUNCTIONS, match[1]!) && !(TERMINALS as readonly string[]).includes(match[1]!.toUpperCase())) continue
    const open = match.index + match[0].length - 1
    const close = closingParen(region, open)
    if (close === -1) {
      // Unclosed: keep the text so the refusal quotes it.
      return { call: region.slice(match.index).trim(), at: match.index }
    }
    last = { call: region.slice(match.index, close + 1), at: match.index }
    CALL_START.lastIndex = close + 1
  }
  if (last) return last
  const bare = [...region.matchAll(BARE_TERMINAL)].at(-1)
  return bare ? { call: `${bare[1]}()`, at: bare.index } : null
}

/** The `)` closing the `(` at `open`, skipping brackets and quoted strings; -1 if none. */
function closingParen (text: string, open: number): number {
  let depth = 0
  let quoteChar: string | null = null
  for (let at = open; at < text.length; at++) {
    const char = text[at]!
    if (quoteChar) {
      if (char === '\\') at++
      // A quote inside the text (type(content='it's here')) does not close it; see closesValue.
      else if (char === quoteChar && closesValue(text, at + 1)) quoteChar = null
    } else if (char === "'" || char === '"') {
      quoteChar = char
    } else if (char === '(' || char === '[') {
      depth++
    } else if (char === ')' || char === ']') {
      depth--
      if (depth === 0) return char === ')' ? at : -1
    }
  }
  return -1
}

const LIMIT = 200
export const quote = (text: string) => {
  const trimmed = text.trim()
  return JSON.stringify(trimmed.length > LIMIT ? `${trimmed.slice(0, LIMIT)}…` : trimmed)
}
