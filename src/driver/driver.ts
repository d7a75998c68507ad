/**
 * The contract between the executor and a desktop. A driver is thin on purpose: it knows
 * input primitives and pixels, nothing of actions, adapters, HTTP, scaling or key aliases.
 * Everything with meaning (hold_keys, n-clicks, drags, key names, scaling) lives above it,
 * once, in src/executor.
 *
 * Coordinates are always real screen pixels. Keys are always canonical key names from
 * src/keys (with their X keysym at hand), never a dialect's spelling.
 */
import type { Point, Rect, Size } from '../screen/geometry.ts'
import type { KeyInfo } from '../keys/index.ts'
import type { Log } from '../runtime/logger.ts'

// Drivers take their geometry from here, with the rest of the contract.
export type { Point, Rect, Size } from '../screen/geometry.ts'

export type MouseButton = 'left' | 'right' | 'middle' | 'back' | 'forward'

/** Raw pixels as the X server hands them out: 4 bytes a pixel, rows of `width * 4` bytes. */
export interface RawImage {
  width: number
  height: number
  /** Byte order of each pixel. X11 ZPixmaps on little-endian machines are 'bgra'. */
  order: 'rgba' | 'bgra'
  data: Buffer
  /**
   * Set by a driver that can reuse the memory of `data` for a later grab: the consumer calls it
   * once done with the pixels (and reads them no more). A consumer that never calls it costs a
   * fresh allocation at the next grab, nothing else. Reusing matters because a 4 MB buffer per
   * screenshot made V8 run a full collection every few screenshots (~20 ms each).
   */
  release?: () => void
}

/** How long a settled screenshot waits: until the screen has not changed for `quietMs`, at most `maxMs`. */
export interface SettleOptions {
  quietMs: number
  maxMs: number
  signal?: AbortSignal
}

/** What waiting for the screen to settle found. */
export interface Settled {
  waitedMs: number
  /** Changes seen while waiting (damage reports, or grabs that differed from the one before). */
  changes: number
  /** False when `maxMs` ran out while the screen was still changing. */
  quiet: boolean
  /** How changes were seen: X's damage reports, comparing grabs, or an in-memory screen that never changes by itself. */
  via: 'damage' | 'pixels' | 'memory'
}

/**
 * One primitive of an input plan: what a click, a drag, a scroll or a key combo is made of.
 * A pause lets applications see what came before it as separate (a drag's press).
 */
export type InputStep =
  | { kind: 'move', to: Point }
  | { kind: 'button', button: MouseButton, down: boolean }
  | { kind: 'wheel', dx: number, dy: number }
  | { kind: 'key', key: KeyInfo, down: boolean }
  | { kind: 'pause', ms: number }

export interface Driver {
  /** A short name for logs and GET /health ('nut', 'xdotool', 'fake'). */
  readonly name: string

  /** Connects to the desktop. Rejects with a clear error when the display does not answer. */
  start(): Promise<void>

  /** Disconnects and frees whatever start() took. Safe to call twice. */
  close(): Promise<void>

  /** True while the driver can take input (started, and its desktop connection alive). */
  ready(): boolean

  /** The real screen size in pixels. */
  screenSize(): Promise<Size>

  /** Warps the pointer to a point of the real screen. Motion events are delivered as usual. */
  moveMouse(point: Point): Promise<void>

  /** Where the pointer is now, in real screen pixels. */
  cursorPosition(): Promise<Point>

  /** Presses a mouse button at the current pointer position, without releasing it. */
  buttonDown(button: MouseButton): Promise<void>

  /** Releases a mouse button at the current pointer position. */
  buttonUp(button: MouseButton): Promise<void>

  /**
   * Turns the wheel by whole notches: `dy` > 0 scrolls down, `dx` > 0 scrolls right
   * (X11 buttons 5 and 7); negative values go up / left (buttons 4 and 6).
   */
  wheel(dx: number, dy: number): Promise<void>

  /** Presses a key without releasing it. */
  keyDown(key: KeyInfo): Promise<void>

  /** Releases a key. */
  keyUp(key: KeyInfo): Promise<void>

  /**
   * Runs a whole input plan in order, at once (a driver behind a process boundary crosses it
   * once), and resolves with the pointer position once the desktop has processed every step.
   * A step that fails rejects, with the steps after it not sent; what it pressed is the
   * caller's to release (it releases every key and button the plan presses). Optional: the
   * executor runs the steps one primitive at a time on a driver without it.
   */
  input?(steps: readonly InputStep[]): Promise<Point>

  /**
   * True when input() calls take effect in the order they are made, each whole, also when one
   * is made before the one before it answered (one ordered channel to the desktop, as the nut
   * worker's). The executor then hands the next request's clicks and moves over while the
   * previous one's answer is on its way back.
   */
  readonly inputInOrder?: boolean

