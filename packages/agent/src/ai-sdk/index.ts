/**
 * @computer-gateway/agent/ai-sdk — `execute`/`toModelOutput` for the Vercel AI SDK's provider computer
 * tools: `anthropic.tools.computer_20251124({ displayWidthPx, displayHeightPx, ...anthropicComputer(options) })`,
 * `anthropic.tools.computerToolset_20260801(anthropicComputer({ ...options, version: 'computer_toolset_20260801' }))`,
 * `openai.tools.computer(openaiComputer(options))`.
 */
export { anthropicComputer, type AnthropicComputerOptions, type AnthropicComputerVersion, type ComputerOutput } from './anthropic.ts'
export { openaiComputer, type OpenaiComputerOptions } from './openai.ts'
export { GatewayError } from '../client/index.ts'
