import Anthropic from '@anthropic-ai/sdk'
import { GatewayComputerToolset } from '@computer-gateway/agent/anthropic'

export async function example (baseUrl: string, token: string, anthropic = new Anthropic()) {
  const computer = new GatewayComputerToolset({ baseUrl, token, display: { width: 1024, height: 640 }, confirm: () => true })
  return anthropic.beta.messages.toolRunner({
    model: 'claude-opus-5-5',
    max_tokens: 4096,
    tools: [computer],
    messages: [{ role: 'user', content: 'Write a greeting in the text box.' }],
  }).runUntilDone()
}
