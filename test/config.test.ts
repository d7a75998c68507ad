/** Configuration (SPEC §8): flags, environment fallbacks, defaults, and clear refusals. */
import t from 'tap'
import { DEFAULT_LIMITS, LIMIT_FLAGS } from '../src/actions/index.ts'
import { loadConfig, usage } from '../src/runtime/config.ts'
import { DRIVER_NAMES } from '../drivers/index.ts'

t.test('defaults', async (t) => {
  t.match(loadConfig([], {}), {
    host: '127.0.0.1', port: 8000, driver: 'nut', screen: { width: 1280, height: 800, depth: 24 },
    logLevel: 'info', allowUnauthenticated: false, holdTimeoutMs: 120_000, help: false,
    limits: { maxWaitSeconds: 60, maxKeyHoldSeconds: 30, maxTextLength: 100_000, maxPathPoints: 1000, maxClicks: 10, maxComboKeys: 10, maxBatchActions: 100, maxBodyBytes: 1048576, maxScrollNotches: 100, maxDisplaySide: 4096, maxBatchSeconds: 120 },
  })
  t.equal(loadConfig([], {}).token, undefined)
})

t.test('flags win over the environment, which wins over defaults', async (t) => {
  const env = { PORT: '9000', DRIVER: 'fake', SCREEN: '1024x768x16', LOG_LEVEL: 'debug', API_TOKEN: 'e', MAX_WAIT: '5', HOLD_TIMEOUT: '1.5' }
  t.match(loadConfig([], env), { port: 9000, driver: 'fake', screen: { width: 1024, height: 768, depth: 16 }, logLevel: 'debug', token: 'e', holdTimeoutMs: 1500, limits: { maxWaitSeconds: 5 } })
  t.match(loadConfig(['--port', '9100', '--token', 'f', '--max-wait', '7'], env), { port: 9100, token: 'f', limits: { maxWaitSeconds: 7 } })
})

t.test('bad values stop the server with a message', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['--driver', 'magic'], /^--driver must be one of nut, xdotool, fake \(got 'magic'\)$/],
    [['--port', '70000'], /^--port must be 0\.\.65535/],
    [['--screen', 'big'], /^--screen must look like 1280x800x24 \(got 'big'\)$/],
    [['--screen', '10x10x24'], /width and height must be 64\.\.16384/],
    [['--max-text', '0'], /^--max-text must be a positive integer \(got '0'\)$/],
    [['--hold-timeout', '0'], /^--hold-timeout must be a positive number/],
    [['--nope'], /Unknown option '--nope'/],
  ]
  for (const [argv, message] of cases) t.throws(() => loadConfig(argv, {}, { drivers: DRIVER_NAMES }), { code: 'ERR_INVALID_CONFIG', message }, argv.join(' '))
})

t.test('--help lists every flag with its environment variable', async (t) => {
  t.equal(loadConfig(['--help'], {}).help, true)
  for (const text of ['--host', '[env HOST]', '--token', '[env API_TOKEN]', '--allow-unauthenticated', '--max-body-bytes']) t.match(usage(), text)
})

