/**
 * The action schemas as an MCP client reads them: one self-contained JSON Schema per tool.
 * The app's schemas refer to each other by `$id` (`{ $ref: 'WindowInfo' }`), which resolves
 * only inside the app's Ajv; a client gets every schema it refers to under `$defs` instead,
 * with `#/$defs/…` references (recursive ones, like CupNode, stay recursive). ajv-errors'
 * `errorMessage` is the server's own wording of refusals and `discriminator` an OpenAPI keyword
 * (the `oneOf` says the same in JSON Schema): both left out.
 */
type Json = Record<string, unknown>

const DROPPED = new Set(['errorMessage', '$id', 'discriminator'])

/** `root` with every schema it reaches by `$ref` (to one of `shared`, or to an embedded `$id`) under `$defs`. */
export function selfContained (root: object, shared: readonly object[]): Json {
  const known = new Map<string, Json>()
  for (const schema of shared) {
    const id = (schema as Json).$id
    if (typeof id === 'string') known.set(id, schema as Json)
  }
  const defs: Record<string, unknown> = {}

  const define = (name: string): string => {
    if (!(name in defs)) {
      const schema = known.get(name)
      if (!schema) throw new Error(`schema '${name}' is referred to but not shared`)
      defs[name] = {}
      defs[name] = copy(schema, true)
    }
    return `#/$defs/${name}`
  }

  const copy = (value: unknown, top = false): unknown => {
    if (Array.isArray(value)) return value.map((item) => copy(item))
    if (value === null || typeof value !== 'object') return value
    const node = value as Json
    if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) {
      const { $ref: name, ...rest } = node
      return { ...copyFields(rest), $ref: define(name as string) }
    }
    // A schema embedded with an $id of its own (TypeBox's recursive ones) becomes a definition too.
    if (!top && typeof node.$id === 'string') {
      if (!known.has(node.$id)) known.set(node.$id, node)
      return { $ref: define(node.$id) }
    }
    return copyFields(node)
  }

  const copyFields = (node: Json): Json => {
    const out: Json = {}
    for (const [key, item] of Object.entries(node)) {
      if (!DROPPED.has(key)) out[key] = copy(item)
    }
    return Array.isArray(out.items) ? tuple(out) : out
  }

  const result = copy(root, true) as Json
  return Object.keys(defs).length ? { ...result, $defs: defs } : result
}

/**
 * A tuple (TypeBox writes draft-07's `items: [...]`, which 2020-12, MCP's default dialect,
 * spells `prefixItems`). Ours are pairs of one type ([x, y]): as `items` with min and max
 * length they mean the same in every draft, which matters as clients validate with either.
 */
function tuple (node: Json): Json {
  const { items, additionalItems: _extra, ...rest } = node as Json & { items: unknown[] }
  const first = JSON.stringify(items[0])
  if (items.every((item) => JSON.stringify(item) === first)) {
    return { ...rest, items: items[0], minItems: items.length, maxItems: items.length }
  }
  return { ...rest, prefixItems: items, items: false }
}
