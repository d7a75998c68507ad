/**
 * The accessibility bus on a real X display. Our launcher must be the one that answers: asked
 * too early by its well-known name, the session bus activates a launcher of its own, without
 * DISPLAY (its bus is not the display's), and ours, losing the name, exits a moment later —
 * the bus then had to be started again under applications already given the first address.
 * A race, so the bus is started many times; each must be the display's and still alive.
 */
import { setTimeout as delay } from 'node:timers/promises'
import t from 'tap'
import { startA11yBus, type A11yBus } from '../drivers/atspi/bus.ts'
import { readBusAddress } from '../drivers/atspi/root-address.ts'
import { startDesktop } from './helpers/desktop.ts'

const STARTS = 15

t.test(`started ${STARTS} times, the bus is the display's, published there, and stays up`, async (t) => {
  const xvfb = await startDesktop(t, '640x480x24')
  const socket = `bus_${xvfb.display.slice(1)}`
  const wrong: string[] = []
  for (let i = 0; i < STARTS; i++) {
    let bus: A11yBus | undefined
    t.teardown(() => bus?.close())
    bus = await startA11yBus({ display: xvfb.display })
    // The launcher that lost the name exits within a few ms of the winner's answer.
    await delay(300)
    const published = await readBusAddress(xvfb.display)
    if (!bus.address.includes(socket) || !bus.alive() || published !== bus.address) wrong.push(`${i}: ${bus.address}, alive ${bus.alive()}, on the root window ${published}`)
    await bus.close()
    t.notOk(bus.alive(), `start ${i}: closed`)
  }
  t.strictSame(wrong, [], `every bus on ${socket} and alive`)
})