t.test('browser and connection flags: allowed origins and hosts, timeouts, connection cap', async (t) => {
  t.match(loadConfig([], {}), { allowOrigins: [], allowHosts: [], headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 256 })
  const env = { ALLOW_ORIGINS: 'http://localhost:3000, https://App.Example.com:443/', ALLOW_HOSTS: 'Gateway.internal,::1', HEADERS_TIMEOUT: '2', REQUEST_TIMEOUT: '5', MAX_CONNECTIONS: '8' }
  t.strictSame(
    (({ allowOrigins, allowHosts, headersTimeoutMs, requestTimeoutMs, maxConnections }) => ({ allowOrigins, allowHosts, headersTimeoutMs, requestTimeoutMs, maxConnections }))(loadConfig([], env)),
    { allowOrigins: ['http://localhost:3000', 'https://app.example.com'], allowHosts: ['gateway.internal', '[::1]'], headersTimeoutMs: 2000, requestTimeoutMs: 5000, maxConnections: 8 })
  t.strictSame(loadConfig(['--allow-origin', 'http://a.test:8080', '--allow-origin', 'https://b.test', '--allow-host', '10.0.0.5'], env).allowOrigins, ['http://a.test:8080', 'https://b.test'], 'flags replace the environment')
  t.strictSame(loadConfig(['--allow-host', '10.0.0.5'], env).allowHosts, ['10.0.0.5'])

  const notOrigin = (value: string) => `--allow-origin: '${value}' is not an origin: give scheme://host[:port] as the browser shows it, e.g. http://localhost:3000 (no path, no wildcard, not null)`
  const cases: Array<[string[], string]> = [
    [['--allow-origin', '*'], notOrigin('*')],
    [['--allow-origin', 'null'], notOrigin('null')],
    [['--allow-origin', 'localhost:3000'], notOrigin('localhost:3000')],
    [['--allow-origin', 'http://localhost:3000/app'], notOrigin('http://localhost:3000/app')],
    [['--allow-origin', 'file:///tmp/x.html'], notOrigin('file:///tmp/x.html')],
    [['--allow-host', 'http://gateway'], "--allow-host: 'http://gateway' is not a host name or IP address (give the name alone, without scheme or port)"],
    [['--allow-host', 'gateway:8000'], "--allow-host: 'gateway:8000' is not a host name or IP address (give the name alone, without scheme or port)"],
    [['--headers-timeout', '40'], '--headers-timeout (40 s) must not exceed --request-timeout (30 s): the headers are part of the request'],
    [['--max-connections', '0'], "--max-connections must be a positive integer (got '0')"],
    [['--request-timeout', 'soon'], "--request-timeout must be a positive number (got 'soon')"],
  ]
  for (const [argv, message] of cases) t.throws(() => loadConfig(argv, {}, { drivers: DRIVER_NAMES }), { code: 'ERR_INVALID_CONFIG', message }, argv.join(' '))
  for (const text of ['--allow-origin', '[env ALLOW_ORIGINS]', '--allow-host', '[env ALLOW_HOSTS]', '--request-timeout', '--headers-timeout', '--max-connections']) t.match(usage(), text)
})

t.test('every limit has the flag its refusals name, with an environment fallback', async (t) => {
  for (const [limit, flag] of Object.entries(LIMIT_FLAGS) as Array<[keyof typeof LIMIT_FLAGS, string]>) {
    t.match(usage(), `--${flag} <value>`, flag)
    const value = DEFAULT_LIMITS[limit] + 1
    t.equal(loadConfig([`--${flag}`, String(value)], {}).limits[limit], value, `--${flag}`)
    const env = flag.toUpperCase().replaceAll('-', '_')
    t.equal(loadConfig([], { [env]: String(value) }).limits[limit], value, env)
  }
  t.throws(() => loadConfig(['--max-scroll-notches', '2.5'], {}), { message: "--max-scroll-notches must be a positive integer (got '2.5')" })
  t.throws(() => loadConfig(['--max-batch-seconds', '0'], {}), { message: "--max-batch-seconds must be a positive number (got '0')" })
})

t.test('the desktop: --desktop, --home and --autostart, with their environment variables', async (t) => {
  const pick = ({ desktop, home, autostart, apps, appTargets }: ReturnType<typeof loadConfig>) => ({ desktop, home, autostart, apps, appTargets })
  t.strictSame(pick(loadConfig([], { HOME: '/home/u' })), { desktop: 'minimal', home: '/home/u', autostart: [], apps: {}, appTargets: {} }, 'minimal by default: no applications by name; the home is $HOME')
  const full = pick(loadConfig(['--desktop', 'full', '--home', '/srv/desk', '--autostart', 'browser=https://example.com/a,b', '--autostart', 'terminal'], { HOME: '/home/u' }))
  t.strictSame(full, {
    desktop: 'full',
    home: '/srv/desk',
    autostart: [{ app: 'browser', target: 'https://example.com/a,b' }, { app: 'terminal' }],
    apps: {
      browser: ['firefox-esr', '--new-window'],
      terminal: ['xfce4-terminal'],
      editor: ['mousepad'],
      files: ['thunar'],
      pdf: ['atril'],
      calculator: ['galculator'],
      writer: ['libreoffice', '--nologo', '--writer'],
      spreadsheet: ['libreoffice', '--nologo', '--calc'],
    },
    appTargets: { browser: 'url', terminal: 'directory', editor: 'path', files: 'path', pdf: 'path', calculator: 'path', writer: 'path', spreadsheet: 'path' },
  }, 'full: the desktop\'s applications by name; a flag\'s target may hold commas')
  const fromEnv = pick(loadConfig([], { DESKTOP: 'full', DESKTOP_HOME: 'rel/home', AUTOSTART: 'editor=notes.txt, files', HOME: '/home/u' }))
  t.match(fromEnv, { desktop: 'full', home: `${process.cwd()}/rel/home`, autostart: [{ app: 'editor', target: 'notes.txt' }, { app: 'files' }] }, 'DESKTOP, DESKTOP_HOME (made absolute), AUTOSTART (a comma list)')
  const overridden = pick(loadConfig(['--desktop', 'full', '--allow-app', 'browser=chromium --incognito', '--allow-app', 'xterm=xterm'], {}))
  t.match(overridden, { apps: { browser: ['chromium', '--incognito'], xterm: ['xterm'], editor: ['mousepad'] } }, '--allow-app adds and overrides')
  t.notOk('browser' in overridden.appTargets, 'an overridden app takes a path, like any allowed app')

  const cases: Array<[string[], string]> = [
    [['--desktop', 'kde'], "--desktop must be one of minimal, full (got 'kde')"],
    [['--autostart', 'browser'], "--autostart browser: 'browser' is not an application launch_app knows; none is (use --desktop full, or --allow-app)"],
    [['--desktop', 'full', '--autostart', 'paint'], "--autostart paint: 'paint' is not an application launch_app knows; known: browser, terminal, editor, files, pdf, calculator, writer, spreadsheet"],
    [['--desktop', 'full', '--autostart', 'browser='], "--autostart browser=: the target after '=' is empty"],
    [['--desktop', 'full', '--home', '/srv/desk', '--autostart', 'browser=javascript:alert(1)'], "--autostart browser=javascript:alert(1): target of app 'browser' must be an http, https or file URL; javascript URLs are not opened"],
    [['--desktop', 'full', '--home', '/srv/desk', '--autostart', 'editor=/etc/passwd'], `--autostart editor=/etc/passwd: target "/etc/passwd" of app 'editor' is outside the desktop's home /srv/desk; only paths under it are opened`],
    [['--desktop', 'full', '--home', '/srv/desk', '--autostart', 'editor=-v'], `--autostart editor=-v: target "-v" of app 'editor' begins with '-', which the program would read as an option; give a path or URL`],
  ]
  for (const [argv, message] of cases) t.throws(() => loadConfig(argv, {}, { drivers: DRIVER_NAMES }), { code: 'ERR_INVALID_CONFIG', message }, argv.join(' '))
  for (const text of ['--desktop', '[env DESKTOP]', '--home', '[env DESKTOP_HOME]', '--autostart', '[env AUTOSTART]']) t.match(usage(), text)
})

