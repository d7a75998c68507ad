/**
 * Splits a reply into its labelled parts. UI-TARS writes `Thought: …`, or `Reflection: …
 * Action_Summary: …`, then `Action: ` and the calls; Doubao's UI-TARS models sometimes write the
 * reasoning unlabelled, in a `<think>` block, or nothing but the calls; the o1-style format
 * wraps it in `<Thought>…</Thought>`. The colon may be full-width (`：`).
 */
import { UnparseableModelOutput } from '../../src/errors/errors.ts'
import { quote } from './quote.ts'

export interface Sections {
  thought: string | null
  reflection: string | null
  action_summary: string | null
  /** Everything after the first `Action:` marker (or the whole reply when it has none). */
  actions: string
}

// At a line start; the fallback finds one written mid-line ("…button. Action: click(…)").
const MARKER_AT_LINE = /(^|\n)[ \t]*Action[:：]/
const MARKER_ANYWHERE = /(?<![\w])Action[:：]/
const LABEL = /(?:^|\n)[ \t]*(Thought|Reflection|Action_Summary)[ \t]*[:：]/g

export function splitSections (text: string): Sections {
  const marker = MARKER_AT_LINE.exec(text) ?? MARKER_ANYWHERE.exec(text)
  if (!marker) {
    if ([...text.matchAll(LABEL)].length > 0) {
      throw new UnparseableModelOutput(`the UI-TARS reply has no 'Action:' line: ${quote(text)}`)
    }
    // Doubao's UI-TARS answers a step with nothing but the call, e.g. `finished(content='…')`.
    return { thought: null, reflection: null, action_summary: null, actions: text }
  }
  const preamble = text.slice(0, marker.index)
  return { ...labelled(preamble), actions: text.slice(marker.index + marker[0].length) }
}

// <Thought>…</Thought> (o1 format), <think>…</think> and Seed's <think_…>…</think_…>.
const THOUGHT_BLOCK = /<(Thought|think\w*)>([\s\S]*?)<\/\1>/
const TAG = /<\/?[A-Za-z_]\w*>/g

export function labelled (preamble: string): Omit<Sections, 'actions'> {
  const found = [...preamble.matchAll(LABEL)]
  const parts: Omit<Sections, 'actions'> = { thought: null, reflection: null, action_summary: null }
  found.forEach((match, i) => {
    const end = found[i + 1]?.index ?? preamble.length
    const body = preamble.slice(match.index + match[0].length, end).trim()
    const key = match[1] === 'Thought' ? 'thought' : match[1] === 'Reflection' ? 'reflection' : 'action_summary'
    parts[key] = body
  })
  if (parts.thought === null) {
    const block = THOUGHT_BLOCK.exec(preamble)
    // Unlabelled reasoning (Doubao's numbered analysis) is still the model's thought.
    if (block) parts.thought = block[2]!.trim() || null
    else if (found.length === 0) parts.thought = preamble.replace(TAG, '').trim() || null
  }
  return parts
}
