/** Every adapter the server offers, in the order GET /adapters lists them. */
import type { Adapter } from '../src/adapter.ts'

export const ADAPTERS: Adapter[] = []
