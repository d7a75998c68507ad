/** The messages between NutDriver (the server's side) and nut-worker (the child process). */
import type { MouseButton, Point, RawImage, Rect, Size } from '../../src/driver.ts'

export interface Calls {
  screenSize: { args: [], result: Size }
  moveMouse: { args: [Point], result: void }
  cursorPosition: { args: [], result: Point }
  buttonDown: { args: [MouseButton], result: void }
  buttonUp: { args: [MouseButton], result: void }
  wheel: { args: [number, number], result: void }
  keyDown: { args: [string], result: void }
  keyUp: { args: [string], result: void }
  typeText: { args: [string], result: void }
  screenshot: { args: [Rect | undefined], result: RawImage }
}

export type Op = keyof Calls

export interface Request<K extends Op = Op> {
  id: number
  op: K
  args: Calls[K]['args']
}

export type Reply =
  | { id: number, ok: true, value: unknown }
  | { id: number, ok: false, message: string }
  | { ready: true }
