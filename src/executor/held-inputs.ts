/**
 * Knows every key and mouse button the server holds down on the desktop, so that nothing
 * stays held: the executor releases them when an action fails, when the client goes away,
 * after an idle timeout and on shutdown. Keys held on purpose (press_type/click_type 'down')
 * live here too until their 'up' comes.
 */
import type { Driver, InputStep, MouseButton, Point } from '../driver/driver.ts'
import type { KeyInfo } from '../keys/index.ts'
import { passThrough } from './pass-through.ts'

export interface HeldSnapshot {
  keys: string[]
  buttons: MouseButton[]
}

export class HeldInputs {
  readonly #keys = new Map<string, KeyInfo>()
  readonly #buttons = new Set<MouseButton>()

  keyDown (key: KeyInfo): void { this.#keys.set(key.name, key) }
  keyUp (key: KeyInfo): void { this.#keys.delete(key.name) }
  buttonDown (button: MouseButton): void { this.#buttons.add(button) }
  buttonUp (button: MouseButton): void { this.#buttons.delete(button) }

  get empty (): boolean { return this.#keys.size === 0 && this.#buttons.size === 0 }

  snapshot (): HeldSnapshot {
    return { keys: [...this.#keys.keys()], buttons: [...this.#buttons] }
  }

  /**
   * Releases everything, buttons first then keys in reverse order of pressing (so a held
   * modifier cannot turn the button release into a modified click). Keeps going when one
   * release fails, and reports the first failure after trying them all.
   */
  async releaseAll (driver: Driver): Promise<void> {
    let failure: unknown
    for (const button of [...this.#buttons].reverse()) {
      try { await driver.buttonUp(button) } catch (error) { failure ??= error }
      this.#buttons.delete(button)
    }
    for (const key of [...this.#keys.values()].reverse()) {
      try { await driver.keyUp(key) } catch (error) { failure ??= error }
      this.#keys.delete(key.name)
    }
    if (failure !== undefined) throw failure
  }

  /** Forgets everything without touching the desktop (it is gone: a new X server holds nothing). */
  clear (): void {
    this.#keys.clear()
    this.#buttons.clear()
  }
}

/** A driver whose presses and releases are recorded in `held`; everything else passes through. */
export function trackedDriver (driver: Driver, held: HeldInputs): Driver {
  return passThrough(driver, {
    // Recorded before the press is sent: if the press fails half-way, the release still runs.
    keyDown: async (key) => { held.keyDown(key); await driver.keyDown(key) },
    keyUp: async (key) => { await driver.keyUp(key); held.keyUp(key) },
    buttonDown: async (button) => { held.buttonDown(button); await driver.buttonDown(button) },
    buttonUp: async (button) => { await driver.buttonUp(button); held.buttonUp(button) },
    ...(driver.input && {
      input: (steps: readonly InputStep[]) => steps.some(pressOrRelease) ? trackedInput(driver, held, steps) : driver.input!(steps),
    }),
  })
}

const pressOrRelease = (step: InputStep) => step.kind === 'key' || step.kind === 'button'

/**
 * A plan's presses are recorded before it is sent, as single presses are; once it has run, its
 * releases are applied in order, so what it leaves held (a click_type 'down') stays recorded.
 * A plan that fails leaves every press recorded: releasing one that never went down is harmless.
 */
async function trackedInput (driver: Driver, held: HeldInputs, steps: readonly InputStep[]): Promise<Point> {
  for (const step of steps) {
    if (step.kind === 'key' && step.down) held.keyDown(step.key)
    if (step.kind === 'button' && step.down) held.buttonDown(step.button)
  }
  const pointer = await driver.input!(steps)
  for (const step of steps) {
    if (step.kind === 'key') {
      if (step.down) held.keyDown(step.key)
      else held.keyUp(step.key)
    }
    if (step.kind === 'button') {
      if (step.down) held.buttonDown(step.button)
      else held.buttonUp(step.button)
    }
  }
  return pointer
}
