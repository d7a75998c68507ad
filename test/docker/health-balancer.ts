/**
 * What stands in front of the fleet's Swarm service (deploy/fleet.swarm.yaml): one address for
 * clients, a TCP balancer over every manager's fleet port that sends each connection to the
 * manager whose GET /health answers. It probes every `everyMs`; when the answering manager
 * changes (its node lost, the replica moved), connections to the old one are cut, so a client's
 * kept-alive connection never hangs on a dead node.
 */
import { createConnection, createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

export interface HealthBalancer {
  url: string
  /** The backend address (host:port) connections go to now, if any answers. */
  target: () => string | undefined
  close: () => Promise<void>
}

export async function healthBalancer (backends: string[], { everyMs = 500, probeTimeoutMs = 1000 } = {}): Promise<HealthBalancer> {
  let target: string | undefined
  const open = new Map<Socket, string>()
  const probe = async () => {
    const answering = await Promise.all(backends.map(async (backend) => {
      const response = await fetch(`http://${backend}/health`, { signal: AbortSignal.timeout(probeTimeoutMs) }).catch(() => undefined)
      return response?.ok ? backend : undefined
    }))
    const next = answering.find(Boolean)
    if (next === target) return
    target = next
    for (const [socket, to] of open) if (to !== target) socket.destroy()
  }
  await probe()
  const timer = setInterval(() => { void probe() }, everyMs)
  const server = createServer((client) => {
    const to = target
    if (!to) return client.destroy()
    const [host, port] = to.split(':') as [string, string]
    const upstream = createConnection({ host, port: Number(port) })
    open.set(client, to)
    const end = () => { open.delete(client); client.destroy(); upstream.destroy() }
    client.on('error', end).on('close', end)
    upstream.on('error', end).on('close', end)
    client.pipe(upstream).pipe(client)
  })
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    target: () => target,
    close: async () => {
      clearInterval(timer)
      for (const socket of open.keys()) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
