/**
 * deploy/fleet.compose.yaml: what it says of the fleet is read from the fleet itself, not copied.
 * Its environment is the fleet's flags' names (fleet/config.ts) and, with a key, loads as a
 * configuration the fleet accepts (a warm pool within --max, on loopback); the container runs
 * the fleet command of the desktop image it also starts desktops from, on the host's network
 * (the desktops' ports are published on the host's loopback), with the engine's socket and its
 * group, hardened as the desktops are; the key comes from a file, never from the compose file.
 */
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { parse } from 'yaml'
import { DEFAULT_IMAGE, FLEET_FLAGS, loadFleetConfig } from '../fleet/config.ts'

interface Service {
  image: string
  build?: string
  command: string[]
  env_file: string
  environment: Record<string, string>
  network_mode?: string
  volumes: string[]
  group_add: string[]
  read_only: boolean
  tmpfs: string[]
  cap_drop: string[]
  security_opt: string[]
  ports?: unknown
}

const text = await readFile(new URL('../deploy/fleet.compose.yaml', import.meta.url), 'utf8')
const compose = parse(text) as { services: Record<string, Service>, name?: string }
const desktops = parse(await readFile(new URL('../deploy/compose.yaml', import.meta.url), 'utf8'), { merge: true }) as { services: Record<string, { image: string }> }

t.test('one service: the fleet command of the desktop image, on the host network, with the socket and its group', async (t) => {
  t.strictSame(Object.keys(compose.services), ['fleet'])
  t.notOk(compose.name, 'no top-level name (docker-compose 1.29 refuses it)')
  const fleet = compose.services.fleet!
  t.strictSame(fleet.command, ['bin/computer-gateway.js', 'fleet'], 'the bin\'s fleet command')
  t.equal(fleet.image, DEFAULT_IMAGE, 'the image the fleet runs desktops from by default')
  t.equal(fleet.image, Object.values(desktops.services)[0]!.image, 'the same image deploy/compose.yaml runs')
  t.equal(fleet.environment.FLEET_IMAGE, fleet.image, 'it starts desktops from the image it runs in')
  t.equal(fleet.network_mode, 'host', 'the host\'s network: the desktops\' ports are on its loopback')
  t.notOk(fleet.ports, 'no published ports (host network)')
  t.strictSame(fleet.volumes, ['/var/run/docker.sock:/var/run/docker.sock:ro'], 'the engine\'s socket, nothing else of the host')
  t.match(fleet.group_add, [/^\$\{DOCKER_GID:\?/], 'the socket\'s group, required when the file is used')
  t.match(text, /What the socket grants: the Docker engine's socket is root on the host/, 'the file says what mounting the socket grants')
  t.strictSame([fleet.read_only, fleet.tmpfs, fleet.cap_drop, fleet.security_opt], [true, ['/tmp', '/home/node'], ['ALL'], ['no-new-privileges:true']], 'hardened as the desktops are')
  t.equal(fleet.env_file, 'fleet.env', 'the key from a file')
  t.notOk('API_TOKEN' in fleet.environment || 'API_TOKEN_FILE' in fleet.environment, 'never in the compose file')
})

t.test('its environment is the fleet\'s flags and loads as a fleet with a warm pool', async (t) => {
  const fleet = compose.services.fleet!
  const names = new Set(Object.values(FLEET_FLAGS).map((flag) => flag.env).filter(Boolean))
  t.strictSame(Object.keys(fleet.environment).filter((name) => !names.has(name)), [], 'every variable is a flag\'s')
  const config = loadFleetConfig([], { ...fleet.environment, API_TOKEN: 'k'.repeat(32) })
  t.match(config, { host: '127.0.0.1', port: 8100, fleetId: 'compose', image: DEFAULT_IMAGE, desktop: 'full', warm: 2, max: 8, onExit: 'leave' })
  t.ok(config.warm >= 1 && config.warm <= config.max, 'a warm pool within --max')
})
