/**
 * @computer-gateway/agent/anthropic — our desktop for @anthropic-ai/sdk's tool runner: the computer
 * toolset (`new GatewayComputerToolset({ baseUrl, token, confirm })`) and the older `computer`
 * tools (`gatewayComputerTool({ baseUrl, token, version: 'computer_20251124', display })`); beside
 * them the bash tool and the text editor on the same desktop (`gatewayBashTool`, `gatewayTextEditorTool`).
 */
export { GatewayComputerToolset, type GatewayComputerToolsetOptions } from './toolset.ts'
export { gatewayComputerTool, type GatewayComputerToolOptions, type ComputerToolVersion } from './computer-tool.ts'
export { gatewayBashTool, gatewayTextEditorTool, type BashToolVersion, type TextEditorToolVersion } from './agent-tools.ts'
export { GatewayError } from '../client/index.ts'
