// placeholder: being written (canonical key vocabulary and alias table)
export interface KeyInfo {
  /** Canonical lower-case name, e.g. 'ctrl', 'enter', 'a', 'f5', 'kp_enter'. */
  name: string
  /** The X11 keysym name for this key, e.g. 'Control_L', 'Return', 'a', 'F5', 'KP_Enter'. */
  keysym: string
  /** True for shift, ctrl, alt, super and their variants. */
  modifier: boolean
}
// placeholder until the key table lands
import { UnknownKey } from '../errors.ts'
const TEMP: Record<string, KeyInfo> = Object.fromEntries([
  ['shift', 'Shift_L', true], ['ctrl', 'Control_L', true], ['alt', 'Alt_L', true], ['enter', 'Return', false],
  ...'abcdefghijklmnopqrstuvwxyz'.split('').map((c) => [c, c, false]),
].map(([name, keysym, modifier]) => [name, { name, keysym, modifier }])) as Record<string, KeyInfo>
const ALIAS: Record<string, string> = { control: 'ctrl', return: 'enter' }
export function parseCombo (combo: string): KeyInfo[] {
  return combo.split('+').map((part) => {
    const key = TEMP[ALIAS[part.toLowerCase()] ?? part.toLowerCase()]
    if (!key) throw new UnknownKey(`unknown key '${part}' (closest known names: ${part.startsWith('sh') ? 'shift' : 'enter'})`)
    return key
  })
}
