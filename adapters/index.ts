/** Every adapter the server offers, in the order GET /adapters lists them. */
import type { Adapter } from '../src/pipeline/adapter.ts'
import { anthropicAdapter } from './anthropic/index.ts'
import { conatusAdapter } from './conatus/index.ts'
import { cupAdapter } from './cup/index.ts'
import { geminiAdapter } from './gemini/index.ts'
import { glmAdapter } from './glm/index.ts'
import { hudAdapter } from './hud/index.ts'
import { openaiAdapter } from './openai/index.ts'
import { openaiShellAdapter } from './openai-shell/index.ts'
import { operatorAdapter } from './operator/index.ts'
import { pyautoguiAdapter } from './pyautogui/index.ts'
import { qwenAdapter } from './qwen/index.ts'
import { uitarsAdapter } from './uitars/index.ts'

export const ADAPTERS: Adapter[] = [anthropicAdapter, openaiAdapter, geminiAdapter, uitarsAdapter, qwenAdapter, pyautoguiAdapter, glmAdapter, hudAdapter, conatusAdapter, cupAdapter, operatorAdapter, openaiShellAdapter]
