/**
 * Control characters have no key to type them: a driver refuses such text before typing
 * anything, not halfway. Returns why, or undefined when every character can be typed.
 */
export function untypable (text: string): string | undefined {
  const control = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.exec(text)
  if (!control) return undefined
  const code = control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')
  return `text contains the control character U+${code} at index ${control.index}, which cannot be typed; only printable characters, newline and tab can`
}
