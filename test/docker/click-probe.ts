/** The click probe shared by the image tests (images.ts) and the fleet's (fleet.ts). */
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { setTimeout as delay } from 'node:timers/promises'

/** The click probe (x-click-probe.cjs) inside the container, on the server's display; resolves with its first line after "ready". */
export async function clickProbe (container: string, display: string, click: () => Promise<void>) {
  const script = await readFile(new URL('./x-click-probe.cjs', import.meta.url), 'utf8')
  const probe = spawn('docker', ['exec', '-i', '-e', `DISPLAY=${display}`, container, 'sh', '-c',
    'XAUTHORITY=$(ls /tmp/computer-gateway-xauth-*/Xauthority | head -n 1) exec node -'], { stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  probe.stderr.on('data', (chunk) => { err += chunk })
  const exited = new Promise<number | null>((resolve) => probe.on('close', resolve))
  probe.stdin.end(script)
  try {
    await new Promise<void>((resolve, reject) => {
      probe.stdout.on('data', (chunk) => { out += chunk; if (out.includes('ready\n')) resolve() })
      void exited.then(() => reject(new Error(`the probe ended before it was ready: ${err}`)))
    })
    await click()
    const code = await Promise.race([exited, delay(35_000).then(() => 'timeout')])
    return { code, line: out.split('\n')[1] ?? '', stderr: err }
  } finally {
    if (probe.exitCode === null) probe.kill('SIGKILL')
  }
}
