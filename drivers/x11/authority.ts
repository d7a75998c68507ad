/**
 * The X authority of the Xvfbs this process starts. Without it any local user could connect
 * to the desktop (Xvfb's socket is world-writable) and type into it, bypassing the token.
 * Each Xvfb gets a fresh MIT-MAGIC-COOKIE-1; all of them are kept in one Xauthority file in
 * a private directory, and XAUTHORITY points this process' environment at it, so every child
 * we start on our displays (the nut worker, the window manager, xdotool, launched
 * applications, the accessibility bus) presents the cookie the way Xlib does. The pure-JS
 * connections (connect.ts, probe.ts) take the cookie from here directly.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const COOKIE_NAME = 'MIT-MAGIC-COOKIE-1'
/** libXau's FamilyWild: the entry matches whatever address the client connects by. */
const FAMILY_WILD = 65535

const cookies = new Map<number, Buffer>()
let directory: string | undefined

function file (): string {
  if (!directory) {
    directory = mkdtempSync(join(tmpdir(), 'computer-gateway-xauth-'))
    process.once('exit', () => rmSync(directory!, { recursive: true, force: true }))
  }
  return join(directory, 'Xauthority')
}

function field (value: Buffer): Buffer {
  const length = Buffer.alloc(2)
  length.writeUInt16BE(value.length)
  return Buffer.concat([length, value])
}

function write (): string {
  const path = file()
  const entries = [...cookies].map(([number, cookie]) => Buffer.concat([
    Buffer.from([FAMILY_WILD >> 8, FAMILY_WILD & 0xff]),
    field(Buffer.alloc(0)),
    field(Buffer.from(String(number))),
    field(Buffer.from(COOKIE_NAME)),
    field(cookie),
  ]))
  // Renamed into place: an Xlib client reading it meanwhile sees the old file or the new.
  writeFileSync(`${path}.new`, Buffer.concat(entries), { mode: 0o600 })
  renameSync(`${path}.new`, path)
  return path
}

/**
 * The cookie for display `number`, written before its Xvfb starts (`-auth` reads it then).
 * XAUTHORITY of this process now names the file. An Xvfb restarted on the same number gets
 * the same cookie: clients that outlive an X server and connect to its successor (the
 * accessibility registry, applications finding the bus on the new root window) keep working.
 */
export function addCookie (number: number): { path: string, cookie: Buffer } {
  const cookie = cookies.get(number) ?? randomBytes(16)
  cookies.set(number, cookie)
  const path = write()
  process.env.XAUTHORITY = path
  return { path, cookie }
}

/** The cookie of one of our displays (':99', ':99.0'); undefined for a display we did not start. */
export function cookieFor (display: string): Buffer | undefined {
  const match = /^(?:unix)?:(\d+)(?:\.\d+)?$/.exec(display)
  return match ? cookies.get(Number(match[1])) : undefined
}

/** DISPLAY and the XAUTHORITY to reach it with, for a child's environment. */
export function xEnv (display: string): { DISPLAY: string, XAUTHORITY?: string } {
  return cookieFor(display) ? { DISPLAY: display, XAUTHORITY: file() } : { DISPLAY: display }
}
