/**
 * The routes' types, read from openapi.yaml's generated types (./openapi.ts): for a path and
 * method, its query, its request body and its 200 answer.
 */
import type { paths } from './openapi.ts'

type Operation<P extends keyof paths, M extends 'get' | 'post'> = NonNullable<paths[P][M]>

export type GetPath = { [P in keyof paths]: paths[P] extends { get: object } ? P : never }[keyof paths]
export type PostPath = { [P in keyof paths]: paths[P] extends { post: object } ? P : never }[keyof paths]

export type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? ([Q] extends [never] ? undefined : Q) : undefined
export type PathParamsOf<O> = O extends { parameters: { path: infer A } } ? ([A] extends [never] ? undefined : A) : undefined
export type BodyOf<O> = O extends { requestBody: { content: infer C } } ? C[keyof C] : never
export type OkOf<O> = O extends { responses: { 200: { content: infer C } } } ? C[keyof C] : unknown

export type GetOp<P extends GetPath> = Operation<P, 'get'>
export type PostOp<P extends PostPath> = Operation<P, 'post'>
