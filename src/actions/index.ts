/**
 * The unified action space: the seed's nine actions plus the window, accessibility and clipboard extensions, discriminated
 * by `action`. This is the spec every adapter translates into; treat any change here as
 * breaking.
 */
import { Type, type Static } from '@sinclair/typebox'
import { DEFAULT_LIMITS, limitMessages, type Limits } from './limits.ts'
import { clickMouseSchema, dragMouseSchema, moveMouseSchema, scrollSchema } from './mouse.ts'
import { pressKeySchema, typeTextSchema } from './keyboard.ts'
import { getCursorPositionSchema, takeScreenshotSchema, waitSchema } from './utility.ts'
import {
  focusWindowSchema, launchAppSchema, listWindowsSchema, setWindowGeometrySchema, WindowInfo, WindowSelector,
} from './window.ts'
import { elementActionSchema, ElementOutcome, getAccessibilityTreeSchema } from './accessibility.ts'
import { ClipboardContentSchema, getClipboardSchema, setClipboardSchema } from './clipboard.ts'
import { bashSchema, CommandResultSchema, editSchema, runCommandSchema } from './tools.ts'
import { requestHumanSchema } from './human.ts'
import { HumanAnswerSchema } from '../control/schema.ts'

export { DEFAULT_LIMITS, LIMIT_FLAGS, limitMessages, type Limits } from './limits.ts'
export { MOUSE_BUTTONS } from './common.ts'
export { WindowInfo, WindowSelector } from './window.ts'
export { ElementOutcome } from './accessibility.ts'
export { ClipboardContentSchema } from './clipboard.ts'
export { CommandResultSchema } from './tools.ts'

const members = (limits: Limits) => [
  moveMouseSchema(limits),
  clickMouseSchema(limits),
  dragMouseSchema(limits),
  scrollSchema(limits),
  pressKeySchema(limits),
  typeTextSchema(limits),
  waitSchema(limits),
  takeScreenshotSchema(),
  getCursorPositionSchema(),
  listWindowsSchema(),
  focusWindowSchema(),
  launchAppSchema(),
  setWindowGeometrySchema(),
  getAccessibilityTreeSchema(),
  elementActionSchema(limits),
  getClipboardSchema(),
  setClipboardSchema(limits),
  runCommandSchema(),
  bashSchema(),
  editSchema(),
  requestHumanSchema(),
] as const

type Member = ReturnType<typeof members>[number]
export type UnifiedAction = Static<Member>
export type ActionKind = UnifiedAction['action']
/** One action kind's type, e.g. `ActionOf<'click_mouse'>`. */
export type ActionOf<K extends ActionKind> = Extract<UnifiedAction, { action: K }>

/** Builds the schemas for the given limits (the bounds are part of the schemas). */
export function buildActionSchemas (limits: Limits = DEFAULT_LIMITS) {
  const all = members(limits)
  // oneOf + discriminator (not TypeBox's anyOf) lets Ajv validate only the branch that
  // `action` names, so errors speak of that action, and OpenAPI gets a real discriminator.
  // Each member is a named, shared schema, so OpenAPI generators get one class per action.
  const named = all.map((member) => ({ ...member, $id: member.title }))
  const UnifiedAction = Type.Unsafe<UnifiedAction>({
    $id: 'UnifiedAction',
    title: 'UnifiedAction',
    description: 'One action of the unified action space, discriminated by `action`.',
    type: 'object',
    required: ['action'],
    discriminator: { propertyName: 'action' },
    oneOf: named.map((member) => ({ $ref: member.$id })),
  })
  const ActionBatch = Type.Object({
    actions: Type.Array(Type.Ref(UnifiedAction), {
      minItems: 1,
      maxItems: limits.maxBatchActions,
      errorMessage: {
        minItems: 'actions cannot be empty',
        maxItems: limitMessages(limits).batch,
      },
    }),
  }, { additionalProperties: false, $id: 'ActionBatch', title: 'ActionBatch' })
  // WindowInfo and ElementOutcome are here (not with the responses) so every schema a response refers to is shared with the actions.
  return { limits, UnifiedAction, ActionBatch, shared: [WindowSelector, WindowInfo, ElementOutcome, ClipboardContentSchema, CommandResultSchema, HumanAnswerSchema, ...named, UnifiedAction, ActionBatch] }
}

export const ACTION_KINDS: readonly ActionKind[] = members(DEFAULT_LIMITS).map((m) => m.properties.action.const)
