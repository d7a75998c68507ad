import { FleetClient } from '@computer-gateway/agent/fleet'

export async function example (baseUrl: string, token: string) {
  const fleet = new FleetClient({ baseUrl, token })
  const desktop = await fleet.create({ screen: '1280x800', ttl_seconds: 900, labels: { run: 'episode-1' } })
  await desktop.ready({ timeoutMs: 180_000 })
  const computer = desktop.computer()
  const clicked = await computer.computer({ action: 'click_mouse', button: 'left', coordinates: [100, 120] })
  // The next episode: a fresh desktop under the same id; nothing of this one survives.
  await desktop.reset()
  await desktop.ready()
  const after = await computer.computer({ action: 'get_cursor_position' })
  const listed = (await fleet.list()).map((d) => d.id)
  await desktop.delete()
  return { id: desktop.id, listed, clicked, after }
}
