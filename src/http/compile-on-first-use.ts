/**
 * Route schemas are compiled at their first use, not when the app starts. Compiling every
 * route's validators (Ajv) and serializers (fast-json-stringify) up front was most of a cold
 * start's CPU (~2.8 s on a busy machine) and ~50 MB of the server's memory, for dialects and
 * statuses most servers never see. A route's first request pays for its own, except for the
 * routes the app compiles while it waits for the desktop to start (`RouteWarmup`).
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { ValidateFunction } from 'ajv'
import type { FastifyServerOptions } from 'fastify'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { AJV_CODE } from '../schemas/ajv-code.ts'

/** On a deferred validator or serializer: compiles it now (once: later calls do nothing). */
export const COMPILE_NOW = Symbol('compile now')

type Deferred = { [COMPILE_NOW]?: () => void }

/** A validator compiled at its first call; it carries `errors` as Ajv's own does (where Fastify reads them). */
export function validatorOnFirstUse (compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined
  const compileNow = () => { compiled ??= compile() }
  const validate = Object.assign((data: unknown): boolean => {
    compileNow()
    const valid = compiled!(data) as boolean
    validate.errors = compiled!.errors
    return valid
  }, { errors: null as ValidateFunction['errors'], [COMPILE_NOW]: compileNow })
  return validate as unknown as ValidateFunction
}

type SerializerFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>
type RouteSchema = Parameters<ReturnType<SerializerFactory>>[0]

/** Fastify's own serializers (fast-json-stringify), each compiled at its first answer; `created` hears of each. */
export function serializersOnFirstUse (created: (route: RouteSchema, serializer: unknown) => void): SerializerFactory {
  return (externalSchemas, options) => {
    // fast-json-stringify picks a union's member with Ajv validators of its own, which it would
    // compile at the first value that needs them (~0.2 s for an action's answer): with the rest,
    // and without Ajv's optimiser, as ours (ajv-code.ts says why).
    const compile = SerializerSelector()(externalSchemas, { ...options, compileValidators: true, ajv: { ...options?.ajv, code: { ...options?.ajv?.code, ...AJV_CODE } } })
    return (route) => {
      let compiled: ((data: unknown) => string) | undefined
      const compileNow = () => { compiled ??= compile(route) }
      const serialize = Object.assign((data: unknown) => { compileNow(); return compiled!(data) }, { [COMPILE_NOW]: compileNow })
      created(route, serialize)
      return serialize
    }
  }
}

/** The deferred compilations of each route, so the routes a first request will use can be compiled ahead of it. */
export class RouteWarmup {
  readonly #byUrl = new Map<string, Deferred[]>()

  /** `compiled` is a validator or serializer of the route at `url`; only those that defer are kept. */
  add (url: string | undefined, compiled: unknown): void {
    if (!url || typeof (compiled as Deferred | undefined)?.[COMPILE_NOW] !== 'function') return
    const list = this.#byUrl.get(url) ?? []
    list.push(compiled as Deferred)
    this.#byUrl.set(url, list)
  }

  /** Compiles these routes' schemas one a turn of the event loop, so what starts meanwhile (the desktop) gets its turns. */
  async compile (urls: readonly string[]): Promise<void> {
    for (const url of urls) {
      for (const deferred of this.#byUrl.get(url) ?? []) {
        await nextTurn()
        deferred[COMPILE_NOW]!()
      }
    }
  }
}
