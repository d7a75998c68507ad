/**
 * @computer-gateway/agent/openai-agents — our desktop as @openai/agents' Computer:
 * `computerTool({ computer: await GatewayComputer.connect({ baseUrl, token, display }) })`, or
 * one computer per run with `computerTool({ computer: gatewayComputerProvider(options) })`.
 */
import { GatewayComputer, type GatewayComputerOptions } from './computer.ts'

export { GatewayComputer, type GatewayComputerOptions } from './computer.ts'
export { GatewayError } from '../client/index.ts'

/** computerTool's `{ create, dispose }`: a computer for each run, refused once its run is over. */
export function gatewayComputerProvider (options: GatewayComputerOptions) {
  return {
    create: () => GatewayComputer.connect(options),
    dispose: ({ computer }: { computer: GatewayComputer }) => { computer.close() },
  }
}
