/**
 * How schemas become validation. Two Ajv instances, chosen by the part of the request:
 * - bodies are strict: no type coercion, no silent removal of unknown fields (a misspelt
 *   field must be a 400, not a no-op), every error collected so ajv-errors can replace them
 *   with the seed's own messages;
 * - query strings coerce, since "true" and "1024" arrive as text.
 * Errors are turned into one sentence a person can act on by `formatValidationErrors`.
 */
import AjvModule, { type ErrorObject, type AnySchema, type ValidateFunction } from 'ajv'
import ajvErrorsModule from 'ajv-errors'
import type { FastifySchemaValidationError } from 'fastify/types/schema.js'
import { ACTION_KINDS } from '../actions/index.ts'
import { validatorOnFirstUse } from '../http/compile-on-first-use.ts'
import { AJV_CODE } from './ajv-code.ts'

// Both packages are CJS with `exports.default`; under NodeNext the default import is the module.
const Ajv = AjvModule.default
const ajvErrors = ajvErrorsModule.default

interface ValidatorRequest {
  schema: AnySchema
  httpPart?: string
}

/**
 * Each validator is compiled at its first use (`compile-on-first-use.ts`), and once per process
 * for each distinct set of shared schemas and each route schema: a process that builds the app
 * again (the tests build hundreds) gets the same validators.
 */
const compilers = new Map<string, (request: ValidatorRequest) => ValidateFunction>()

export function createValidatorCompiler (sharedSchemas: AnySchema[]) {
  const key = JSON.stringify(sharedSchemas)
  let compiler = compilers.get(key)
  if (!compiler) {
    compiler = newCompiler(sharedSchemas)
    compilers.set(key, compiler)
  }
  return compiler
}

function newCompiler (sharedSchemas: AnySchema[]) {
  // Made at the first compilation too: adding the shared schemas checks each against the meta-schema.
  let instances: { body: InstanceType<typeof Ajv>, query: InstanceType<typeof Ajv> } | undefined
  const ajv = (part: 'body' | 'query') => (instances ??= newInstances(sharedSchemas))[part]
  const compiled = new Map<string, ValidateFunction>()
  return ({ schema, httpPart }: ValidatorRequest): ValidateFunction => {
    const part = httpPart === 'body' ? 'body' : 'query'
    const id = `${part} ${JSON.stringify(schema)}`
    let validate = compiled.get(id)
    if (!validate) {
      validate = validatorOnFirstUse(() => ajv(part).compile(schema))
      compiled.set(id, validate)
    }
    return validate
  }
}

function newInstances (sharedSchemas: AnySchema[]) {
  const body = new Ajv({
    allErrors: true,
    coerceTypes: false,
    removeAdditional: false,
    useDefaults: false,
    discriminator: true,
    verbose: true,
    strict: false,
    code: AJV_CODE,
  })
  ajvErrors(body, { singleError: true })
  const query = new Ajv({
    coerceTypes: true,
    removeAdditional: false,
    useDefaults: true,
    allErrors: false,
    strict: false,
    verbose: true,
    code: AJV_CODE,
  })
  for (const schema of sharedSchemas) {
    body.addSchema(schema)
    query.addSchema(schema)
  }
  return { body, query }
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
function tagValues (schema: unknown, tag: string, kinds: readonly string[]): string[] {
  const oneOf = (schema as { oneOf?: Array<{ properties?: Record<string, { const?: string }> }> }).oneOf ?? []
  const inline = oneOf.map((member) => member.properties?.[tag]?.const).filter((k): k is string => !!k)
  return inline.length || tag !== 'action' ? inline : [...kinds]
}

function describe (error: ErrorObject, dataVar: string, kinds: readonly string[]): string {
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
      const values = tagValues(error.parentSchema, params.tag, kinds).join(', ')
      if (params.tagValue === undefined) return `${prefix}missing field '${params.tag}' (one of: ${values})`
      return `${prefix}unknown ${params.tag} ${JSON.stringify(params.tagValue)} (one of: ${values})`
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
      const choices = field === 'action' && kinds.length ? ` (one of: ${kinds.join(', ')})` : ''
      return `${prefix}missing required field '${field}'${owner}${choices}`
    }
    case 'const': {
      const allowed = (error.params as { allowedValue: unknown }).allowedValue
      return `${prefix}${subject} must be ${JSON.stringify(allowed)}, not ${JSON.stringify(error.data)}`
    }
    case 'enum': {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues
      return `${prefix}${subject} must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}, not ${JSON.stringify(error.data)}`
    }
    case 'anyOf': {
      const consts = ((error.parentSchema as { anyOf?: Array<{ const?: unknown }> }).anyOf ?? []).map((m) => m.const)
      if (consts.length && consts.every((c) => c !== undefined)) {
        return `${prefix}${subject} must be one of ${consts.map((v) => JSON.stringify(v)).join(', ')}, not ${JSON.stringify(error.data)}`
      }
      return `${prefix}${subject} ${error.message}`
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
 * sentence (the seed's validators stop at the first failure too). `kinds` are the values of
 * `action` the schema accepts, for messages about a missing one (native payloads pass theirs).
 */
export function formatValidationErrors (
  errors: FastifySchemaValidationError[] | ErrorObject[],
  dataVar: string,
  kinds: readonly string[] = ACTION_KINDS,
): string {
  const first = reported(errors)
  if (!first) return `${dataVar} is invalid`
  return describe(first, dataVar === 'querystring' ? 'query' : dataVar, kinds)
}

/** The error the message is about. */
function reported (errors: FastifySchemaValidationError[] | ErrorObject[]): ErrorObject | undefined {
  // ajv-errors' singleError mode can leave an empty placeholder before the real message.
  const meaningful = (errors as ErrorObject[]).filter((e) => e.keyword !== 'errorMessage' || e.message)
  // A wrong `action` explains every other error of its object: name it first. Of a union of
  // literals, the summary (anyOf) says more than the first literal's mismatch.
  const onAction = meaningful.filter((e) => /(^|\/)action$/.test(e.instancePath))
  return onAction.find((e) => e.keyword === 'anyOf') ?? onAction[0] ?? meaningful[0]
}

/**
 * The batch action the reported error is in (`actions[3]: …`), if it is in one; with `list`,
 * also an item of a body that is itself a list (a native payload of several calls).
 */
export function validationFailedIndex (errors: FastifySchemaValidationError[] | ErrorObject[], list = false): number | undefined {
  const first = reported(errors)
  const match = first && (list ? /^(?:\/actions)?\/(\d+)(\/|$)/ : /^\/actions\/(\d+)(\/|$)/).exec(first.instancePath)
  return match ? Number(match[1]) : undefined
}
