import { GatewayClient, GatewayError } from '@computer-gateway/agent/client'

export async function example (baseUrl: string, token: string) {
  const client = new GatewayClient({ baseUrl, token })
  const { screen } = await client.health()
  await client.computer({ action: 'click_mouse', button: 'left', coordinates: [100, 120] }, { display_width_px: 1024, display_height_px: 640 })
  const screenshot = await client.screenshot({ width: 1024, height: 640 })
  const refused = await client.computer({ action: 'press_key', keys: ['nokey'] }).catch((error: unknown) => error)
  return { screen, screenshot, refused: refused instanceof GatewayError ? `${refused.status} ${refused.code}` : 'not refused' }
}
