#!/usr/bin/env node
// The CLI: runs the TypeScript server through tsx's loader (a runtime dependency).
import { register } from 'tsx/esm/api'

register()
await import('../src/server.ts')
