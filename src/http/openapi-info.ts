/**
 * The OpenAPI document's head, and what turns the schemas the server validates with into a
 * valid OpenAPI 3.1 document. The paths and schemas come from the routes' TypeBox schemas;
 * everything here changes only the published document, never what Ajv validates.
 */
import { isDeepStrictEqual } from 'node:util'
import type { SwaggerTransform } from '@fastify/swagger'

export const openapiInfo = {
  openapi: '3.1.0',
  info: {
    title: 'computer-gateway',
    version: '0.1.0',
    description: 'One HTTP endpoint onto a real desktop for every computer-use model: the unified action space on POST /computer, executed on an X11 (Xvfb) desktop.',
    license: { name: 'MIT', identifier: 'MIT' },
  },
  servers: [{ url: 'http://127.0.0.1:8000' }],
  tags: [
    { name: 'computer', description: 'Unified actions' },
    { name: 'compatibility', description: 'The seed system\'s paths, for its SDKs' },
    { name: 'server', description: 'Health' },
    { name: 'recordings', description: 'Episodes recorded with --record: steps, screenshots, video, archive' },
    { name: 'files', description: 'Files in and out of the desktop\'s home directory (--files)' },
    { name: 'browser', description: 'The desktop\'s browser and its DevTools (--browser chromium): /browser/cdp for Playwright and Puppeteer' },
  ],
  components: {
    securitySchemes: {
      bearer: { type: 'http' as const, scheme: 'bearer', description: 'API_TOKEN, when the server has one' },
      apiKey: { type: 'apiKey' as const, in: 'header' as const, name: 'x-api-key', description: 'The same token, on the seed-compatible route' },
    },
  },
  security: [{ bearer: [] }],
}

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Values that are data, not schemas: a walk over schemas must not rewrite what they hold. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'example', 'examples', 'errorMessage', 'mapping'])

/** Visits every schema-like object under `node`, children before parents. */
function walk (node: unknown, visit: (schema: Json) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit)
    return
  }
  if (!isObject(node)) return
  for (const [key, value] of Object.entries(node)) if (!DATA_KEYWORDS.has(key)) walk(value, visit)
  visit(node)
}

/**
 * Per route (the auth hook and the route configuration know what the schemas do not): an
 * operationId from method and path, since generated clients name their functions after it;
 * the security the auth hook applies (none on public routes, x-api-key where the route takes
 * it); the 401 every other route answers when the server has a token; and the 403 every route
 * answers a web page or a foreign Host (src/http/http-guard.ts), public ones included.
 */
export const documentRoute: SwaggerTransform = ({ schema, url, route }) => {
  if (!schema || schema.hide) return { schema, url }
  const method = [route.method].flat()[0]!.toLowerCase()
  const words = url.split('/').filter(Boolean).map((part) => part.startsWith(':') ? `by_${part.slice(1)}` : part)
  const operationId = schema.operationId ?? camelCase([method, ...words])
  const config: { public?: boolean, acceptsApiKeyHeader?: boolean } = route.config ?? {}
  const security: Array<Record<string, string[]>> | undefined = config.public ? [] : config.acceptsApiKeyHeader ? [{ bearer: [] }, { apiKey: [] }] : undefined
  const response = (schema.response ?? {}) as Json
  const answers4xx = Object.keys(response).some((status) => /^4/.test(status))
  // A wildcard route (/files/*) takes a path: named so, not `*`, for clients generated from the document.
  const wildcard = url.endsWith('/*') && schema.params ? (schema.params as { properties: Json }).properties['*'] : undefined
  return {
    url: wildcard ? `${url.slice(0, -1)}{path}` : url,
    schema: {
      ...schema,
      ...(wildcard !== undefined && { params: { type: 'object', properties: { path: wildcard }, required: ['path'] } }),
      // A raw body (an upload) is read as a stream, never validated: described here only.
      ...(!schema.body && schema.consumes?.includes('application/octet-stream') && { body: { type: 'string', format: 'binary', description: 'The file\'s bytes.' } }),
      operationId,
      ...(security && { security }),
      ...(!answers4xx && {
        response: {
          ...response,
          ...(!config.public && { 401: { $ref: 'ErrorBody', description: 'The server has a token and the request did not send it, or sent another' } }),
          403: { $ref: 'ErrorBody', description: 'A web page (an Origin not allowed) or a Host that is not the server\'s own name' },
        },
      }),
    },
  }
}

function camelCase (words: string[]): string {
  return words.flatMap((word) => word.split(/[^A-Za-z0-9]+/)).filter(Boolean)
    .map((word, i) => i === 0 ? word : word[0]!.toUpperCase() + word.slice(1)).join('')
}

/**
 * The document as published: @fastify/swagger's output made valid OpenAPI 3.1 (JSON Schema
 * 2020-12), with a `mapping` on every discriminator and no component that nothing refers to.
 */
