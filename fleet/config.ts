/**
 * `computer-gateway fleet`'s flags, each with an environment fallback, checked up front as the
 * server's are (src/runtime/config.ts, whose listening rule this shares).
 */
import { parseArgs } from 'node:util'
import { InvalidConfig } from '../src/errors/errors.ts'
import { checkListenToken } from '../src/runtime/config.ts'
import { readToken } from '../src/runtime/token.ts'
import { BROWSER_KINDS, DESKTOP_KINDS, type BrowserKind, type DesktopKind } from '../src/runtime/desktop-apps.ts'

export interface FleetConfig {
  host: string
  port: number
  token?: string
  allowUnauthenticated: boolean
  /** Names this fleet's desktops in the engine; a fleet started with the same id adopts them. */
  fleetId: string
  /** The engine desktops run on: one Docker engine, the services of a Docker Swarm (DOCKER_HOST a manager), or a Kubernetes namespace's pods. */
  backend: 'docker' | 'swarm' | 'kubernetes'
  /** With --backend kubernetes: the namespace of the desktops; undefined is the kubeconfig context's (in a cluster, the fleet pod's), else default. */
  namespace?: string
  image: string
  warm: number
  max: number
  screen: { width: number, height: number }
  /** The warm desktops' profile, and a create's default. */
  desktop: DesktopKind
  /** The warm desktops' browser, and a create's default. */
  browser: BrowserKind
  cpus: number
  memoryBytes: number
  pids: number
  startTimeoutMs: number
  /** Every desktop runs the server's shell (run_command, bash): Scrapybara's /bash and /env are served. */
  shell: boolean
  /** Every desktop serves OSWorld's guest protocol (the server's --osworld) on a port of its own, published beside its url (docker backend only). */
  osworld: boolean
  /** On SIGTERM/SIGINT: leave the desktops running for the next fleet to adopt, or end them all. */
  onExit: 'leave' | 'end'
  logLevel: string
  help: boolean
}

interface Flag { env: string, help: string, default?: string, boolean?: boolean }

/** The image `npm run test:image` builds and deploy/compose.yaml runs: the full desktop. */
export const DEFAULT_IMAGE = 'computer-gateway:0.1.0'

