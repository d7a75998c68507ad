/**
 * Acting on one accessible object (the spec's ElementControl) over AT-SPI2: its state, actions,
 * interfaces and extents read again, Action.DoAction, Component.GrabFocus, Value.CurrentValue,
 * EditableText.SetTextContents and Selection.SelectChild on its parent. An object that no
 * longer exists — D-Bus's UnknownObject, its application gone from the bus (before or during
 * the call), or the DEFUNCT state toolkits leave on destroyed objects — is ElementGone.
 */
import type { AtspiRef, ElementControl, LiveElement } from '../../src/accessibility/source.ts'
import { ElementGone } from '../../src/accessibility/source.ts'
import { hasState } from '../../src/accessibility/states.ts'
import type { AtspiClient } from './atspi-client.ts'
import { frameOf, placed, topLevelOf } from './placement.ts'

/** AtspiStateType DEFUNCT: the object was destroyed. */
const DEFUNCT = 6

const GONE = new Set([
  'org.freedesktop.DBus.Error.UnknownObject',
  'org.freedesktop.DBus.Error.ServiceUnknown',
  'org.freedesktop.DBus.Error.NameHasNoOwner',
])
/** Every object has org.a11y.atspi.Accessible: no such method there means no such object. */
const GONE_ON_ACCESSIBLE = new Set([...GONE, 'org.freedesktop.DBus.Error.UnknownMethod'])

function isGone (error: unknown, names: ReadonlySet<string>): boolean {
  const name = (error as { dbusName?: unknown }).dbusName
  if (typeof name !== 'string') return false
  // The bus's NoReply for an application that left it mid-call (it died); a call that timed
  // out locally has the same name, and another message.
  return names.has(name) || (name === 'org.freedesktop.DBus.Error.NoReply' && /disconnected/i.test((error as Error).message))
}

/**
 * `current` tells whether an object was read from the bus of the moment: one read from a bus
 * since replaced is gone, even if the new bus gave its name to another application.
 */
export function atspiElements (connect: () => Promise<AtspiClient>, current: (ref: AtspiRef) => boolean): ElementControl {
  const guarded = async <T>(ref: AtspiRef, fn: (client: AtspiClient) => Promise<T>, names = GONE): Promise<T> => {
    const client = await connect()
    if (!current(ref)) throw new ElementGone(`${ref.bus}${ref.path} was read from an accessibility bus that has since been replaced`)
    try {
      return await fn(client)
    } catch (error) {
      if (isGone(error, names)) throw new ElementGone(`${ref.bus}${ref.path}: ${(error as Error).message}`)
      throw error
    }
  }
  return {
    inspect: (ref) => guarded(ref, async (client): Promise<LiveElement> => {
      const [states, interfaces] = await Promise.all([client.state(ref), client.interfaces(ref)])
      if (hasState(states, DEFUNCT)) throw new ElementGone(`${ref.bus}${ref.path} is defunct`)
      const [actions, extents] = await Promise.all([
        interfaces.includes('Action') ? client.actionList(ref) : [],
        interfaces.includes('Component') ? placedAnywhere(client, ref) : null,
      ])
      return { states, interfaces, actions, extents }
    }, GONE_ON_ACCESSIBLE),
    doAction: (ref, index) => guarded(ref, (client) => client.doAction(ref, index)),
    grabFocus: (ref) => guarded(ref, (client) => client.grabFocus(ref)),
    value: (ref) => guarded(ref, (client) => client.valueWithStep(ref)),
    setValue: (ref, value) => guarded(ref, (client) => client.setValue(ref, value)),
    setText: (ref, text) => guarded(ref, (client) => client.setTextContents(ref, text)),
    select: (ref) => guarded(ref, async (client) => {
      const parent = await client.parent(ref)
      if (!parent || !(await client.interfaces(parent)).includes('Selection')) return false
      const index = await client.indexInParent(ref)
      return index >= 0 && await client.selectChild(parent, index)
    }),
  }
}

/** Where an object is drawn, its top-level window looked up (a capture knows it from the walk). */
async function placedAnywhere (client: AtspiClient, ref: AtspiRef): Promise<[number, number, number, number] | null> {
  const top = await topLevelOf(client, ref).catch(() => null)
  const frame = top && top.path !== ref.path ? await frameOf(client, top) : null
  return placed(client, ref, frame, client.extents(ref).catch(() => null))
}
