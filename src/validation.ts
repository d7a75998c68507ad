/**
 * How schemas become validation. Two Ajv instances, chosen by the part of the request:
 * - bodies are strict: no type coercion, no silent removal of unknown fields (a misspelt
 *   field must be a 400, not a no-op), every error collected so ajv-errors can replace them
 *   with the seed's own messages;
 * - query strings coerce, since "true" and "1024" arrive as text.
 * Errors are turned into one sentence a person can act on by `formatValidationErrors`.
 */
import AjvModule, { type ErrorObject, type AnySchema } from 'ajv'
import ajvErrorsModule from 'ajv-errors'
import type { FastifySchemaValidationError } from 'fastify/types/schema.js'
import { ACTION_KINDS } from './actions/index.ts'

// Both packages are CJS with `exports.default`; under NodeNext the default import is the module.
const Ajv = AjvModule.default
const ajvErrors = ajvErrorsModule.default

interface ValidatorRequest {
  schema: AnySchema
  httpPart?: string
}

export function createValidatorCompiler (sharedSchemas: AnySchema[]) {
  const body = new Ajv({
    allErrors: true,
    coerceTypes: false,
    removeAdditional: false,
    useDefaults: false,
    discriminator: true,
    verbose: true,
    strict: false,
  })
  ajvErrors(body, { singleError: true })
  const query = new Ajv({
    coerceTypes: true,
    removeAdditional: false,
    useDefaults: true,
    allErrors: false,
    strict: false,
    verbose: true,
  })
  for (const schema of sharedSchemas) {
    body.addSchema(schema)
    query.addSchema(schema)
  }
  return ({ schema, httpPart }: ValidatorRequest) =>
    (httpPart === 'body' ? body : query).compile(schema)
}

const describePath = (instancePath: string) =>
  instancePath
    .split('/')
    .slice(1)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : `${i === 0 ? '' : '.'}${part}`))
    .join('')

/** Where in a batch the error is, as `actions[3]: `, or nothing for a single action. */
function batchPrefix (instancePath: string): { prefix: string, rest: string } {
  const match = /^\/actions\/(\d+)(\/.*)?$/.exec(instancePath)
  if (!match) return { prefix: '', rest: instancePath }
  return { prefix: `actions[${match[1]}]: `, rest: match[2] ?? '' }
}

function fieldsOf (schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties
  return properties ? Object.keys(properties) : []
}

/** The values a discriminated union accepts: inline consts, or the unified action kinds. */
function tagValues (schema: unknown, tag: string): string[] {
  const oneOf = (schema as { oneOf?: Array<{ properties?: Record<string, { const?: string }> }> }).oneOf ?? []
  const inline = oneOf.map((member) => member.properties?.[tag]?.const).filter((k): k is string => !!k)
  return inline.length || tag !== 'action' ? inline : [...ACTION_KINDS]
}

function describe (error: ErrorObject, dataVar: string): string {
  const { prefix, rest } = batchPrefix(error.instancePath)
  const where = describePath(rest)
  const subject = where || (prefix ? 'action' : dataVar)
  const data = error.parentSchema ? (error.data as Record<string, unknown> | undefined) : undefined
  const action = typeof data === 'object' && data && typeof data.action === 'string' ? data.action : undefined
  switch (error.keyword) {
    case 'errorMessage':
      return prefix + error.message
    case 'discriminator': {
      const params = error.params as { error: string, tag: string, tagValue: unknown }
      const kinds = tagValues(error.parentSchema, params.tag).join(', ')
      if (params.tagValue === undefined) return `${prefix}missing field '${params.tag}' (one of: ${kinds})`
      return `${prefix}unknown ${params.tag} ${JSON.stringify(params.tagValue)} (one of: ${kinds})`
    }
    case 'additionalProperties': {
      const field = (error.params as { additionalProperty: string }).additionalProperty
      const allowed = fieldsOf(error.parentSchema).join(', ')
      const owner = action ? ` for action '${action}'` : where ? ` in ${where}` : ''
      return `${prefix}unknown field '${field}'${owner} (allowed: ${allowed})`
    }
    case 'required': {
      const field = (error.params as { missingProperty: string }).missingProperty
      const owner = action ? ` for action '${action}'` : where ? ` in ${where}` : ''
      const choices = field === 'action' ? ` (one of: ${ACTION_KINDS.join(', ')})` : ''
      return `${prefix}missing required field '${field}'${owner}${choices}`
    }
    case 'type':
      if (!where && !prefix) return `${dataVar} must be a JSON object`
      return `${prefix}${subject} ${error.message}`
    default:
      return `${prefix}${subject} ${error.message}`
  }
}

/**
 * One message for a failed validation: the first error, since the seed's clients expect one
 * sentence (the seed's validators stop at the first failure too).
 */
export function formatValidationErrors (
  errors: FastifySchemaValidationError[] | ErrorObject[],
  dataVar: string,
): string {
  // ajv-errors' singleError mode can leave an empty placeholder before the real message.
  const first = (errors as ErrorObject[]).find((e) => e.keyword !== 'errorMessage' || e.message)
  if (!first) return `${dataVar} is invalid`
  return describe(first, dataVar === 'querystring' ? 'query' : dataVar)
}