export function publishedDocument<T> (document: T): T {
  const published = withoutErrorMessages(document) as Json & { components: { schemas: Record<string, Json> } }
  walk(published, tuplesAsPrefixItems)
  const components = published.components.schemas
  walk(published, (schema) => conditionalAsUnion(schema, components))
  walk(published, discriminatedObjectsApart)
  walk(published.paths, (schema) => mapDiscriminator(schema, components))
  for (const [name, component] of Object.entries(components)) walk(component, (schema) => mapDiscriminator(schema, components, name))
  dropUnreferencedSchemas(published)
  return published as T
}

/** ajv-errors' `errorMessage` is for our validator, not part of OpenAPI: keep it out of the document. */
function withoutErrorMessages<T> (document: T): T {
  return JSON.parse(JSON.stringify(document, (key, value) => (key === 'errorMessage' ? undefined : value)))
}

/**
 * TypeBox writes tuples in draft-07 (`items` as an array, `additionalItems`); Ajv reads them
 * that way, 2020-12 (hence OpenAPI 3.1) as `prefixItems` and `items: false`.
 */
function tuplesAsPrefixItems (schema: Json): void {
  if (!Array.isArray(schema.items)) return
  const rest = schema.additionalItems
  schema.prefixItems = schema.items
  delete schema.additionalItems
  if (rest === undefined || rest === true) delete schema.items
  else schema.items = rest
}

/**
 * Most generators ignore if/then/else (openapi-typescript typed Gemini's input as
 * `Record<string, never> | unknown[]`). Where `if` only tests a type and required fields and
 * the `else` branch refuses whatever passes that test, `if I then T else E` is the union
 * `(I and T) or E`, which every generator reads. Anything else stays as it is.
 */
function conditionalAsUnion (schema: Json, components: Record<string, Json>): void {
  const { if: test, then: yes, else: no } = schema
  if (!isObject(test) || !isObject(no) || (yes !== undefined && !isObject(yes))) return
  if (typeof test.type !== 'string' || !Object.keys(test).every((key) => key === 'type' || key === 'required')) return
  const required = (test.required ?? []) as string[]
  if (!excludes(no, test.type, required, components)) return
  if (yes && (yes.$ref !== undefined || (yes.type !== undefined && yes.type !== test.type))) return
  const tested: Json = yes
    ? { ...yes, type: test.type, ...(required.length > 0 && { required: [...new Set([...(yes.required as string[] ?? []), ...required])] }) }
    : { ...test }
  const branches = [tested, ...unionMembers(no)]

  if (schema.anyOf !== undefined) {
    // `anyOf: [{type: object}, {type: array}]` beside the conditional: every branch has one of those types.
    const shapes = typeOnlyShapes(schema.anyOf)
    if (!shapes || !branches.every((branch) => shapes.includes(String(resolve(branch, components).type)))) return
    const arrays = ARRAY_KEYWORDS.filter((keyword) => keyword in schema)
    if (arrays.length > 0 && branches.some((branch) => resolve(branch, components).type === 'array' && branch.$ref !== undefined)) return
    for (const branch of branches) {
      if (branch.type !== 'array') continue
      for (const keyword of arrays) branch[keyword] = schema[keyword]
    }
    for (const keyword of arrays) delete schema[keyword]
  }
  delete schema.if
  delete schema.then
  delete schema.else
  schema.anyOf = branches
}

/** Whether no value passing `{type, required}` passes `schema`. */
function excludes (schema: Json, type: string, required: string[], components: Record<string, Json>): boolean {
  const target = resolve(schema, components)
  if (typeof target.type === 'string' && target.type !== type) return true
  if (type === 'object' && target.additionalProperties === false && isObject(target.properties) &&
    required.some((field) => !(field in (target.properties as Json)))) return true
  for (const keyword of ['oneOf', 'anyOf']) {
    const members = target[keyword]
    if (Array.isArray(members) && members.every((member) => isObject(member) && excludes(member, type, required, components))) return true
  }
  const all = target.allOf
  return Array.isArray(all) && all.some((member) => isObject(member) && excludes(member, type, required, components))
}

function resolve (schema: Json, components: Record<string, Json>): Json {
  const ref = schema.$ref
  return typeof ref === 'string' && ref.startsWith(COMPONENT) ? components[ref.slice(COMPONENT.length)] ?? schema : schema
}

/** A schema that is only a union contributes its members, so nested conditionals end as one flat union. */
function unionMembers (schema: Json): Json[] {
  return Object.keys(schema).length === 1 && Array.isArray(schema.anyOf) ? schema.anyOf as Json[] : [schema]
}

