/**
 * Keysym names → numbers, for pressing keys by keycode. node-x11's table has the core keysyms
 * but none of XF86keysym.h; the XF86 keysyms of the canonical key vocabulary are added here
 * (values from XF86keysym.h; checked by the drivers' xev tests, which read them back by name).
 */
import keysymdef from 'x11/lib/keysyms.js'

const XF86: Readonly<Record<string, number>> = {
  XF86AudioLowerVolume: 0x1008ff11,
  XF86AudioMute: 0x1008ff12,
  XF86AudioRaiseVolume: 0x1008ff13,
  XF86AudioPlay: 0x1008ff14,
  XF86AudioStop: 0x1008ff15,
  XF86AudioPrev: 0x1008ff16,
  XF86AudioNext: 0x1008ff17,
  XF86HomePage: 0x1008ff18,
  XF86Mail: 0x1008ff19,
  XF86Search: 0x1008ff1b,
  XF86Calculator: 0x1008ff1d,
  XF86Back: 0x1008ff26,
  XF86Forward: 0x1008ff27,
  XF86Stop: 0x1008ff28,
  XF86Sleep: 0x1008ff2f,
  XF86Favorites: 0x1008ff30,
  XF86AudioMedia: 0x1008ff32,
  XF86MyComputer: 0x1008ff33,
  XF86Reload: 0x1008ff73,
}

/** The keysym number of an X keysym name ('Return', 'a', 'XF86Back'), or undefined. */
export function keysymCode (name: string): number | undefined {
  return keysymdef[`XK_${name}`]?.code ?? XF86[name]
}
