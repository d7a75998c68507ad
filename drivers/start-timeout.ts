/**
 * How long a desktop's parts may take to answer at start (Xvfb's handshake, the driver's probe,
 * its worker getting ready) before the start fails. Long, because a host starting many servers
 * at once (after a reboot) or with both cores taken by other desktops is slow, not broken:
 * twenty servers started together on two cores saw Xvfb take over 10 s to answer. Bounded, so a
 * start that cannot succeed still says why.
 */
export const START_TIMEOUT_MS = 45_000
