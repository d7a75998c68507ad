/**
 * Which window `/setup/activate_window` and `/window_size` mean, as OSWorld's server finds it
 * with wmctrl: by default the title contains the name, case-insensitively; `strict`, the whole
 * title, case-sensitively; `by_class`, the WM_CLASS (instance or class) instead. The topmost
 * of several wins, as wmctrl takes the first.
 */
export interface NamedWindow {
  id: string
  title: string
  class: string
}

export function matchWindow<W extends NamedWindow> (windows: readonly W[], name: string, { strict = false, byClass = false } = {}): W | undefined {
  const matches = (text: string) => strict ? text === name : text.toLowerCase().includes(name.toLowerCase())
  return windows.find((window) => matches(byClass ? window.class : window.title))
}
