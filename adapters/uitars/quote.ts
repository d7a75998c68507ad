/** Quotes a piece of model text for an error message, cut short so the message stays readable. */
const LIMIT = 200

export function quote (text: string): string {
  const trimmed = text.trim()
  return JSON.stringify(trimmed.length > LIMIT ? `${trimmed.slice(0, LIMIT)}…` : trimmed)
}
