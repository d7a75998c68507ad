/**
 * buildApp(options) — the composition root. It wires the schemas, the executor over the
 * given driver, the routes, auth, errors and OpenAPI into one Fastify instance, and listens
 * nowhere: src/runtime/server.ts listens, tests use app.inject().
 *
 * This file and src/runtime/server.ts are the only files in src/ that import routes/ or adapters/, and
 * only src/runtime/server.ts imports drivers/: the driver and the accessibility source come in as options.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { Logger } from 'pino'
import { buildActionSchemas, DEFAULT_LIMITS, type Limits } from '../actions/index.ts'
import { ActionResponse, BatchResponse } from '../actions/response.ts'
import { authHook } from './auth.ts'
import type { Driver } from '../driver/driver.ts'
import { imageBodies } from './image-bodies.ts'
import { installErrorHandler } from './error-handler.ts'
import { InvalidConfig, RouteNotFound } from '../errors/errors.ts'
import { clientErrorHandler, guardHook } from './http-guard.ts'
import { Executor } from '../executor/executor.ts'
import type { LaunchRules } from '../executor/plan.ts'
import { loggerOptions } from '../runtime/logger.ts'
import { RequestLog } from './request-log.ts'
import { documentRoute, openapiInfo, publishedDocument } from './openapi-info.ts'
import { ActionQuery } from '../schemas/action-query.ts'
import { BatchFailure, ErrorBody } from '../schemas/error-body.ts'
import { createValidatorCompiler, formatValidationErrors } from '../schemas/validation.ts'
import { RouteWarmup, serializersOnFirstUse } from './compile-on-first-use.ts'
import type { Adapter } from '../pipeline/adapter.ts'
import { AdapterInfo, AdapterList, TranslateResponse } from '../schemas/adapter-responses.ts'
import { ADAPTERS } from '../../adapters/index.ts'
import { adapterRoutes } from '../../routes/adapters.ts'
import { adapterPipeline, adapterQuerySchema } from '../pipeline/adapter-pipeline.ts'
import { computerRoutes } from '../../routes/computer.ts'
import { healthRoutes } from '../../routes/health.ts'
import { controlRoutes } from '../../routes/control.ts'
import { ControlLease } from '../control/lease.ts'
import { CONTROL_SCHEMAS } from '../control/schema.ts'
import { humanWebhook } from '../control/webhook.ts'
import { hostname } from 'node:os'
import { leasedShell, leasedWallpaper } from '../control/guest-shell.ts'
import { controlMarks } from '../control/recording-marks.ts'
import { accessibilityRoutes } from '../../routes/accessibility.ts'
import { ACCESSIBILITY_SCHEMAS } from '../accessibility/schema.ts'
import { Accessibility } from '../accessibility/service.ts'
import { McpTools } from '../mcp/tools-service.ts'
import { mcpRoutes } from '../../routes/mcp.ts'
import type { Size } from '../screen/geometry.ts'
import { noAccessibility, type AccessibilitySource } from '../accessibility/source.ts'
import { Activity } from '../live/activity.ts'
import { LiveSessions } from '../live/sessions.ts'
import type { LiveSource } from '../live/source.ts'
import { LIVE_MAX_MESSAGE_BYTES, liveRoutes } from '../../routes/live.ts'
import websocket from '@fastify/websocket'
import { Recorder, type RecorderOptions } from '../recording/recorder.ts'
import { RecordingExecutor } from '../recording/recording-executor.ts'
import { recordingHooks } from '../recording/hooks.ts'
import { RECORDING_SCHEMAS } from '../recording/schema.ts'
import { recordingRoutes } from '../../routes/recordings.ts'
import { FileStore, type FileStoreOptions } from '../files/store.ts'
import type { ClipboardSource } from '../clipboard/source.ts'
import { FILES_SCHEMAS } from '../files/schema.ts'
import { filesOffRoutes, filesRoutes } from '../../routes/files.ts'
import { scrapybaraToolRoutes } from '../../routes/scrapybara-tools.ts'
import { FileCommands } from '../files/commands.ts'
import { browserRoutes } from '../../routes/browser.ts'
import { BROWSER_SCHEMAS } from '../browser/schema.ts'
import { CdpBroker } from '../browser/cdp-broker.ts'
import type { DevtoolsSource } from '../browser/source.ts'
import type { BrowserKind } from '../runtime/desktop-apps.ts'
import { ShellService, type ShellLimits } from '../shell/service.ts'
import { TextEditor } from '../editor/editor.ts'
import { buildGuestApp } from '../../routes/osworld/index.ts'
import type { GuestShell } from '../osworld/shell.ts'
import { guestShell } from '../osworld/guest-shell.ts'

export interface DesktopInfo {
  /** The X display the driver acts on, when there is one (may be a getter: it is known once started). */
  readonly display?: string | undefined
}

