/**
 * The X clipboard through xclip. An X selection is not data the server keeps: it is a
 * promise by a client (the owner) to answer every paste while it lives. set_clipboard
 * therefore starts an owner process per selection (`xclip -quiet -i`: it stays in the
 * foreground, so its PID is ours to end), which serves the content until another client takes
 * the selection (then it exits by itself: so it does when the next set_clipboard replaces it),
 * the desktop stops (close), or its X server dies (it dies with it). Reads ask the owner for
 * its TARGETS and then for the best of them.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { setTimeout as delay } from 'node:timers/promises'
import type { ClipboardContent, ClipboardSource, Selection } from '../../src/clipboard/source.ts'
import { ClipboardTimeout, DesktopUnavailable, TooLarge } from '../../src/errors/errors.ts'
import type { Log } from '../../src/runtime/logger.ts'
import { stopChild } from '../stop-child.ts'
import { xEnv } from './authority.ts'
import { diesWithUs } from './orphan.ts'

export interface XClipboardOptions {
  /** The display, once the desktop has one. */
  display: () => string | undefined
  /** Most bytes read or set. */
  maxBytes: number
  log?: Log | undefined
}

/** Text targets, best first: UTF-8 is exact for any text; STRING is Latin-1. */
const TEXT_TARGETS = ['UTF8_STRING', 'text/plain;charset=utf-8', 'text/plain', 'TEXT', 'STRING'] as const
const IMAGE_TARGET = 'image/png'
/** An owner that has not answered a request in this long is not going to. */
const READ_MS = 5000
/** How long a new owner may take to serve its content. */
const OWN_MS = 5000
/** How long one check that a new owner serves may wait for an answer. */
const POLL_MS = 1000
const STOP_GRACE_MS = 1000

interface Owner { child: ChildProcess, exited: Promise<void> }

export class XClipboard implements ClipboardSource {
  readonly #options: XClipboardOptions
  readonly #owners = new Map<Selection, Owner>()
  /** Replaced owners not yet gone. */
  readonly #retiring = new Set<Owner>()
  #closed = false

  constructor (options: XClipboardOptions) {
    this.#options = options
  }

