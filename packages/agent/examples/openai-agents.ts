import { Agent, computerTool, run, type Model } from '@openai/agents'
import { GatewayComputer } from '@computer-gateway/agent/openai-agents'

export async function example (baseUrl: string, token: string, model: Model | string = 'gpt-5.5') {
  const computer = await GatewayComputer.connect({ baseUrl, token, display: { width: 1024, height: 640 } })
  const agent = new Agent({ name: 'desktop', model, tools: [computerTool({ computer })] })
  return run(agent, 'Write a greeting in the text box.')
}