export const FLEET_FLAGS = {
  host: { env: 'HOST', default: '127.0.0.1', help: 'address to listen on' },
  port: { env: 'PORT', default: '8100', help: 'port to listen on' },
  token: { env: 'API_TOKEN', help: "the fleet's API key; required by every route but GET /health when set. Taken as the server takes its token: prefer API_TOKEN, --token-file or --token - (stdin) to --token VALUE, which every local user can read in ps" },
  'token-file': { env: 'API_TOKEN_FILE', help: 'a file holding the API key, read once at start; refused if every user may read it' },
  'allow-unauthenticated': { env: 'ALLOW_UNAUTHENTICATED', boolean: true, help: 'allow a non-loopback host without a key' },
  'fleet-id': { env: 'FLEET_ID', default: 'default', help: "this fleet's name in the engine (lowercase letters, digits, '-'); a fleet started with the same name adopts its desktops" },
  backend: { env: 'FLEET_BACKEND', default: 'docker', help: 'the engine desktops run on: docker (containers on one engine) | swarm (one-replica services on a Docker Swarm; DOCKER_HOST names a manager, and every node has the image) | kubernetes (pods in one namespace; credentials as kubectl finds them: in a cluster its service account, else KUBECONFIG or ~/.kube/config)' },
  namespace: { env: 'FLEET_NAMESPACE', help: "with --backend kubernetes: the namespace desktops are made in (default: the kubeconfig context's, in a cluster the fleet pod's own, else default)" },
  image: { env: 'FLEET_IMAGE', default: DEFAULT_IMAGE, help: 'the desktop image' },
  warm: { env: 'FLEET_WARM', default: '0', help: 'desktops kept started ahead, ready to be claimed' },
  max: { env: 'FLEET_MAX', default: '4', help: 'most desktops at once, the warm ones included; a create beyond it answers 429' },
  screen: { env: 'SCREEN', default: '1280x800', help: "the warm desktops' screen, and a create's default (WxH)" },
  desktop: { env: 'FLEET_DESKTOP', default: 'full', help: "the warm desktops' profile, and a create's default: minimal (a window manager only) | full (an XFCE session and its applications)" },
  browser: { env: 'FLEET_BROWSER', default: 'firefox', help: "the warm desktops' browser, and a create's default: firefox | chromium (its DevTools served through the fleet at /desktops/{id}/browser/cdp)" },
  cpus: { env: 'FLEET_CPUS', default: '2', help: 'CPUs each desktop may use' },
  memory: { env: 'FLEET_MEMORY_MB', default: '2048', help: 'memory each desktop may use, MB' },
  pids: { env: 'FLEET_PIDS', default: '1024', help: 'processes each desktop may run' },
  'start-timeout': { env: 'FLEET_START_TIMEOUT', default: '180', help: 'seconds a desktop may take to become ready before it counts as failed' },
  shell: { env: 'FLEET_SHELL', boolean: true, help: "start every desktop with the server's --shell: commands (run_command, bash; Scrapybara's /bash and /env) run inside the desktop's own container as its user (uid 1000), in its home, on its display (off by default)" },
  osworld: { env: 'FLEET_OSWORLD', boolean: true, help: "start every desktop with the server's --osworld: OSWorld's guest protocol (desktop_env's controllers) on a port of its own, published on loopback and shown as the desktop's osworld_url; OSWorld's task setups run commands, which need --shell too (docker backend only; off by default)" },
  'on-exit': { env: 'FLEET_ON_EXIT', default: 'leave', help: 'on SIGTERM/SIGINT: leave (desktops keep running; the next fleet with this --fleet-id adopts them) | end (every desktop is removed first)' },
  'log-level': { env: 'LOG_LEVEL', default: 'info', help: 'fatal | error | warn | info | debug | trace | silent' },
  help: { env: '', boolean: true, help: 'print this help' },
} satisfies Record<string, Flag>

export function fleetUsage (): string {
  const rows = Object.entries(FLEET_FLAGS).map(([name, flag]: [string, Flag]) =>
    `  --${name}${flag.boolean ? '' : ' <value>'}\n      ${flag.help}${flag.default ? ` (default ${flag.default})` : ''}${flag.env ? ` [env ${flag.env}]` : ''}`)
  return 'Usage: computer-gateway fleet [options]\n\nDesktops on demand on the Docker engine (DOCKER_HOST, else the local socket), a Docker Swarm or a Kubernetes namespace (--backend): POST /desktops, and each desktop\'s API under /desktops/{id}/.\n\n' +
    `Options:\n${rows.join('\n')}\n`
}

function integer (name: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const number = Number(value)
  if (value.trim() === '' || !Number.isInteger(number) || number < min || number > max) throw new InvalidConfig(`--${name} must be an integer ${min}..${max} (got '${value}')`)
  return number
}

