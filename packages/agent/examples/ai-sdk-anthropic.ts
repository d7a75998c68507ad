import { generateText, stepCountIs, type LanguageModel } from 'ai'
import { anthropic } from '@ai-sdk/anthropic'
import { anthropicComputer } from '@computer-gateway/agent/ai-sdk'

export async function example (baseUrl: string, token: string, model: LanguageModel = anthropic('claude-opus-4-8')) {
  const computer = anthropic.tools.computer_20251124({
    displayWidthPx: 1024,
    displayHeightPx: 640,
    ...anthropicComputer({ baseUrl, token, display: { width: 1024, height: 640 } }),
  })
  return generateText({ model, tools: { computer }, stopWhen: stepCountIs(10), prompt: 'Write a greeting in the text box.' })
}
