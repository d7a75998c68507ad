/**
 * The accessibility row: LibreOffice Calc on the peers' display, its tree read through ours
 * (`GET /accessibility`, the foreground window over the server's own accessibility bus) and
 * through cua's `get_accessibility_tree` command, node counts and p50 each. OSWorld's tree
 * comes from its guest's Flask server (pyatspi), not from pyautogui, and the xdotool loops
 * read none: the line says so rather than measuring them.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { readBusAddress } from '../../drivers/atspi/root-address.ts'
import { spawnOwned, stopOwned } from '../../test/helpers/processes.ts'
import { client } from '../http-client.ts'
import { percentile } from '../percentile.ts'
import { treeNodes } from './effects.ts'
import { cuaResult } from './peer-drivers.ts'

export type OfficeTrees = { error: string } | {
  ours: { nodes: number, p50: number, n: number }
  cua?: { nodes: number, p50: number, n: number, note: string }
  others: string
}

/** Nodes in one of our snapshots: each has an id `eN`. */
export const ourNodes = (body: string) => (body.match(/"id":"e\d+"/g) ?? []).length

export interface OfficeOptions { display: string, env: NodeJS.ProcessEnv, ourPort: number, cuaPort?: number, snapshots: number }

export async function officeTrees ({ display, env, ourPort, cuaPort, snapshots }: OfficeOptions): Promise<OfficeTrees> {
  const http = client(ourPort)
  const dir = await mkdtemp(join(tmpdir(), 'cg-bench-office-'))
  let office: ReturnType<typeof spawnOwned> | undefined
  try {
    // The first snapshot starts the server's bus and publishes its address on the root window.
    const first = await http.get('/accessibility')
    if (first.status !== 200) throw new Error(`GET /accessibility: ${first.status} ${first.body.slice(0, 200)}`)
    const address = await until(() => readBusAddress(display), 10_000, 'the accessibility bus address on the root window')
    office = spawnOwned(undefined, 'soffice', ['--calc', '--norestore', '--nologo', '--nofirststartwizard', `-env:UserInstallation=file://${dir}`], {
      env: { ...env, AT_SPI_BUS_ADDRESS: address, SAL_USE_VCLPLUGIN: 'gtk3' }, stdio: 'ignore', group: true,
    })
    // The sheet's cells in the tree: the document is loaded and the window in front.
    await until(async () => {
      const body = (await http.get('/accessibility')).body
      return /LibreOffice Calc/.test(body) && ourNodes(body) > 20 ? true : undefined
    }, 120_000, "LibreOffice Calc's sheet in our tree")
    const samples: number[] = []
    let nodes = 0
    for (let i = 0; i < snapshots; i++) {
      const started = performance.now()
      const answer = await http.get('/accessibility')
      samples.push(performance.now() - started)
      if (answer.status !== 200) throw new Error(`GET /accessibility: ${answer.status} ${answer.body.slice(0, 200)}`)
      nodes = ourNodes(answer.body)
    }
    let cua
    if (cuaPort !== undefined) {
      const cuaHttp = client(cuaPort)
      try {
        const times: number[] = []
        let cuaNodes = 0
        for (let i = 0; i < snapshots; i++) {
          const started = performance.now()
          const answer = await cuaHttp.post('/cmd', { command: 'get_accessibility_tree', params: {} })
          times.push(performance.now() - started)
          cuaNodes = treeNodes((cuaResult('get_accessibility_tree', answer.status, answer.body) as { tree?: unknown }).tree)
        }
        // Its Linux handler (handlers/linux.py) answers a fixed "Linux Window" with no children.
        cua = { nodes: cuaNodes, p50: percentile(times, 50), n: times.length, note: 'its Linux handler answers a fixed placeholder window, whatever is on the screen' }
      } finally { cuaHttp.close() }
    }
    return {
      ours: { nodes, p50: percentile(samples, 50), n: samples.length },
      ...(cua && { cua }),
      others: "OSWorld's tree comes from its guest's Flask server (pyatspi), not from pyautogui, and the xdotool loops read none: not measured",
    }
  } finally {
    http.close()
    if (office) await stopOwned(office, true)
    await rm(dir, { recursive: true, force: true })
  }
}

async function until<T> (probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`no ${what} after ${timeoutMs / 1000} s`)
    await delay(250)
  }
}
