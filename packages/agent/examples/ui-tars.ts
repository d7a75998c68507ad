import { GUIAgent, type GUIAgentConfig, type GUIAgentData } from '@ui-tars/sdk'
import { UITarsModel } from '@ui-tars/sdk/core'
import { GatewayOperator } from '@computer-gateway/agent/ui-tars'

export async function example (baseUrl: string, token: string, model = new UITarsModel({ baseURL: 'http://127.0.0.1:8080/v1', apiKey: 'none', model: 'ui-tars-1.5-7b' }), logger?: GUIAgentConfig<GatewayOperator>['logger']) {
  const updates: GUIAgentData[] = []
  const agent = new GUIAgent({
    model,
    operator: new GatewayOperator({ baseUrl, token, display: { width: 1024, height: 640 } }),
    onData: ({ data }) => { updates.push(data) },
    ...(logger && { logger }),
  })
  await agent.run('Write a greeting in the text box.')
  return updates
}
