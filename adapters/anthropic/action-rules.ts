/**
 * Which fields each action takes, as JSON Schema conditions on the version's flat input
 * object. The tool's real input_schema is one object with every field optional; the rules
 * say per action what is required and what is refused, so a payload that the reference
 * implementation would reject is a 400 naming the action and the version, before anything
 * runs. Conditions on the root run before `properties`, so their message is the one reported.
 */
import type { Field } from './fields.ts'

export interface ActionRule {
  required?: readonly Field[]
  optional?: readonly Field[]
  /** Tighter bounds on a field for this action, with their own message. */
  bounds?: Partial<Record<Field, Record<string, unknown>>>
  /** Appended to a refusal, e.g. how to do it instead. */
  note?: string
}

export type ActionTable = Readonly<Record<string, ActionRule>>

export interface VersionActions {
  version: string
  /** The fields the version's input has. */
  fields: readonly Field[]
  actions: ActionTable
}

const when = (action: string, then: Record<string, unknown>) => ({
  if: { properties: { action: { const: action } }, required: ['action'] },
  then,
})

const refusal = (message: string) => ({ not: {}, errorMessage: message })

/** The `allOf` of a version's input schema: its own actions' rules, then the actions only other versions have. */
export function actionRules (version: VersionActions, others: readonly VersionActions[]): Array<Record<string, unknown>> {
  const own = Object.entries(version.actions).map(([action, rule]) => {
    const allowed = [...(rule.required ?? []), ...(rule.optional ?? [])]
    const takes = allowed.length ? `it takes ${allowed.join(', ')}` : 'it takes no other field'
    const refused = version.fields.filter((field) => !allowed.includes(field))
    return when(action, {
      ...(rule.required?.length && { required: [...rule.required] }),
      properties: {
        ...Object.fromEntries(refused.map((field) => [field, refusal(
          `${field} is not accepted for action '${action}' in ${version.version} (${takes}${rule.note ? `; ${rule.note}` : ''})`)])),
        ...rule.bounds,
      },
    })
  })
  const elsewhere = new Map<string, string[]>()
  for (const other of others) {
    for (const action of Object.keys(other.actions)) {
      if (action in version.actions) continue
      elsewhere.set(action, [...(elsewhere.get(action) ?? []), other.version])
    }
  }
  const foreign = [...elsewhere].map(([action, versions]) => when(action, {
    properties: {
      action: refusal(`action '${action}' is not in ${version.version}; it exists in ${versions.join(' and ')} (choose the version with the tool_version query)`),
    },
  }))
  return [...own, ...foreign]
}
