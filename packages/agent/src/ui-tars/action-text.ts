/**
 * One action the @ui-tars/sdk parser read, written back as UI-TARS text for our dialect:
 * `click(start_box='(200,120)')`. The parser turned the model's points into fractions of the
 * screenshot (`[x1,y1,x2,y2]`); they go back on the 0–1000 grid (a box's centre), which
 * POST /computer/uitars?coordinates=relative maps onto the screen whatever the model's version.
 * Other values the parser leaves as the model wrote them between the quotes, escapes and all
 * (`it\'s ok\n`, a line break made `\n`): they are read with the dialect's escapes, then
 * written back quoted, so the server types exactly what the model meant.
 */
export interface ParsedAction {
  action_type: string
  action_inputs: Record<string, unknown>
}

const BOXES = new Set(['start_box', 'end_box'])

export function actionText ({ action_type: name, action_inputs: inputs }: ParsedAction): string {
  const args = Object.entries(inputs)
    // start_coords/end_coords are the parser's pixels of the same point: the box says it.
    .filter(([key, value]) => !key.endsWith('_coords') && value !== undefined && value !== null)
    .map(([key, value]) => `${key}='${BOXES.has(key) ? gridPoint(String(value)) : escape(resolveEscapes(String(value)))}'`)
  return `Action: ${name}(${args.join(', ')})`
}

function gridPoint (box: string): string {
  const numbers = box.replace(/[[\]()\s]/g, '').split(',').map(Number)
  if (numbers.length !== 2 && numbers.length !== 4) throw new TypeError(`computer-gateway: cannot read the box ${JSON.stringify(box)}`)
  const [x1, y1, x2 = x1!, y2 = y1!] = numbers as [number, number, number?, number?]
  return `(${Math.round(((x1 + x2) / 2) * 1000)},${Math.round(((y1 + y2) / 2) * 1000)})`
}

// The escapes the dialect resolves in a quoted value (adapters/uitars/calls.ts); any other
// backslash is kept as written, there as here.
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"' }

/** The model's quoted text as it means it: `it\'s` is `it's`, `\\` one backslash. */
function resolveEscapes (text: string): string {
  return text.replace(/\\([\s\S])/g, (escape, next: string) => ESCAPES[next] ?? escape)
}

/** Python's escapes, as the dialect reads quoted values. */
function escape (text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r')
}
