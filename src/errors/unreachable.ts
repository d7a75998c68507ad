/**
 * The default branch of every exhaustive switch. The compiler proves it cannot be reached
 * (`value` is `never`); reaching it anyway means a value from outside the types (an unchecked
 * cast, a schema and its type out of step), which is our fault: a 500, never the client's 400.
 */
export class Unreachable extends Error {
  override name = 'Unreachable'
}

export function unreachable (value: never, what = 'value'): never {
  throw new Unreachable(`unhandled ${what} ${JSON.stringify(value)}`)
}
