// placeholder: being written (canonical key vocabulary and alias table)
export interface KeyInfo {
  /** Canonical lower-case name, e.g. 'ctrl', 'enter', 'a', 'f5', 'kp_enter'. */
  name: string
  /** The X11 keysym name for this key, e.g. 'Control_L', 'Return', 'a', 'F5', 'KP_Enter'. */
  keysym: string
  /** True for shift, ctrl, alt, super and their variants. */
  modifier: boolean
}
