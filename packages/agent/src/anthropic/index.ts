/**
 * @computer-gateway/agent/anthropic — our desktop for @anthropic-ai/sdk's tool runner: the computer
 * toolset (`new GatewayComputerToolset({ baseUrl, token, confirm })`) and the older `computer`
 * tools (`gatewayComputerTool({ baseUrl, token, version: 'computer_20251124', display })`).
 */
export { GatewayComputerToolset, type GatewayComputerToolsetOptions } from './toolset.ts'
export { gatewayComputerTool, type GatewayComputerToolOptions, type ComputerToolVersion } from './computer-tool.ts'
export { GatewayError } from '../client/index.ts'