export function loadFleetConfig (argv: string[], env: NodeJS.ProcessEnv): FleetConfig {
  let values: Record<string, string | boolean | undefined>
  try {
    const options = Object.fromEntries(Object.entries(FLEET_FLAGS).map(([name, flag]: [string, Flag]) => [name, { type: flag.boolean ? 'boolean' as const : 'string' as const }]))
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as typeof values
  } catch (error) {
    throw new InvalidConfig(`${(error as Error).message}\n\n${fleetUsage()}`)
  }
  const get = (name: keyof typeof FLEET_FLAGS): string => {
    const flag: Flag = FLEET_FLAGS[name]
    return String(values[name] ?? (flag.env ? env[flag.env] : undefined) ?? flag.default ?? '')
  }
  const on = (name: keyof typeof FLEET_FLAGS) => ['1', 'true', 'yes'].includes(get(name).toLowerCase())

  const fleetId = get('fleet-id')
  if (!/^[a-z0-9][a-z0-9-]{0,31}$/.test(fleetId)) throw new InvalidConfig(`--fleet-id must be 1..32 lowercase letters, digits or '-', starting with a letter or digit (got '${fleetId}')`)
  const screen = /^(\d+)x(\d+)$/.exec(get('screen'))
  if (!screen) throw new InvalidConfig(`--screen must look like 1280x800 (got '${get('screen')}')`)
  const onExit = get('on-exit')
  if (onExit !== 'leave' && onExit !== 'end') throw new InvalidConfig(`--on-exit must be leave or end (got '${onExit}')`)
  const desktop = get('desktop')
  if (!(DESKTOP_KINDS as readonly string[]).includes(desktop)) throw new InvalidConfig(`--desktop must be one of ${DESKTOP_KINDS.join(', ')} (got '${desktop}')`)
  const browser = get('browser')
  if (!(BROWSER_KINDS as readonly string[]).includes(browser)) throw new InvalidConfig(`--browser must be one of ${BROWSER_KINDS.join(', ')} (got '${browser}')`)
  const backend = get('backend')
  if (backend !== 'docker' && backend !== 'swarm' && backend !== 'kubernetes') throw new InvalidConfig(`--backend must be docker, swarm or kubernetes (got '${backend}')`)
  const namespace = get('namespace')
  // A namespace's name is a DNS label (RFC 1123).
  if (namespace && !/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(namespace)) throw new InvalidConfig(`--namespace must be a Kubernetes namespace's name: 1..63 lowercase letters, digits or '-', starting and ending with a letter or digit (got '${namespace}')`)
  if (namespace && backend !== 'kubernetes') throw new InvalidConfig(`--namespace is for --backend kubernetes (the backend is ${backend})`)
  const image = get('image')
  if (!image.trim()) throw new InvalidConfig('--image must name an image')
  // The key is read as the server reads its token (src/runtime/token.ts): one rule for both.
  const { token } = readToken({ flag: values.token as string | undefined, fileFlag: values['token-file'] as string | undefined, env })
  const config: FleetConfig = {
    host: get('host'),
    port: integer('port', get('port'), 0, 65535),
    ...(token && { token }),
    allowUnauthenticated: on('allow-unauthenticated'),
    fleetId,
    backend,
    ...(namespace && { namespace }),
    image,
    warm: integer('warm', get('warm'), 0, 64),
    max: integer('max', get('max'), 1, 1024),
    screen: { width: integer('screen', screen[1]!, 320, 3840), height: integer('screen', screen[2]!, 320, 2160) },
    desktop: desktop as DesktopKind,
    browser: browser as BrowserKind,
    cpus: Number(get('cpus')),
    memoryBytes: integer('memory', get('memory'), 256) * 1024 * 1024,
    pids: integer('pids', get('pids'), 64),
    startTimeoutMs: integer('start-timeout', get('start-timeout'), 1) * 1000,
    shell: on('shell'),
    osworld: on('osworld'),
    onExit,
    logLevel: get('log-level'),
    help: on('help'),
  }
  if (!Number.isFinite(config.cpus) || config.cpus <= 0 || config.cpus > 256) throw new InvalidConfig(`--cpus must be a number above 0, at most 256 (got '${get('cpus')}')`)
  // Swarm and Kubernetes reach a desktop at one published or pod port: the guest's second port is not routed there.
  if (config.osworld && backend !== 'docker') throw new InvalidConfig(`--osworld is for --backend docker, which publishes the guest protocol's port beside the desktop's own (the backend is ${backend})`)
  if (config.warm > config.max) throw new InvalidConfig(`--warm (${config.warm}) must not exceed --max (${config.max}): the pool counts toward the maximum`)
  checkListenToken(config.host, config.token, config.allowUnauthenticated, 'create desktops and drive every one')
  return config
}