  /** Types text exactly as given (characters, not key names). */
  typeText(text: string): Promise<void>

  /** Grabs the screen (or a rectangle of it) as raw pixels. */
  screenshot(region?: Rect): Promise<RawImage>

  /**
   * Waits until the screen has stopped changing (SettleOptions). Without it the executor
   * compares consecutive grabs (src/screen/settle.ts), which costs a grab every poll.
   */
  settle?(options: SettleOptions): Promise<Settled>

  /**
   * Calls `listener` each time the desktop behind the driver is replaced (its X server died
   * and a new one took its place): what was held, and the screen, went with the old one.
   * Only drivers that restart their desktop have it.
   */
  onReplaced?(listener: () => void): void

  /**
   * Why the desktop that was asked for is not up although the driver takes input (its window
   * manager or full desktop session died at start, or is being started again), else undefined.
   * GET /health is not ready while it says something: input alone is not the desktop a client
   * asked for. Only drivers that start a desktop of their own have it.
   */
  desktopDown?(): string | undefined

  /** Window management, when the desktop has it; without it the window actions are refused (400). */
  readonly windows?: WindowControl | undefined
}

/** A top-level window as the window manager reports it, in real screen pixels. */
export interface WindowState {
  /** The X window id of the client window (not its frame). */
  id: number
  /** _NET_WM_NAME, else WM_NAME; '' when unset. */
  title: string
  /** WM_CLASS: the instance name and the class name; '' when unset. */
  instance: string
  class: string
  /** _NET_WM_PID, or null when the application does not set it. */
  pid: number | null
  /** The client area without the frame, in root-window coordinates. */
  rect: Rect
  /** True for _NET_ACTIVE_WINDOW. */
  focused: boolean
}

/** A process started by `WindowControl.launch`. */
export interface LaunchedApp {
  pid: number
  /** How it ended, once it has (it is not waited for: applications keep running). */
  exit: () => { code: number | null, signal: string | null } | undefined
  /** Whether the process `pid` was started by it (a wrapper script's program: LibreOffice's soffice.bin), when the driver can tell. */
  owns?: (pid: number) => boolean
}

/**
 * Window management, for desktops that have it (an EWMH window manager). It is a desktop
 * capability, not an input primitive, so a driver may lack it. Like the rest of the driver
 * it knows real pixels and window ids only: selection, scaling, the allow-list and waiting
 * for a launched application's window live in src/executor.
 */
export interface WindowControl {
  /** Why window control cannot work right now (e.g. no window manager runs), or undefined when it can. */
  unavailable: () => Promise<string | undefined>
  /** The managed top-level windows, highest in the stacking order first. */
  list: () => Promise<WindowState[]>
  /** Raises the window, makes it active and gives it the input focus; resolves once the window manager has. */
  activate: (id: number) => Promise<void>
  /** Moves and/or resizes the client area; resolves once the window manager has (or gave up on it). */
  setGeometry: (id: number, geometry: Partial<Rect>) => Promise<void>
  /** Maximises the window; resolves once the window manager has (or ignored it). */
  maximize: (id: number) => Promise<void>
  /**
   * Asks the window manager to close the window as its close button would (the application may
   * still ask to save); resolves once it is gone from the client list, or the wait gave up.
   */
  closeWindow: (id: number) => Promise<void>
  /**
   * Starts a program (argv, no shell) on the desktop; it is ended when the driver closes.
   * `env` is added to its environment (the accessibility bus's addresses, so it exposes its tree);
   * `cwd` is its working directory (default the server's).
   */
  launch: (argv: readonly string[], env?: Readonly<Record<string, string>>, cwd?: string) => Promise<LaunchedApp>
}

/** What an X driver is made with: the display it acts on, and where it logs. */
export interface XDriverOptions {
  /** The X display, e.g. ':99'. */
  display: string
  log?: Log | undefined
}

/**
 * A driver of an X display, as drivers/supervised-desktop.ts runs it: it can be made ready
 * ahead of need (a spare for the next restart), and it says when its desktop is lost, so the
 * supervisor can bring the desktop back.
 */
export interface XDriver extends Driver {
  readonly display: string
  /** Loads what it can before touching the display, so a spare is quick to start. */
  prepare(): Promise<void>
  /** Calls `listener` with a reason when the desktop is lost after start() (X died or hangs). */
  onExit(listener: (reason: string) => void): void
}

/** An X driver's class: the supervisor makes one per X server, and knows its name before. */
export interface XDriverClass {
  /** The driver's name (`Driver.name`, its --driver). */
  readonly driverName: string
  /** Its instances' `inputInOrder`, known before one exists. */
  readonly inputInOrder?: boolean
  new (options: XDriverOptions): XDriver
}