export interface AppOptions {
  driver: Driver
  /** Required for every route but GET /health when set. */
  token?: string
  /** The address the server listens on; decides which Host headers are its own (default 127.0.0.1). */
  listenHost?: string
  /** Origins whose web pages may call the server; any other Origin is refused (403). */
  allowOrigins?: readonly string[]
  /** Names besides loopback and the bound address that the server is reached by. */
  allowHosts?: readonly string[]
  /** Time a client has to send its headers (default 10 s), and its whole request (default 30 s); else 408. */
  headersTimeoutMs?: number
  requestTimeoutMs?: number
  /** Most open connections (default 256); more are closed at once. */
  maxConnections?: number
  limits?: Limits
  /** Held keys/buttons are released after this long without an action. */
  holdTimeoutMs?: number
  /** launch_app's allow-list: name → argv (no shell). Default: empty, launch_app refuses every name. */
  apps?: Readonly<Record<string, readonly string[]>>
  /** How long launch_app waits for the application's first window (default 10 s). */
  launchTimeoutMs?: number
  /** launch_app's targets (what each app takes, the home they must lie under) and whether windows open maximised. */
  launchRules?: LaunchRules
  /** A settled screenshot's quiet window and cap when a request names none (default DEFAULT_SETTLE). */
  settle?: { quietMs: number, maxMs: number }
  /** A ready logger (tests pass one writing to a capture stream), or a level for the default one. */
  logger?: Logger | { level: string }
  desktop?: DesktopInfo
  /** The adapters served under /computer/{name}; default all of adapters/. */
  adapters?: Adapter[]
  /**
   * Where the accessibility tree is read and its elements acted on (GET /accessibility,
   * get_accessibility_tree, element_action), closed with the app; openDesktop gives the one of
   * its desktop. Default: none (those actions are refused).
   */
  accessibility?: AccessibilitySource
  /** The screen size MCP clients see when a call declares none (default: the real screen). */
  mcpDisplay?: Size
  /** The desktop's VNC server, for the live view at GET /live; without one there is no live view. */
  live?: LiveSource
  /**
   * Record episodes (--record): requests carrying X-Recording-Id are stored with their
   * screenshots and the desktop's video (README "Recordings"). Default: off, and the header is ignored.
   */
  recording?: Omit<RecorderOptions, 'log'> & { /** A screenshot after each recorded action, for the recording only. */ screenshots?: boolean }
  /** The desktop's clipboard (--clipboard), closed with the app; without it get_clipboard and set_clipboard are refused and MCP does not list them. */
  clipboard?: ClipboardSource
  /** /files under this home directory (--files); without it /files answers 404 saying how to turn it on. */
  files?: FileStoreOptions
  /** The desktop's browser (--browser, default firefox) and, for chromium on an X desktop, its DevTools (/browser/cdp), closed with the app. */
  browser?: { kind: BrowserKind, devtools?: DevtoolsSource }
  /** The shell (--shell): commands as the desktop's user in this home; without it run_command and bash answer 403 naming the flag. */
  shell?: { home: string, limits: ShellLimits }
  /**
   * OSWorld's guest protocol (--osworld, docs/osworld.md): built as `app.osworldGuest`, a Fastify
   * instance of its own that src/runtime/server.ts listens with on --osworld-port; its files
   * under this home, what is not pyautogui code through `shell` (refused without one), the
   * wallpaper through `wallpaper` (the full desktop's; refused without one).
   */
  osworld?: { files: FileStoreOptions, shell?: GuestShell, wallpaper?: (file: string) => Promise<void> }
  /** --human-webhook: POSTed {desktop, message, since} when an agent asks for a person (docs/takeover.md). */
  humanWebhook?: string
  /** The desktop's name in the webhook's body (default the host's name). */
  desktopName?: string
}

