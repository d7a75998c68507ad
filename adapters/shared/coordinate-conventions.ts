/**
 * The `?coordinates=` parameter of a dialect whose models write points in more than one
 * convention (pyautogui, UI-TARS): which convention names the adapter's version.
 */
import { Type } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'

/** The query schema and the version it names; `description` says what each convention is. */
export function coordinatesQuery<C extends string> (conventions: readonly C[], description: string) {
  return {
    query: Type.Object({ coordinates: Type.Optional(StringEnum([...conventions], { description })) }),
    version: (query: { coordinates?: C }) => query.coordinates,
  }
}
