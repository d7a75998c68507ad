/**
 * A desktop's facts and claim as Docker labels, and back. Labels are write-once on Docker (a
 * container's or a volume's are fixed when it is created), which is what these facts are: the
 * facts go on the container and its home volume, a claim made later goes on a volume of its own
 * created at that moment (docker-backend.ts).
 *
 * The token is a label too, so that a fleet started after a crash hands out the same token for
 * the same desktop. Labels are readable by whoever can reach the Docker socket, and that person
 * is root on the host already (they could read the container's environment, or its memory),
 * so this reveals nothing a label-free design would keep from them. The fleet's API never
 * returns labels of its own nor reaches the socket for a client.
 */
import type { ClaimFacts, DesktopFacts } from '../backend.ts'
import { BROWSER_KINDS, DESKTOP_KINDS, type Autostart, type BrowserKind, type DesktopKind } from '../../../src/runtime/desktop-apps.ts'

function parseJson (text: string): any {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export const PREFIX = 'computer-gateway.fleet'
export const LABEL = {
  fleet: PREFIX,
  kind: `${PREFIX}.kind`,
  id: `${PREFIX}.desktop`,
  token: `${PREFIX}.token`,
  screen: `${PREFIX}.screen`,
  createdAt: `${PREFIX}.created-at`,
  claimedAt: `${PREFIX}.claimed-at`,
  expiresAt: `${PREFIX}.expires-at`,
  labels: `${PREFIX}.labels`,
  profile: `${PREFIX}.profile`,
  autostart: `${PREFIX}.autostart`,
  browser: `${PREFIX}.browser`,
  alias: `${PREFIX}.client-id`,
} as const

/** What a Docker object of the fleet is: a desktop's container, its home, or its claim. */
export type Kind = 'desktop' | 'home' | 'claim'

export function ownership (fleetId: string, kind: Kind, id: string): Record<string, string> {
  return { [LABEL.fleet]: fleetId, [LABEL.kind]: kind, [LABEL.id]: id }
}

export function factLabels (facts: DesktopFacts): Record<string, string> {
  return {
    [LABEL.token]: facts.token,
    [LABEL.screen]: `${facts.screen.width}x${facts.screen.height}`,
    [LABEL.createdAt]: String(facts.createdAt),
    [LABEL.profile]: facts.desktop,
    [LABEL.autostart]: JSON.stringify(facts.autostart),
    [LABEL.browser]: facts.browser,
  }
}

export function claimLabels (claim: ClaimFacts): Record<string, string> {
  return {
    [LABEL.claimedAt]: String(claim.claimedAt),
    [LABEL.expiresAt]: String(claim.expiresAt),
    [LABEL.labels]: JSON.stringify(claim.labels),
    ...(claim.id && { [LABEL.alias]: claim.id }),
  }
}

/** The facts of a container's labels; undefined when they are not whole (not written by this code). */
export function readFacts (labels: Record<string, string>): DesktopFacts | undefined {
  const screen = /^(\d+)x(\d+)$/.exec(labels[LABEL.screen] ?? '')
  const createdAt = Number(labels[LABEL.createdAt])
  const id = labels[LABEL.id]
  const token = labels[LABEL.token]
  if (!screen || !id || !token || !Number.isFinite(createdAt)) return undefined
  // A desktop created before profiles were labelled is the image's default: the full desktop, nothing autostarted.
  const desktop = labels[LABEL.profile] ?? 'full'
  const autostart = parseJson(labels[LABEL.autostart] ?? '[]')
  // One labelled before browsers were: the server's default, Firefox.
  const browser = labels[LABEL.browser] ?? 'firefox'
  if (!(DESKTOP_KINDS as readonly string[]).includes(desktop) || !Array.isArray(autostart) || !(BROWSER_KINDS as readonly string[]).includes(browser)) return undefined
  if (!autostart.every((a) => typeof a === 'object' && a !== null && typeof a.app === 'string' && (a.target === undefined || typeof a.target === 'string'))) return undefined
  return { id, token, screen: { width: Number(screen[1]), height: Number(screen[2]) }, desktop: desktop as DesktopKind, autostart: autostart as Autostart[], browser: browser as BrowserKind, createdAt }
}

export function readClaim (labels: Record<string, string>): ClaimFacts | undefined {
  const claimedAt = Number(labels[LABEL.claimedAt])
  const expiresAt = Number(labels[LABEL.expiresAt])
  if (labels[LABEL.claimedAt] === undefined || !Number.isFinite(claimedAt) || !Number.isFinite(expiresAt)) return undefined
  try {
    const parsed: unknown = JSON.parse(labels[LABEL.labels] ?? '{}')
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined
    if (!Object.values(parsed).every((value) => typeof value === 'string')) return undefined
    const alias = labels[LABEL.alias]
    return { claimedAt, expiresAt, labels: parsed as Record<string, string>, ...(alias && { id: alias }) }
  } catch {
    return undefined
  }
}