export const DEFAULT_HOLD_TIMEOUT_MS = 120_000
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000
export const DEFAULT_MAX_CONNECTIONS = 256

declare module 'fastify' {
  interface FastifyInstance {
    executor: Executor
    actionSchemas: ReturnType<typeof buildActionSchemas>
    desktopInfo: DesktopInfo
    mcpTools: McpTools
    /** The recorder with --record, else null (GET /health reports its load). */
    recorder: Recorder | null
    /** The desktop's control lease (docs/takeover.md). */
    control: ControlLease
    /** OSWorld's guest protocol with `osworld`, else null; it listens on a port of its own. */
    osworldGuest: FastifyInstance | null
  }
}

export async function buildApp (options: AppOptions): Promise<FastifyInstance> {
  const limits = options.limits ?? DEFAULT_LIMITS
  const actionSchemas = buildActionSchemas(limits)
  const adapters = options.adapters ?? ADAPTERS
  const adapterSchemas = adapters.flatMap((adapter) => [
    ...adapter.schemas ?? [], ...adapter.versions.map((version) => version.schema), adapter.resultSchema, adapterQuerySchema(adapter),
  ])
  const shared = [
    ...actionSchemas.shared, ActionQuery, ActionResponse, BatchResponse, ErrorBody, BatchFailure,
    AdapterInfo, AdapterList, TranslateResponse, ...adapterSchemas, ...ACCESSIBILITY_SCHEMAS,
    ...RECORDING_SCHEMAS, ...FILES_SCHEMAS, ...BROWSER_SCHEMAS, ...CONTROL_SCHEMAS,
  ]

  const warmup = new RouteWarmup()
  const logger = options.logger && 'child' in options.logger ? options.logger : undefined
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
  const headersTimeout = Math.min(options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout)
  const app = Fastify({
    ...(logger ? { loggerInstance: logger as FastifyBaseLogger } : { logger: loggerOptions(options.logger?.level ?? 'info') }),
    bodyLimit: limits.maxBodyBytes,
    logController: new RequestLog(),
    // Starting the desktop (onReady) has deadlines of its own (Xvfb, the worker's load and
    // connect, 15 s each); Fastify's default 10 s refused to start on a busy machine.
    pluginTimeout: 60_000,
    // Node counts these from the request's first byte until it has fully arrived; the time an
    // action then takes (a 60 s wait) is not upload time and does not count. Node checks them
    // every 30 s by default, which would give a stalled client 30 s more.
    requestTimeout,
    http: { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.max(50, Math.min(1000, headersTimeout / 4)) },
    clientErrorHandler: clientErrorHandler(requestTimeout, headersTimeout),
    schemaErrorFormatter: (errors, dataVar) => new Error(formatValidationErrors(errors, dataVar)),
    schemaController: { compilersFactory: { buildSerializer: serializersOnFirstUse((route, serializer) => {
      // What a first request needs is its validators and its success's serializer; errors can wait.
      if (String(route.httpStatus).startsWith('2')) warmup.add(route.url, serializer)
    }) } },
  }).withTypeProvider<TypeBoxTypeProvider>()

  for (const schema of shared) app.addSchema(schema)
  const validatorCompiler = createValidatorCompiler(shared)
  app.setValidatorCompiler((request) => {
    const validate = validatorCompiler(request)
    warmup.add(request.url, validate)
    return validate
  })

  const source = options.accessibility ?? noAccessibility('this server was built without an accessibility tree')
  const accessibility = new Accessibility(source, app.log.child({ component: 'accessibility' }) as Logger)
  const control = new ControlLease({ log: app.log.child({ component: 'control' }) as Logger })
  const executorOptions = {
    control,
    driver: options.driver,
    accessibility,
    log: app.log.child({ component: 'executor', driver: options.driver.name }) as Logger,
    holdTimeoutMs: options.holdTimeoutMs ?? DEFAULT_HOLD_TIMEOUT_MS,
    ...(options.apps && { apps: options.apps }),
    ...(options.launchTimeoutMs !== undefined && { launchTimeoutMs: options.launchTimeoutMs }),
    ...(options.launchRules && { launchRules: options.launchRules }),
    ...(options.settle && { settle: options.settle }),
    ...(options.clipboard && { clipboard: options.clipboard }),
    tools: {
      ...(options.shell && { shell: new ShellService({ ...options.shell, display: () => options.desktop?.display }) }),
      ...(options.files && { editor: new TextEditor({ home: options.files.home, maxBytes: options.files.maxFileSize }) }),
    },
  }
  // Recording sees every transport's runs through the executor; without it there is nothing in between.
  const executor = options.recording
    ? new RecordingExecutor({ ...executorOptions, screenshotAfter: options.recording.screenshots === true })
    : new Executor(executorOptions)
  app.decorate('executor', executor)
  app.decorate('control', control)
  // The agent's held input goes when a person takes over; theirs (and anything left) when they hand back.
  control.onReleasing(() => executor.releaseAll())
  control.onEvent((event) => {
    if (event.type === 'takeover') executor.releaseAll().catch((error: unknown) => app.log.warn({ err: error }, 'releasing the agent\'s held input at takeover failed'))
  })
  if (options.humanWebhook) control.onEvent(humanWebhook(options.humanWebhook, { desktop: options.desktopName ?? hostname(), log: app.log.child({ component: 'human-webhook' }) as Logger }))
  options.driver.onReplaced?.(() => {
    executor.desktopReplaced()
    void accessibility.desktopReplaced()
  })
  app.decorate('actionSchemas', actionSchemas)
  app.decorate('desktopInfo', options.desktop ?? {})

  const devtools = options.browser?.devtools
  const broker = devtools && new CdpBroker(devtools, app.log.child({ component: 'cdp' }) as Logger)
  if (options.live || broker) {
    // First of all hooks: it marks WebSocket upgrades, and ends the socket of every upgrade that
    // gets an HTTP answer (a 403 from the guard, a 401) — registered after them, it would not
    // see those, and each refused upgrade would keep its socket open.
    await app.register(websocket, { options: { maxPayload: LIVE_MAX_MESSAGE_BYTES } })
  }
  installErrorHandler(app, limits.maxBodyBytes)
  app.setNotFoundHandler((request) => {
    throw new RouteNotFound(`no route ${request.method} ${request.url.split('?')[0]}; the API is described at /docs and /openapi.json`)
  })
  app.server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS
  // Before auth: a web page is refused whether or not the server has a token.
  app.addHook('onRequest', guardHook({
    token: Boolean(options.token),
    ...(options.listenHost !== undefined && { listenHost: options.listenHost }),
    ...(options.allowOrigins && { allowOrigins: options.allowOrigins }),
    ...(options.allowHosts && { allowHosts: options.allowHosts }),
  }))
  if (options.token) app.addHook('onRequest', authHook(options.token))
  // Before the recording's hooks: its onSend sees the body whole, screenshots in it.
  imageBodies(app)
  let recorder: Recorder | undefined
  if (options.recording) {
    const { screenshots: _screenshots, ...recorderOptions } = options.recording
    recorder = new Recorder({ ...recorderOptions, log: app.log.child({ component: 'recording' }) as Logger })
    await recorder.open()
    // After auth: a refused request is never recorded.
    recordingHooks(app, recorder)
  }
  app.decorate('recorder', recorder ?? null)
  if (recorder) control.onEvent(controlMarks(recorder))

  await app.register(swagger, {
    openapi: openapiInfo,
    transform: documentRoute,
    transformObject: (document) => publishedDocument('openapiObject' in document ? document.openapiObject : document.swaggerObject),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `schema-${i}`) },
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  await app.register(healthRoutes)
  await app.register(controlRoutes, { control })
  await app.register(computerRoutes)
  const pipelines = adapters.map((adapter) => adapterPipeline(adapter, {
    executor, limits, compile: (schema) => validatorCompiler({ schema, httpPart: 'body' }),
  }))
  await app.register(adapterRoutes, { pipelines, compile: validatorCompiler })
  await app.register(accessibilityRoutes)
  app.decorate('mcpTools', new McpTools({
    executor, actionSchemas, shared, compile: (schema) => validatorCompiler({ schema, httpPart: 'body' }),
    windowsUnavailable: async () => options.driver.windows ? options.driver.windows.unavailable() : `the ${options.driver.name} driver has no window control`,
    ...(options.mcpDisplay && { display: options.mcpDisplay }),
    clipboard: options.clipboard !== undefined,
    shell: options.shell !== undefined,
    editor: options.files !== undefined,
    ...(executorOptions.tools.shell && { endShellScope: executorOptions.tools.shell.endScope.bind(executorOptions.tools.shell) }),
    log: app.log.child({ component: 'mcp' }) as Logger,
  }))
  await app.register(mcpRoutes)
  if (options.live) {
    const activity = new Activity()
    // What the live view's panel shows as the last action: every call that acts on the desktop.
    app.addHook('onResponse', (request, reply, done) => {
      if (request.routeOptions.url?.startsWith('/computer')) activity.record(request.routeOptions.url, request.body, reply.statusCode, reply.elapsedTime)
      done()
    })
    await app.register(liveRoutes, { source: options.live, control, sessions: new LiveSessions(), activity, token: Boolean(options.token) })
  } else {
    app.get('/live', { schema: { hide: true } }, async () => {
      throw new RouteNotFound('this server has no live view: it needs an X desktop (--driver nut or xdotool) to show')
    })
  }

  await app.register(recordingRoutes, { recorder, sessions: new LiveSessions(), ...(options.token && { token: options.token }) })
  const fileStore = options.files ? new FileStore(options.files) : undefined
  if (fileStore) {
    await app.register(filesRoutes, { store: fileStore, control })
  } else {
    await app.register(filesOffRoutes)
  }
  const { editor, shell } = executorOptions.tools
  await app.register(scrapybaraToolRoutes, { control, shell, files: fileStore && editor && new FileCommands({ home: options.files!.home, store: fileStore, editor, mayWrite: () => control.assertAgentMayAct() }) })
  await app.register(browserRoutes, { ...browserRouteOptions(options.browser?.kind ?? 'firefox', broker, options.driver.name), control })
  const pyautogui = pipelines.find((pipeline) => pipeline.adapter.name === 'pyautogui')
  if (options.osworld && !pyautogui) throw new InvalidConfig("OSWorld's guest protocol runs its code through the pyautogui adapter, which this server was built without")
  // What is not pyautogui code runs through the shell, when --shell is on.
  const ungated = options.osworld?.shell ?? (executorOptions.tools.shell && guestShell(executorOptions.tools.shell))
  const guestCommands = ungated && leasedShell(ungated, control)
  app.decorate('osworldGuest', options.osworld && pyautogui
    ? await buildGuestApp({
      executor, pyautogui, accessibility: source, files: fileStore ?? new FileStore(options.osworld.files), home: options.osworld.files.home,
      apps: Object.keys(options.apps ?? {}), recorder: recorder ?? null,
      ...(guestCommands && { shell: guestCommands }),
      // The wallpaper is the desktop's look: not changed while a person holds it.
      ...(options.osworld.wallpaper && { wallpaper: leasedWallpaper(options.osworld.wallpaper, control) }),
      logger: app.log as Logger, ...(options.token && { token: options.token }), ...(options.listenHost !== undefined && { listenHost: options.listenHost }),
      ...(options.allowHosts && { allowHosts: options.allowHosts }), bodyLimit: limits.maxBodyBytes,
      requestTimeoutMs: requestTimeout, headersTimeoutMs: headersTimeout, maxConnections: app.server.maxConnections,
    })
    : null)

  app.addHook('onReady', async () => {
    const started = options.driver.start()
    // An agent's first request is the unified route's: its schemas compile while the desktop starts.
    await Promise.all([started, warmup.compile(['/computer'])])
  })
  // Before the server waits for its requests to end: a request_human still waiting is answered now.
  app.addHook('preClose', async () => { control.close() })
  app.addHook('onClose', async () => {
    await app.osworldGuest?.close()
    // First: the videos are finalised while the desktop they capture is still there.
    await recorder?.close()
    await executor.close()
    await accessibility.close()
    await options.clipboard?.close()
    broker?.close()
    await devtools?.close()
    await executorOptions.tools.shell?.close()
    await options.driver.close()
  })
  return app
}

/** What /browser/cdp serves, or why it refuses: the flag that would turn it on. */
function browserRouteOptions (kind: BrowserKind, broker: CdpBroker | undefined, driver: string) {
  if (broker) return { browser: kind, broker }
  const why = kind === 'firefox'
    ? "the desktop's browser is Firefox, whose DevTools this server does not serve: start the server with --browser chromium (env DESKTOP_BROWSER=chromium) for /browser/cdp"
    : `--browser chromium serves its DevTools on an X desktop, and the ${driver} driver has none: use --driver nut or xdotool`
  return { browser: kind, why }
}
