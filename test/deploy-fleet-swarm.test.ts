/**
 * deploy/fleet.swarm.yaml, read as `docker stack deploy` reads it (YAML 1.1, so `0400` is octal;
 * ${VAR:-default} and ${VAR:?message} filled from the environment): one replica of the fleet
 * command on a manager, the swarm backend with the manager's socket, restarted elsewhere at once
 * and never two at a time; its environment is the fleet's flags' names and loads as a fleet the
 * fleet accepts; its key a Swarm secret only its user reads; hardened as the compose file's.
 * That it runs and fails over on a real swarm is test/docker/fleet-swarm.ts.
 */
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { parse } from 'yaml'
import { DEFAULT_IMAGE, FLEET_FLAGS, loadFleetConfig } from '../fleet/config.ts'

interface Service {
  image: string
  command: string[]
  user: string
  environment: Record<string, string>
  secrets: Array<{ source: string, uid: string, mode: number }>
  networks: string[]
  volumes: Array<{ type: string, source: string, target: string }>
  read_only: boolean
  tmpfs: string[]
  cap_drop: string[]
  ports?: unknown
  deploy: { mode: string, replicas: number, placement: { constraints: string[] }, restart_policy: { condition: string, delay: string }, update_config: { order: string } }
}

const text = await readFile(new URL('../deploy/fleet.swarm.yaml', import.meta.url), 'utf8')

/** The file as the stack deploy of `env` sees it: what is unset takes its default, or fails with its message. */
function load (env: Record<string, string>) {
  const expanded = text.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, op?: string, rest?: string) => {
    if (env[name] !== undefined) return env[name]!
    if (op === '-') return rest!
    throw new Error(`${name}: ${rest ?? 'unset'}`)
  })
  return parse(expanded, { version: '1.1' }) as { services: Record<string, Service>, networks: Record<string, { external: boolean, name: string }>, secrets: Record<string, { external: boolean }> }
}

const stack = load({ DOCKER_GID: '105' })
const fleet = stack.services.fleet!

t.test('one replica of the fleet command on a manager, moved at once when its node is lost, never two at a time', async (t) => {
  t.strictSame(Object.keys(stack.services), ['fleet'])
  t.strictSame(fleet.command, ['bin/computer-gateway.js', 'fleet'], 'the bin\'s fleet command')
  t.equal(fleet.image, DEFAULT_IMAGE, 'the desktop image, which holds the fleet')
  t.equal(fleet.environment.FLEET_IMAGE, fleet.image, 'it starts desktops from the image it runs in')
  t.strictSame(fleet.deploy, {
    mode: 'replicated',
    replicas: 1,
    placement: { constraints: ['node.role == manager'] },
    restart_policy: { condition: 'any', delay: '0s' },
    update_config: { order: 'stop-first' },
    resources: { limits: { memory: '512M' } },
  })
  t.equal(fleet.environment.FLEET_BACKEND, 'swarm', 'desktops as services on the swarm')
  t.strictSame(fleet.volumes, [{ type: 'bind', source: '/var/run/docker.sock', target: '/var/run/docker.sock' }], 'its manager\'s socket, nothing else of the host')
  t.equal(load({ DOCKER_GID: '105', FLEET_DOCKER_SOCKET: '/srv/{{.Node.ID}}/docker.sock' }).services.fleet!.volumes[0]!.source, '/srv/{{.Node.ID}}/docker.sock', 'another path, Swarm\'s templates kept for the node to fill')
  t.strictSame([fleet.networks, stack.networks], [['hostnet'], { hostnet: { external: true, name: 'host' } }], 'the host network: it listens on its manager\'s address and reaches the desktops on theirs')
  t.notOk(fleet.ports, 'nothing published through the ingress')
  t.match(text, /What the socket grants: a manager's Docker socket is root on that node/, 'the file says what mounting the socket grants')
})

t.test('uid 1000 with the socket\'s group, required; hardened; the key a secret only that user reads', async (t) => {
  t.equal(fleet.user, '1000:105')
  t.throws(() => load({}), /DOCKER_GID: set DOCKER_GID to the group id of the Docker socket on the managers/, 'refused without the group, saying so')
  // Docker's parser takes a '-' in the message for ${VAR-default}: the message must have none.
  t.notMatch(/\$\{DOCKER_GID:\?([^}]*)\}/.exec(text)![1]!, /-/, 'a message the stack deploy reads whole')
  t.strictSame([fleet.read_only, fleet.tmpfs, fleet.cap_drop], [true, ['/tmp', '/home/node'], ['ALL']], 'read-only root, tmpfs /tmp and home (no anonymous volume), no capability')
  t.strictSame(fleet.secrets, [{ source: 'computer-gateway-fleet-token', uid: '1000', mode: 0o400 }], 'the key readable by uid 1000 alone')
  t.strictSame(stack.secrets, { 'computer-gateway-fleet-token': { external: true } }, 'made by the operator, never in the file')
  t.equal(fleet.environment.API_TOKEN_FILE, '/run/secrets/computer-gateway-fleet-token', 'read from where Swarm mounts the secret')
  t.notOk('API_TOKEN' in fleet.environment, 'no key in the file')
})

t.test('its environment is the fleet\'s flags and loads as a fleet with a warm pool, listening beyond loopback with its key', async (t) => {
  const names = new Set(Object.values(FLEET_FLAGS).map((flag) => flag.env).filter(Boolean))
  t.strictSame(Object.keys(fleet.environment).filter((name) => !names.has(name)), [], 'every variable is a flag\'s')
  const { API_TOKEN_FILE: _file, ...environment } = fleet.environment
  const config = loadFleetConfig([], { ...environment, API_TOKEN: 'k'.repeat(32) })
  t.match(config, { host: '0.0.0.0', port: 8100, fleetId: 'swarm', image: DEFAULT_IMAGE, backend: 'swarm', desktop: 'full', warm: 2, max: 8, onExit: 'leave' })
  t.ok(config.warm >= 1 && config.warm <= config.max, 'a warm pool within --max')
})
