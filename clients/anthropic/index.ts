/**
 * computer-gateway/anthropic — our desktop as @anthropic-ai/sdk's computer toolset, for
 * `client.beta.messages.toolRunner({ tools: [new GatewayComputerToolset({ baseUrl, token, confirm })] })`.
 */
export { GatewayComputerToolset, type GatewayComputerToolsetOptions } from './toolset.ts'
export { GatewayError } from '../client/index.ts'
