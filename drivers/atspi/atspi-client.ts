/**
 * One connection to an accessibility bus and the AT-SPI2 calls the walker makes
 * (org.a11y.atspi.Accessible, Component, Action, Text, Value over plain D-Bus messages). Every
 * call has a timeout, so a hung application delays a capture by at most that long.
 */
import { loadDbus, type Dbus } from './dbus.ts'
import type { AtspiRef } from '../../src/accessibility/source.ts'

const PROPERTIES = 'org.freedesktop.DBus.Properties'
export const REGISTRY_ROOT: AtspiRef = { bus: 'org.a11y.atspi.Registry', path: '/org/a11y/atspi/accessible/root' }
/** What AT-SPI answers for "no object". */
export const NULL_PATH = '/org/a11y/atspi/null'

const CALL_TIMEOUT_MS = 3000

export class AtspiClient {
  readonly #bus: ReturnType<Dbus['createClient']>
  #closed = false

  static async open (address: string): Promise<AtspiClient> {
    return new AtspiClient(await loadDbus(), address)
  }

  private constructor (dbus: Dbus, address: string) {
    this.#bus = dbus.createClient({ busAddress: address, plainValues: true, timeout: CALL_TIMEOUT_MS })
    // A dropped connection fails the calls in flight; the owner notices through alive().
    this.#bus.connection.on('error', () => {})
    this.#bus.connection.on('close', () => { this.#closed = true })
  }