  async read (selection: Selection, prefer?: 'text' | 'image'): Promise<ClipboardContent> {
    const display = this.#display()
    // Nobody owns it, or its owner answers no TARGETS: nothing we could read.
    // An owner that never answers is not "empty": xclip then waits, and only our timer ends it.
    const listed = await this.#output(display, selection, 'TARGETS').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new Error('xclip is not installed (scripts/install-system-deps.sh installs it)')
      if (error instanceof ClipboardTimeout) throw error
      return undefined
    })
    if (!listed) return { kind: 'empty' }
    const targets = new Set(listed.toString('latin1').split('\n').map((line) => line.trim()))
    const text = TEXT_TARGETS.find((target) => targets.has(target))
    const image = targets.has(IMAGE_TARGET)
    if (image && (!text || prefer === 'image')) return { kind: 'image', png: await this.#output(display, selection, IMAGE_TARGET) }
    if (!text) return { kind: 'empty' }
    const bytes = await this.#output(display, selection, text)
    return { kind: 'text', text: text === 'STRING' ? bytes.toString('latin1') : new TextDecoder().decode(bytes) }
  }

  async write (selection: Selection, content: Exclude<ClipboardContent, { kind: 'empty' }>): Promise<void> {
    const display = this.#display()
    const bytes = content.kind === 'text' ? Buffer.from(content.text, 'utf8') : content.png
    if (bytes.length > this.#options.maxBytes) throw new TooLarge(`the clipboard content is ${bytes.length} bytes, over the limit of ${this.#options.maxBytes} (--max-clipboard-bytes)`)
    const target = content.kind === 'text' ? 'UTF8_STRING' : IMAGE_TARGET
    const previous = this.#owners.get(selection)
    const owner = this.#own(display, selection, target, bytes)
    this.#owners.set(selection, owner)
    try {
      await this.#served(display, selection, target, bytes, owner)
    } finally {
      if (previous) this.#retire(previous)
    }
  }

  async close (): Promise<void> {
    this.#closed = true
    const owners = [...this.#owners.values(), ...this.#retiring]
    this.#owners.clear()
    this.#retiring.clear()
    await Promise.all(owners.map(({ child, exited }) => stopChild({ signal: (name) => child.kill(name), exited }, STOP_GRACE_MS)))
  }

  /**
   * A replaced owner is left to exit by itself: it has lost the selection, and leaves once it
   * has answered every request it already had. Ended at once, it could die between a paste's
   * request and its answer, and that paste would wait in vain (X sends the requestor nothing
   * when an owner dies). It is ended only if it is still there after as long as a reader waits.
   */
  #retire (owner: Owner): void {
    this.#retiring.add(owner)
    const timer = setTimeout(() => void stopChild({ signal: (name) => owner.child.kill(name), exited: owner.exited }, STOP_GRACE_MS), READ_MS)
    void owner.exited.then(() => {
      clearTimeout(timer)
      this.#retiring.delete(owner)
    })
  }

  #display (): string {
    const display = this.#options.display()
    if (this.#closed || !display) throw new DesktopUnavailable('the desktop is not ready (starting or restarting); retry shortly')
    return display
  }

  #own (display: string, selection: Selection, target: string, bytes: Buffer): Owner {
    const [file, args] = diesWithUs('xclip', ['-quiet', '-selection', selection, '-t', target, '-i'])
    const child = spawn(file, args, { env: { ...process.env, ...xEnv(display) }, stdio: ['pipe', 'ignore', 'ignore'] })
    const exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        if (this.#owners.get(selection)?.child === child) this.#owners.delete(selection)
        this.#options.log?.debug({ pid: child.pid, selection, code, signal }, 'clipboard owner exited')
        resolve()
      })
      child.once('error', () => resolve())
    })
    child.stdin!.on('error', () => {})
    child.stdin!.end(bytes)
    return { child, exited }
  }

  /** Waits until a paste of `selection` gets exactly `bytes`: the owner has taken it and serves it. */
  async #served (display: string, selection: Selection, target: string, bytes: Buffer, owner: Owner): Promise<void> {
    let gone = false
    void owner.exited.then(() => { gone = true })
    const started = performance.now()
    for (let wait = 5; performance.now() - started < OWN_MS; wait = Math.min(wait * 2, 100)) {
      if (gone) throw new Error(`xclip exited before it served the ${selection} selection (is xclip installed? scripts/install-system-deps.sh installs it)`)
      // Each check bounded well inside the whole wait: a request whose owner died before it
      // answered gets no answer at all, and must not take the whole wait with it.
      const got = await this.#output(display, selection, target, POLL_MS).catch(() => undefined)
      if (got?.equals(bytes)) return
      await delay(wait)
    }
    throw new Error(`the ${selection} selection did not serve the new content within ${OWN_MS} ms`)
  }

  /** One conversion of `selection` to `target`, bounded in bytes and time. */
  #output (display: string, selection: Selection, target: string, timeoutMs = READ_MS): Promise<Buffer> {
    const { maxBytes } = this.#options
    return new Promise((resolve, reject) => {
      const child = spawn('xclip', ['-selection', selection, '-o', '-t', target], { env: { ...process.env, ...xEnv(display) }, stdio: ['ignore', 'pipe', 'pipe'] })
      const chunks: Buffer[] = []
      let size = 0
      let failure: Error | undefined
      let stderr = ''
      const timer = setTimeout(() => {
        failure = new ClipboardTimeout(`the application that owns the ${selection} selection did not answer within ${timeoutMs / 1000} s (it may be hung or stopped), ` +
          'so its content could not be read; retry, or replace the content with set_clipboard')
        child.kill('SIGKILL')
      }, timeoutMs)
      child.stdout!.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > maxBytes) {
          failure ??= new TooLarge(`the ${selection} selection holds more than ${maxBytes} bytes (--max-clipboard-bytes)`)
          child.kill('SIGKILL')
          return
        }
        chunks.push(chunk)
      })
      child.stderr!.on('data', (chunk: Buffer) => { if (stderr.length < 1000) stderr += chunk.toString() })
      child.once('error', (error) => { failure ??= error })
      child.once('close', (code) => {
        clearTimeout(timer)
        if (failure) reject(failure)
        else if (code !== 0) reject(new Error(`xclip could not read the ${selection} selection as ${target}: ${stderr.trim() || `exit ${code}`}`))
        else resolve(Buffer.concat(chunks))
      })
    })
  }
}