function typeOnlyShapes (union: unknown): string[] | undefined {
  if (!Array.isArray(union)) return undefined
  const types = union.map((shape) => isObject(shape) && Object.keys(shape).length === 1 && typeof shape.type === 'string' ? shape.type : undefined)
  return types.every((type) => type !== undefined) ? types as string[] : undefined
}

const OBJECT_KEYWORDS = ['required', 'properties', 'additionalProperties', 'discriminator', 'oneOf']
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'minItems', 'maxItems']

/**
 * A schema that takes an object or an array (`anyOf: [{type: object}, {type: array}]`) and a
 * discriminated `oneOf` for the object: Ajv skips `oneOf` where a discriminator decides, and
 * the discriminator checks objects only, but to any other reader that `oneOf` refuses every
 * array. Each shape gets its own branch, so the document means what Ajv checks.
 */
function discriminatedObjectsApart (schema: Json): void {
  if (!isObject(schema.discriminator) || !Array.isArray(schema.anyOf)) return
  const shapes = schema.anyOf as Json[]
  if (!shapes.every((shape) => isObject(shape) && Object.keys(shape).length === 1 && typeof shape.type === 'string')) return
  const objects = shapes.find((shape) => shape.type === 'object')
  const arrays = shapes.find((shape) => shape.type === 'array')
  if (!objects) return
  for (const [keywords, shape] of [[OBJECT_KEYWORDS, objects], [ARRAY_KEYWORDS, arrays]] as const) {
    for (const keyword of keywords) {
      if (!(keyword in schema)) continue
      if (!shape) throw new Error(`"${keyword}" next to a union without that shape`)
      shape[keyword] = schema[keyword]
      delete schema[keyword]
    }
  }
}

const COMPONENT = '#/components/schemas/'

/**
 * OpenAPI reads a discriminator without `mapping` as naming its members' schema names, and it
 * can only select members that are `$ref`s: each inline member becomes a component named by
 * its title (a lower-case title under its union's name), and the mapping is read off the
 * members' own `const`/`enum`, so it cannot disagree with what Ajv checks. Ajv refuses
 * `mapping`, hence here and not in the schemas.
 */
function mapDiscriminator (schema: Json, components: Record<string, Json>, owner?: string): void {
  const discriminator = schema.discriminator
  if (!isObject(discriminator)) return
  const property = String(discriminator.propertyName)
  const members = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined
  if (!Array.isArray(members)) throw new Error(`a discriminator on "${property}" without oneOf/anyOf`)
  const mapping: Record<string, string> = {}
  members.forEach((member, i) => {
    if (!isObject(member)) throw new Error(`discriminator "${property}": member ${i} is not a schema`)
    let name: string
    if (typeof member.$ref === 'string' && member.$ref.startsWith(COMPONENT)) {
      name = member.$ref.slice(COMPONENT.length)
    } else {
      if (typeof member.title !== 'string') throw new Error(`discriminator "${property}": inline member ${i} has no title to name it by`)
      // Gemini's functions are titled by their name (click_at, wait): under their union's name, the component says whose they are.
      name = /^[a-z]/.test(member.title) && owner ? `${owner}_${member.title}` : member.title
      const existing = components[name]
      if (existing && !isDeepStrictEqual(existing, member)) throw new Error(`two different schemas are titled "${name}"`)
      components[name] = member
      members[i] = { $ref: COMPONENT + name }
    }
    const values = discriminatorValues(components[name], property)
    if (values.length === 0) throw new Error(`${name} has no const or enum for the discriminator "${property}"`)
    for (const value of values) {
      if (mapping[value] !== undefined && mapping[value] !== COMPONENT + name) throw new Error(`"${property}: ${value}" names both ${mapping[value]} and ${name}`)
      mapping[value] = COMPONENT + name
    }
  })
  discriminator.mapping = mapping
}

function discriminatorValues (schema: Json | undefined, property: string): string[] {
  const properties = schema?.properties
  const field = isObject(properties) ? properties[property] : undefined
  if (!isObject(field)) return []
  if (typeof field.const === 'string') return [field.const]
  return Array.isArray(field.enum) ? field.enum.filter((value): value is string => typeof value === 'string') : []
}

/**
 * The querystring schemas are shared for validation, but the document spells them out as
 * parameters: left in, they would be components nothing refers to.
 */
function dropUnreferencedSchemas (document: Json & { components: { schemas: Record<string, Json> } }): void {
  const schemas = document.components.schemas
  const reached = new Set<string>()
  const follow = (node: unknown): void => {
    walk(node, (schema) => {
      const ref = schema.$ref
      if (typeof ref !== 'string' || !ref.startsWith(COMPONENT)) return
      const name = ref.slice(COMPONENT.length)
      if (reached.has(name)) return
      reached.add(name)
      follow(schemas[name])
    })
  }
  follow({ ...document, components: { ...document.components, schemas: {} } })
  for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name]
}