  alive (): boolean { return !this.#closed }

  call<T> (ref: AtspiRef, iface: string, member: string, signature = '', body: unknown[] = []): Promise<T> {
    return Promise.resolve(this.#bus.invoke<T>({ destination: ref.bus, path: ref.path, interface: `org.a11y.atspi.${iface}`, member, signature, body }))
  }

  property<T> (ref: AtspiRef, iface: string, name: string): Promise<T> {
    return Promise.resolve(this.#bus.invoke<T>({ destination: ref.bus, path: ref.path, interface: PROPERTIES, member: 'Get', signature: 'ss', body: [`org.a11y.atspi.${iface}`, name] }))
  }

  properties (ref: AtspiRef, iface: string): Promise<Record<string, unknown>> {
    return Promise.resolve(this.#bus.invoke<Record<string, unknown>>({ destination: ref.bus, path: ref.path, interface: PROPERTIES, member: 'GetAll', signature: 's', body: [`org.a11y.atspi.${iface}`] }))
  }

  async children (ref: AtspiRef): Promise<AtspiRef[]> {
    const list = await this.call<Array<[string, string]>>(ref, 'Accessible', 'GetChildren')
    return list.filter(([, path]) => path !== NULL_PATH).map(([bus, path]) => ({ bus, path }))
  }

  async accessible (ref: AtspiRef): Promise<{ name: string, description: string }> {
    const all = await this.properties(ref, 'Accessible').catch(() => null)
    if (all) return { name: String(all.Name ?? ''), description: String(all.Description ?? '') }
    const [name, description] = await Promise.all([
      this.property<string>(ref, 'Accessible', 'Name').catch(() => ''),
      this.property<string>(ref, 'Accessible', 'Description').catch(() => ''),
    ])
    return { name, description }
  }

  roleName (ref: AtspiRef): Promise<string> { return this.call(ref, 'Accessible', 'GetRoleName') }
  state (ref: AtspiRef): Promise<[number, number]> { return this.call(ref, 'Accessible', 'GetState') }

  async interfaces (ref: AtspiRef): Promise<string[]> {
    const names = await this.call<string[]>(ref, 'Accessible', 'GetInterfaces')
    return names.map((name) => name.replace(/^org\.a11y\.atspi\./, ''))
  }

  attributes (ref: AtspiRef): Promise<Record<string, string>> {
    return this.call<Record<string, string>>(ref, 'Accessible', 'GetAttributes').catch(() => ({}))
  }

  /** Screen coordinates (ATSPI_COORD_TYPE_SCREEN = 0). */
  extents (ref: AtspiRef): Promise<[number, number, number, number]> {
    return this.call(ref, 'Component', 'GetExtents', 'u', [0])
  }

  /** Coordinates relative to the top-level window's client area (ATSPI_COORD_TYPE_WINDOW = 1). */
  windowExtents (ref: AtspiRef): Promise<[number, number, number, number]> {
    return this.call(ref, 'Component', 'GetExtents', 'u', [1])
  }

  /**
   * Action names by Action.GetName: GetActions answers with empty names in Chromium.
   */
  async actionNames (ref: AtspiRef): Promise<string[]> {
    const count = await this.property<number>(ref, 'Action', 'NActions')
    const names = await Promise.all(Array.from({ length: Math.min(count, 16) }, (_, i) =>
      this.call<string>(ref, 'Action', 'GetName', 'i', [i]).catch(() => '')))
    return names.filter(Boolean)
  }

  async text (ref: AtspiRef, max: number): Promise<string> {
    const count = await this.property<number>(ref, 'Text', 'CharacterCount')
    if (count <= 0) return ''
    return this.call<string>(ref, 'Text', 'GetText', 'ii', [0, Math.min(count, max)])
  }

  async value (ref: AtspiRef): Promise<{ current: number, min: number, max: number }> {
    const all = await this.properties(ref, 'Value')
    return { current: Number(all.CurrentValue), min: Number(all.MinimumValue), max: Number(all.MaximumValue) }
  }

  /** The objects related to this one by `type` (AtspiRelationType, e.g. 2 = LABELLED_BY). */
  async related (ref: AtspiRef, type: number): Promise<AtspiRef[]> {
    const relations = await this.call<Array<[number, Array<[string, string]>]>>(ref, 'Accessible', 'GetRelationSet')
    return relations.filter(([kind]) => kind === type).flatMap(([, targets]) => targets.map(([bus, path]) => ({ bus, path })))
  }

  /** Action names in index order, '' where the application names none (DoAction takes the index). */
  async actionList (ref: AtspiRef): Promise<string[]> {
    const count = await this.property<number>(ref, 'Action', 'NActions')
    return Promise.all(Array.from({ length: Math.min(count, 16) }, (_, i) =>
      this.call<string>(ref, 'Action', 'GetName', 'i', [i]).catch(() => '')))
  }

  doAction (ref: AtspiRef, index: number): Promise<boolean> { return this.call(ref, 'Action', 'DoAction', 'i', [index]) }
  grabFocus (ref: AtspiRef): Promise<boolean> { return this.call(ref, 'Component', 'GrabFocus') }
  setTextContents (ref: AtspiRef, text: string): Promise<boolean> { return this.call(ref, 'EditableText', 'SetTextContents', 's', [text]) }

  async valueWithStep (ref: AtspiRef): Promise<{ current: number, min: number, max: number, step: number }> {
    const all = await this.properties(ref, 'Value')
    return { current: Number(all.CurrentValue), min: Number(all.MinimumValue), max: Number(all.MaximumValue), step: Number(all.MinimumIncrement) || 0 }
  }

  /** Writes Value.CurrentValue (a double). */
  async setValue (ref: AtspiRef, value: number): Promise<void> {
    await this.#bus.invoke({
      destination: ref.bus, path: ref.path, interface: PROPERTIES, member: 'Set', signature: 'ssv', body: ['org.a11y.atspi.Value', 'CurrentValue', ['d', value]],
    })
  }

  async parent (ref: AtspiRef): Promise<AtspiRef | null> {
    const [bus, path] = await this.property<[string, string]>(ref, 'Accessible', 'Parent')
    return path === NULL_PATH ? null : { bus, path }
  }

  indexInParent (ref: AtspiRef): Promise<number> { return this.call(ref, 'Accessible', 'GetIndexInParent') }
  selectChild (ref: AtspiRef, index: number): Promise<boolean> { return this.call(ref, 'Selection', 'SelectChild', 'i', [index]) }

  /** The process id behind a bus name on this bus. */
  pid (busName: string): Promise<number> {
    return Promise.resolve(this.#bus.invoke<number>({
      destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus',
      member: 'GetConnectionUnixProcessID', signature: 's', body: [busName],
    }))
  }

  close (): void {
    this.#closed = true
    this.#bus.connection.end()
  }
}
