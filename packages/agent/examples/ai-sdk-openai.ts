import { generateText, stepCountIs, type LanguageModel } from 'ai'
import { openai } from '@ai-sdk/openai'
import { openaiComputer } from '@computer-gateway/agent/ai-sdk'

export async function example (baseUrl: string, token: string, model: LanguageModel = openai('gpt-5.5')) {
  const computer = openai.tools.computer(openaiComputer({ baseUrl, token, display: { width: 1024, height: 640 } }))
  return generateText({ model, tools: { computer }, stopWhen: stepCountIs(10), prompt: 'Write a greeting in the text box.' })
}
