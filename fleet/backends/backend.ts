/**
 * The one contract between the fleet's control plane and an engine that runs desktops. The
 * control plane (fleet/fleet.ts) keeps no state of its own that a restart could lose: what a
 * desktop is (its facts) and whether a client holds it (its claim) are written to the engine,
 * once each, and read back by `list` when a new fleet process adopts what runs.
 *
 * Implementations: docker/ (the Docker Engine API through dockerode), swarm/ (its service API),
 * kubernetes/ (pods through @kubernetes/client-node), and the in-memory one the unit tests use
 * (test/helpers/memory-backend.ts), which keeps the same promises.
 */

import type { Autostart, BrowserKind, DesktopKind } from '../../src/runtime/desktop-apps.ts'
/** Every desktop's home directory, where its server's /files is rooted (DESKTOP_HOME). */
export const DESKTOP_HOME = '/home/node'

/** What a desktop is, fixed when it is created. */
export interface DesktopFacts {
  /** The fleet's own name for it: 16 lowercase hex digits. */
  id: string
  /** The bearer token its server takes; every desktop has its own. */
  token: string
  screen: { width: number, height: number }
  /** Its profile (the server's --desktop) and what it opens at start (--autostart). */
  desktop: DesktopKind
  autostart: Autostart[]
  /** Its web browser (the server's --browser): chromium also serves its DevTools at /browser/cdp. */
  browser: BrowserKind
  /** Epoch ms. */
  createdAt: number
}

/** That a client holds the desktop, and on what terms; written once, when it is handed out. */
export interface ClaimFacts {
  /** Epoch ms. */
  claimedAt: number
  /** Epoch ms after which the fleet ends the desktop (its TTL). */
  expiresAt: number
  /** The client's labels, already validated (fleet/schemas.ts). */
  labels: Record<string, string>
  /**
   * The id the client knows the desktop by, when it is not the desktop's own: a reset hands the
   * client a fresh desktop under the id it had (fleet.ts). Written with the claim, so a fleet
   * started after a crash serves it under the same id.
   */
  id?: string
}

/**
 * The engine's view of one desktop. `running`: its process runs (its server may not be ready
 * yet: readiness is the control plane's to probe); `paused`: frozen by `pause` (it uses no CPU
 * and answers nothing until `unpause`), which the engine itself remembers, so a fleet started
 * after a crash sees it; `exited`: it stopped or died and will not come back by itself.
 */
export interface Instance {
  facts: DesktopFacts
  claim?: ClaimFacts
  state: 'running' | 'paused' | 'exited'
  /** Base URL of the desktop's own server (http://127.0.0.1:PORT), while it runs. */
  url?: string
  /** Base URL of its OSWorld guest protocol (the server's --osworld), when the fleet runs desktops with it. */
  osworldUrl?: string
}

export interface Backend {
  /** Creates and starts a desktop, with its claim when it is created for a client; resolves once the engine runs it. */
  create (facts: DesktopFacts, claim?: ClaimFacts): Promise<Instance>
  /** Records the claim of a desktop created without one. Write-once: a second claim of the same desktop rejects. */
  claim (id: string, claim: ClaimFacts): Promise<void>
  /** The desktop as the engine sees it now; undefined once it is removed (or was never this fleet's). */
  inspect (id: string): Promise<Instance | undefined>
  /** Every desktop of this fleet the engine holds, running or exited. */
  list (): Promise<Instance[]>
  /** Freezes every process of the desktop (the engine's freezer). Idempotent: a paused desktop resolves. An engine without a freezer rejects with CannotPause. */
  pause (id: string): Promise<void>
  /** Thaws a paused desktop. Idempotent: a running one resolves. Its server's readiness is the control plane's to probe. */
  unpause (id: string): Promise<void>
  /** Ends the desktop and removes everything it had (home, claim). Idempotent: an unknown id resolves. */
  remove (id: string): Promise<void>
  /** Calls onExit with a desktop's id whenever one of this fleet's desktops stops; returns the way to stop watching. */
  watch (onExit: (id: string) => void): () => void
}

/** A second claim of one desktop: the control plane never does it, so it is a bug if it happens. */
export class AlreadyClaimed extends Error {
  constructor (id: string) {
    super(`desktop ${id} is already claimed`)
  }
}

/** An engine without a freezer (Swarm, Kubernetes) asked to pause or resume: the fleet answers 501 with this message. */
export class CannotPause extends Error {}