t.test("--files serves only a home named with --home (or DESKTOP_HOME), never the server's own $HOME", async (t) => {
  const message = "--files needs --home (env DESKTOP_HOME): the directory /files serves; the server's own $HOME is never served by default"
  for (const [argv, env] of [[['--files'], { HOME: '/root' }], [[], { FILES: '1', HOME: '/root' }], [['--files'], {}]] as const) {
    t.throws(() => loadConfig([...argv], { ...env }), { code: 'ERR_INVALID_CONFIG', message }, `${argv.join(' ')} ${JSON.stringify(env)}`)
  }
  t.match(loadConfig(['--files', '--home', '/srv/desk'], { HOME: '/root' }), { files: true, home: '/srv/desk' }, '--home named')
  t.match(loadConfig([], { FILES: 'true', DESKTOP_HOME: '/srv/desk', HOME: '/root' }), { files: true, home: '/srv/desk' }, 'DESKTOP_HOME named')
  t.match(loadConfig([], { HOME: '/root' }), { files: false, home: '/root' }, 'without --files, $HOME stays the default home')
})

t.test('the token: from a file, the environment or stdin; --token VALUE still works, marked; clear refusals', async (t) => {
  const { chmodSync, mkdtempSync, rmSync, writeFileSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const dir = mkdtempSync(join(tmpdir(), 'cg-token-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = (name: string, text: string, mode: number) => { const path = join(dir, name); writeFileSync(path, text); chmodSync(path, mode); return path }
  const own = file('own', '  from-a-file\n', 0o600)
  const group = file('group', 'group-readable\n', 0o640)
  const open = file('open', 'everyone-reads-me\n', 0o644)
  const empty = file('empty', '\n', 0o600)
  const stdin = (text: string) => ({ token: { readStdin: () => text } })
  const read = (argv: string[], env: NodeJS.ProcessEnv, context = {}) => { const { token, tokenSource } = loadConfig(argv, env, context); return { token, tokenSource } }

  const accepted: Array<[string, string[], NodeJS.ProcessEnv, object, { token?: string, tokenSource?: string }]> = [
    ['none', [], {}, {}, { token: undefined, tokenSource: undefined }],
    ['--token-file', ['--token-file', own], {}, {}, { token: 'from-a-file', tokenSource: 'file' }],
    ['--token-file=, readable by its group', [`--token-file=${group}`], {}, {}, { token: 'group-readable', tokenSource: 'file' }],
    ['API_TOKEN_FILE', [], { API_TOKEN_FILE: own }, {}, { token: 'from-a-file', tokenSource: 'file' }],
    ['--token-file wins over API_TOKEN', ['--token-file', own], { API_TOKEN: 'from-env' }, {}, { token: 'from-a-file', tokenSource: 'file' }],
    ['API_TOKEN', [], { API_TOKEN: 'from-env' }, {}, { token: 'from-env', tokenSource: 'environment' }],
    ['--token -', ['--token', '-'], { API_TOKEN: 'from-env' }, stdin('from-stdin\n'), { token: 'from-stdin', tokenSource: 'stdin' }],
    ['--token VALUE', ['--token', 'on-the-command-line'], {}, {}, { token: 'on-the-command-line', tokenSource: 'argument' }],
  ]
  for (const [name, argv, env, context, want] of accepted) t.strictSame(read(argv, env, context), want, name)

  const refused: Array<[string, string[], NodeJS.ProcessEnv, object, string]> = [
    ['a file every user reads', ['--token-file', open], {}, {}, `--token-file ${open} is readable by every user (mode 0644), so the token in it is not secret: chmod 600 ${open}`],
    ['the same by API_TOKEN_FILE', [], { API_TOKEN_FILE: open }, {}, `API_TOKEN_FILE ${open} is readable by every user (mode 0644), so the token in it is not secret: chmod 600 ${open}`],
    ['an empty file', ['--token-file', empty], {}, {}, `--token-file ${empty} is empty: write the token into it (e.g. openssl rand -hex 32 > ${empty})`],
    ['a missing file', ['--token-file', join(dir, 'missing')], {}, {}, `--token-file ${join(dir, 'missing')} cannot be read: ENOENT`],
    ['a directory', ['--token-file', dir], {}, {}, `--token-file ${dir} is not a file`],
    ['two ways by flag', ['--token', 'x', '--token-file', own], {}, {}, '--token and --token-file both given: give the token one way'],
    ['two ways by environment', [], { API_TOKEN: 'x', API_TOKEN_FILE: own }, {}, 'API_TOKEN and API_TOKEN_FILE both set: give the token one way'],
    ['empty stdin', ['--token', '-'], {}, stdin(' \n'), '--token -: stdin held no token (pipe it in, e.g. computer-gateway --token - < token-file)'],
    ['stdin under mcp', ['--token', '-'], {}, { token: { stdinIsProtocol: true, readStdin: () => 'never-read' } },
      '--token - cannot read the token from stdin under `mcp`, where stdin carries the protocol: use --token-file PATH or API_TOKEN'],
  ]
  for (const [name, argv, env, context, message] of refused) t.throws(() => loadConfig(argv, env, context), { code: 'ERR_INVALID_CONFIG', message }, name)
  t.match(usage(), '--token-file <value>')
  t.match(usage(), '[env API_TOKEN_FILE]')
})

t.test('--shell: off by default; needs --home; its bounds from flags or the environment, checked', async (t) => {
  t.equal(loadConfig([], { HOME: '/root' }).shell, undefined, 'off unless asked for')
  t.strictSame(loadConfig(['--shell', '--home', '/srv/desk'], {}).shell, { timeoutMs: 30_000, maxTimeoutMs: 600_000, maxOutputBytes: 1024 * 1024, maxProcesses: 256, maxSessions: 8 })
  t.strictSame(loadConfig([], { SHELL_TOOL: '1', DESKTOP_HOME: '/srv/desk', SHELL_TIMEOUT: '5', SHELL_MAX_TIMEOUT: '60', SHELL_MAX_OUTPUT: '4096', SHELL_MAX_PROCESSES: '32', SHELL_MAX_SESSIONS: '2' }).shell,
    { timeoutMs: 5000, maxTimeoutMs: 60_000, maxOutputBytes: 4096, maxProcesses: 32, maxSessions: 2 })
  const cases: Array<[string[], string]> = [
    [['--shell'], "--shell needs --home (env DESKTOP_HOME): the desktop's home, whose owner the commands run as and where they start"],
    [['--shell', '--home', '/h', '--shell-timeout', '90', '--shell-max-timeout', '60'], '--shell-timeout (90 s) is over --shell-max-timeout (60 s)'],
    [['--shell', '--home', '/h', '--shell-max-timeout', '7200'], '--shell-max-timeout must be at most 3600 s (got 7200)'],
    [['--shell', '--home', '/h', '--shell-max-processes', '0'], '--shell-max-processes must be a positive integer (got \'0\')'],
  ]
  for (const [argv, message] of cases) t.throws(() => loadConfig(argv, { HOME: '/root' }), { code: 'ERR_INVALID_CONFIG', message }, argv.join(' '))
})
