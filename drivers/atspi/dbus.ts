/**
 * dbus-native, loaded at the first accessibility call: a server whose clients never read the
 * tree does not pay its ~100 ms of start-up and ~13 MB.
 */
import type DbusNative from 'dbus-native'

export type Dbus = typeof DbusNative

let loading: Promise<Dbus> | undefined

export function loadDbus (): Promise<Dbus> {
  loading ??= import('dbus-native').then((module) => module.default)
  return loading
}
