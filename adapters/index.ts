/** Every adapter the server offers, in the order GET /adapters lists them. */
import type { Adapter } from '../src/adapter.ts'
import { conatusAdapter } from './conatus/index.ts'
import { hudAdapter } from './hud/index.ts'

export const ADAPTERS: Adapter[] = [hudAdapter, conatusAdapter]
