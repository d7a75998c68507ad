/**
 * Route schemas compile at their first use, and the routes a first request needs compile ahead
 * of it: validators and serializers made but never used compile nothing, a bad schema is found
 * when first used, and RouteWarmup compiles only the routes it is asked for, a turn at a time.
 */
import t from 'tap'
import type { ValidateFunction } from 'ajv'
import { COMPILE_NOW, RouteWarmup, serializersOnFirstUse, validatorOnFirstUse } from '../src/http/compile-on-first-use.ts'
import { createValidatorCompiler } from '../src/schemas/validation.ts'

t.test('a validator compiles at its first call, once, and carries its errors', async (t) => {
  let compiles = 0
  const real = Object.assign((data: unknown) => {
    real.errors = data === 1 ? null : [{ instancePath: '', schemaPath: '#/const', keyword: 'const', params: { allowedValue: 1 } }]
    return data === 1
  }, { errors: null as ValidateFunction['errors'] }) as unknown as ValidateFunction
  const validate = validatorOnFirstUse(() => { compiles++; return real })
  t.equal(compiles, 0, 'made, not compiled')
  t.equal(validate(2), false)
  t.strictSame(validate.errors, [{ instancePath: '', schemaPath: '#/const', keyword: 'const', params: { allowedValue: 1 } }])
  t.equal(validate(1), true)
  t.equal(validate.errors, null, 'errors are those of the last call')
  ;(validate as unknown as Record<symbol, () => void>)[COMPILE_NOW]!()
  t.equal(compiles, 1, 'compiled once')
})

t.test("the app's validator compiler: an unknown reference is found at the first call, not when the route is made", async (t) => {
  const compile = createValidatorCompiler([{ $id: 'Known', type: 'integer' }])
  const good = compile({ schema: { $ref: 'Known' }, httpPart: 'body' })
  const bad = compile({ schema: { $ref: 'Missing' }, httpPart: 'body' })
  t.equal(good(1), true)
  t.equal(good('1'), false)
  t.throws(() => bad(1), /can't resolve reference Missing/)
})

t.test('a serializer compiles at its first answer, with its union validators', async (t) => {
  const created: unknown[] = []
  const factory = serializersOnFirstUse((route, serializer) => created.push([route.url, serializer]))
  const compiler = factory({ Known: { $id: 'Known', type: 'object', properties: { a: { anyOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'null' }] } } } }, {})
  const route = { method: 'POST', url: '/x', httpStatus: '200' }
  const good = compiler({ schema: { $ref: 'Known' }, ...route })
  const bad = compiler({ schema: { $ref: 'Missing' }, ...route })
  t.equal(created.length, 2, 'each is announced')
  t.equal(good({ a: [1, 2] }), '{"a":[1,2]}')
  t.equal(good({ a: null }), '{"a":null}')
  t.throws(() => bad({ a: 1 }), /Missing/, 'a bad schema throws when first used')
})

t.test('RouteWarmup compiles the routes asked for, one a turn, and ignores what does not defer', async (t) => {
  const warmup = new RouteWarmup()
  const order: string[] = []
  const deferred = (name: string) => ({ [COMPILE_NOW]: () => { order.push(name) } })
  // What was waiting for a turn of the event loop gets it between two compilations.
  warmup.add('/computer', { [COMPILE_NOW]: () => { order.push('computer body'); setImmediate(() => order.push('another turn')) } })
  warmup.add('/other', deferred('other'))
  warmup.add('/computer', deferred('computer 200'))
  warmup.add('/computer', () => true)
  warmup.add(undefined, deferred('no route'))
  await warmup.compile(['/computer'])
  t.strictSame(order, ['computer body', 'another turn', 'computer 200'])
})
