/**
 * Configuration (SPEC §8): command-line flags, each with an environment fallback, checked
 * up front so a bad value stops the server with a message rather than failing later.
 */
import { parseArgs } from 'node:util'
import { DEFAULT_LIMITS, type Limits } from './actions/index.ts'
import { InvalidConfig } from './errors.ts'

export type DriverName = 'nut' | 'fake'
export const DRIVERS: readonly DriverName[] = ['nut', 'fake']

export interface Config {
  host: string
  port: number
  token?: string
  driver: DriverName
  screen: { width: number, height: number, depth: number }
  logLevel: string
  allowUnauthenticated: boolean
  holdTimeoutMs: number
  limits: Limits
  help: boolean
}

interface Flag {
  env: string
  help: string
  default?: string
  boolean?: boolean
}

const FLAGS = {
  host: { env: 'HOST', default: '127.0.0.1', help: 'address to listen on' },
  port: { env: 'PORT', default: '8000', help: 'port to listen on' },
  token: { env: 'API_TOKEN', help: 'API token; required by every route but GET /health when set' },
  driver: { env: 'DRIVER', default: 'nut', help: `desktop driver: ${DRIVERS.join(' | ')}` },
  screen: { env: 'SCREEN', default: '1280x800x24', help: 'size of the Xvfb started when DISPLAY is unset (WxHxDEPTH)' },
  'log-level': { env: 'LOG_LEVEL', default: 'info', help: 'fatal | error | warn | info | debug | trace | silent' },
  'allow-unauthenticated': { env: 'ALLOW_UNAUTHENTICATED', boolean: true, help: 'allow a non-loopback host without a token' },
  'hold-timeout': { env: 'HOLD_TIMEOUT', default: '120', help: 'seconds of inactivity after which held keys and buttons are released' },
  'max-wait': { env: 'MAX_WAIT', default: String(DEFAULT_LIMITS.maxWaitSeconds), help: 'longest wait, seconds' },
  'max-key-hold': { env: 'MAX_KEY_HOLD', default: String(DEFAULT_LIMITS.maxKeyHoldSeconds), help: 'longest press_key duration, seconds' },
  'max-text': { env: 'MAX_TEXT', default: String(DEFAULT_LIMITS.maxTextLength), help: 'longest type_text, characters' },
  'max-path': { env: 'MAX_PATH', default: String(DEFAULT_LIMITS.maxPathPoints), help: 'most points in a drag path' },
  'max-clicks': { env: 'MAX_CLICKS', default: String(DEFAULT_LIMITS.maxClicks), help: 'most clicks in one click_mouse' },
  'max-combo': { env: 'MAX_COMBO', default: String(DEFAULT_LIMITS.maxComboKeys), help: 'most keys in one combo' },
  'max-batch': { env: 'MAX_BATCH', default: String(DEFAULT_LIMITS.maxBatchActions), help: 'most actions in one batch' },
  'max-body-bytes': { env: 'MAX_BODY_BYTES', default: String(DEFAULT_LIMITS.maxBodyBytes), help: 'largest request body, bytes' },
  help: { env: '', boolean: true, help: 'print this help' },
} satisfies Record<string, Flag>

type FlagName = keyof typeof FLAGS

export function usage (): string {
  const rows = Object.entries(FLAGS).map(([name, flag]: [string, Flag]) => {
    const value = flag.boolean ? '' : ' <value>'
    const env = flag.env ? ` [env ${flag.env}]` : ''
    const fallback = flag.default ? ` (default ${flag.default})` : ''
    return `  --${name}${value}\n      ${flag.help}${fallback}${env}`
  })
  return `Usage: computer-gateway [options]\n\nServes POST /computer onto an X11 desktop; starts its own Xvfb when DISPLAY is unset.\n\nOptions:\n${rows.join('\n')}\n`
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/

function positiveInteger (name: string, value: string): number {
  const number = Number(value)
  if (!Number.isInteger(number) || number <= 0) throw new InvalidConfig(`--${name} must be a positive integer (got '${value}')`)
  return number
}

function positiveNumber (name: string, value: string): number {
  const number = Number(value)
  if (!Number.isFinite(number) || number <= 0) throw new InvalidConfig(`--${name} must be a positive number (got '${value}')`)
  return number
}

export function parseScreen (value: string): Config['screen'] {
  const match = /^(\d+)x(\d+)(?:x(\d+))?$/.exec(value)
  if (!match) throw new InvalidConfig(`--screen must look like 1280x800x24 (got '${value}')`)
  const [width, height, depth] = [Number(match[1]), Number(match[2]), Number(match[3] ?? 24)]
  if (width < 64 || height < 64 || width > 16384 || height > 16384) throw new InvalidConfig(`--screen ${value}: width and height must be 64..16384`)
  if (![8, 16, 24].includes(depth)) throw new InvalidConfig(`--screen ${value}: depth must be 8, 16 or 24`)
  return { width, height, depth }
}

export function loadConfig (argv: string[], env: NodeJS.ProcessEnv): Config {
  let values: Record<string, string | boolean | undefined>
  try {
    const options = Object.fromEntries(Object.entries(FLAGS).map(([name, flag]: [string, Flag]) =>
      [name, { type: flag.boolean ? 'boolean' as const : 'string' as const }]))
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values
  } catch (error) {
    throw new InvalidConfig(`${(error as Error).message}\n\n${usage()}`)
  }
  const get = (name: FlagName): string | undefined => {
    const flag: Flag = FLAGS[name]
    const value = values[name] ?? (flag.env ? env[flag.env] : undefined) ?? flag.default
    return typeof value === 'boolean' ? String(value) : value
  }
  const on = (name: FlagName) => ['1', 'true', 'yes'].includes((get(name) ?? '').toLowerCase())

  const driver = get('driver') as DriverName
  if (!DRIVERS.includes(driver)) throw new InvalidConfig(`--driver must be one of ${DRIVERS.join(', ')} (got '${driver}')`)
  const port = Number(get('port'))
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidConfig(`--port must be 0..65535 (got '${get('port')}')`)
  const token = get('token') || undefined
  const config: Config = {
    host: get('host')!,
    port,
    ...(token && { token }),
    driver,
    screen: parseScreen(get('screen')!),
    logLevel: get('log-level')!,
    allowUnauthenticated: on('allow-unauthenticated'),
    holdTimeoutMs: Math.round(positiveNumber('hold-timeout', get('hold-timeout')!) * 1000),
    limits: {
      maxWaitSeconds: positiveNumber('max-wait', get('max-wait')!),
      maxKeyHoldSeconds: positiveNumber('max-key-hold', get('max-key-hold')!),
      maxTextLength: positiveInteger('max-text', get('max-text')!),
      maxPathPoints: positiveInteger('max-path', get('max-path')!),
      maxClicks: positiveInteger('max-clicks', get('max-clicks')!),
      maxComboKeys: positiveInteger('max-combo', get('max-combo')!),
      maxBatchActions: positiveInteger('max-batch', get('max-batch')!),
      maxBodyBytes: positiveInteger('max-body-bytes', get('max-body-bytes')!),
    },
    help: on('help'),
  }
  if (!LOOPBACK.test(config.host) && !config.token && !config.allowUnauthenticated) {
    throw new InvalidConfig(
      `refusing to listen on ${config.host} without a token: anyone who reaches it could drive this desktop. ` +
      'Set API_TOKEN (or --token), or pass --allow-unauthenticated if the network is yours alone.')
  }
  return config
}
