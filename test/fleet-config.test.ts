/**
 * `computer-gateway fleet`'s flags (fleet/config.ts), the readiness probe (fleet/probe.ts) and
 * the Docker labels a desktop's facts and claim are kept in (fleet/backends/docker/labels.ts).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { parse } from 'yaml'
import { DEFAULT_IMAGE, fleetUsage, loadFleetConfig } from '../fleet/config.ts'
import { healthReady } from '../fleet/probe.ts'
import { claimLabels, factLabels, LABEL, ownership, readClaim, readFacts } from '../fleet/backends/docker/labels.ts'
import { freePort } from './helpers/net.ts'

t.test('the defaults, and each flag with its environment fallback', async (t) => {
  t.strictSame(loadFleetConfig([], {}), {
    host: '127.0.0.1', port: 8100, allowUnauthenticated: false, fleetId: 'default', backend: 'docker', image: DEFAULT_IMAGE, warm: 0, max: 4,
    screen: { width: 1280, height: 800 }, desktop: 'full', browser: 'firefox', cpus: 2, memoryBytes: 2048 * 1024 * 1024, pids: 1024, startTimeoutMs: 180_000, shell: false, osworld: false, onExit: 'leave', logLevel: 'info', help: false,
  })
  const config = loadFleetConfig(['--warm', '2', '--max', '3', '--image', 'other:1', '--on-exit', 'end', '--screen', '1024x768', '--fleet-id', 'f-1', '--desktop', 'minimal', '--browser', 'chromium'],
    { API_TOKEN: 'k'.repeat(16), HOST: '0.0.0.0', FLEET_CPUS: '0.5', FLEET_MEMORY_MB: '512', FLEET_PIDS: '100', FLEET_START_TIMEOUT: '30', PORT: '0', FLEET_BACKEND: 'swarm' })
  t.match(loadFleetConfig(['--backend', 'kubernetes', '--namespace', 'desktops'], {}), { backend: 'kubernetes', namespace: 'desktops' }, '--backend kubernetes --namespace')
  t.match(loadFleetConfig([], { FLEET_BACKEND: 'kubernetes', FLEET_NAMESPACE: 'cg-1' }), { backend: 'kubernetes', namespace: 'cg-1' }, 'FLEET_BACKEND, FLEET_NAMESPACE')
  t.equal(loadFleetConfig(['--backend', 'kubernetes'], {}).namespace, undefined, "no --namespace: the kubeconfig context's")
  t.equal(loadFleetConfig(['--shell'], {}).shell, true, '--shell')
  t.equal(loadFleetConfig([], { FLEET_SHELL: '1' }).shell, true, 'FLEET_SHELL=1')
  t.equal(loadFleetConfig(['--osworld'], {}).osworld, true, '--osworld')
  t.equal(loadFleetConfig([], { FLEET_OSWORLD: '1' }).osworld, true, 'FLEET_OSWORLD=1')
  t.match(config, { host: '0.0.0.0', port: 0, token: 'k'.repeat(16), warm: 2, max: 3, image: 'other:1', onExit: 'end', screen: { width: 1024, height: 768 }, fleetId: 'f-1', desktop: 'minimal', browser: 'chromium', cpus: 0.5, memoryBytes: 512 * 1024 * 1024, pids: 100, startTimeoutMs: 30_000, backend: 'swarm' })
  // The key as the server takes its token: a file of the user's own, not one every user reads.
  const dir = await mkdtemp(join(tmpdir(), 'fleet-key-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const keyFile = join(dir, 'key')
  await writeFile(keyFile, `${'f'.repeat(32)}\n`, { mode: 0o600 })
  t.equal(loadFleetConfig(['--token-file', keyFile], {}).token, 'f'.repeat(32), '--token-file')
  t.equal(loadFleetConfig([], { API_TOKEN_FILE: keyFile }).token, 'f'.repeat(32), 'API_TOKEN_FILE')
  await chmod(keyFile, 0o644)
  t.throws(() => loadFleetConfig(['--token-file', keyFile], {}), { code: 'ERR_INVALID_CONFIG', message: `--token-file ${keyFile} is readable by every user (mode 0644), so the token in it is not secret: chmod 600 ${keyFile}` })
  t.match(fleetUsage(), /--on-exit <value>\n\s+on SIGTERM\/SIGINT: leave .*\(default leave\) \[env FLEET_ON_EXIT\]/)
  const compose = parse(await readFile(new URL('../deploy/compose.yaml', import.meta.url), 'utf8'), { merge: true }) as { services: Record<string, { image: string }> }
  t.equal(DEFAULT_IMAGE, Object.values(compose.services)[0]!.image, 'the default image is the one the image tests build and compose runs')
})

t.test('a bad flag stops the fleet with a message that says what is right', async (t) => {
  const cases: Array<[string[], Record<string, string>, string | RegExp]> = [
    [['--host', '0.0.0.0'], {}, 'refusing to listen on 0.0.0.0 without a token: anyone who reaches it could create desktops and drive every one. Set API_TOKEN (or --token-file), or pass --allow-unauthenticated if the network is yours alone.'],
    [['--host', '0.0.0.0'], { API_TOKEN: 'short' }, /^refusing to listen on 0\.0\.0\.0 with a 5-character token/],
    [['--warm', '3', '--max', '2'], {}, '--warm (3) must not exceed --max (2): the pool counts toward the maximum'],
    [['--max', '0'], {}, "--max must be an integer 1..1024 (got '0')"],
    [['--warm', 'many'], {}, "--warm must be an integer 0..64 (got 'many')"],
    [['--port', '70000'], {}, "--port must be an integer 0..65535 (got '70000')"],
    [['--fleet-id', 'Bad_Id'], {}, "--fleet-id must be 1..32 lowercase letters, digits or '-', starting with a letter or digit (got 'Bad_Id')"],
    [['--screen', '1280'], {}, "--screen must look like 1280x800 (got '1280')"],
    [['--screen', '100x100'], {}, "--screen must be an integer 320..3840 (got '100')"],
    [['--on-exit', 'half'], {}, "--on-exit must be leave or end (got 'half')"],
    [['--image', ' '], {}, '--image must name an image'],
    [['--backend', 'nomad'], {}, "--backend must be docker, swarm or kubernetes (got 'nomad')"],
    [['--backend', 'kubernetes', '--namespace', 'Desktops'], {}, "--namespace must be a Kubernetes namespace's name: 1..63 lowercase letters, digits or '-', starting and ending with a letter or digit (got 'Desktops')"],
    [['--backend', 'kubernetes'], { FLEET_NAMESPACE: 'desk-' }, "--namespace must be a Kubernetes namespace's name: 1..63 lowercase letters, digits or '-', starting and ending with a letter or digit (got 'desk-')"],
    [['--namespace', 'desktops'], {}, '--namespace is for --backend kubernetes (the backend is docker)'],
    [['--desktop', 'kde'], {}, "--desktop must be one of minimal, full (got 'kde')"],
    [['--browser', 'lynx'], {}, "--browser must be one of firefox, chromium (got 'lynx')"],
    [['--cpus', '0'], {}, "--cpus must be a number above 0, at most 256 (got '0')"],
    [['--memory', '10'], {}, "--memory must be an integer 256..9007199254740991 (got '10')"],
    [['--osworld', '--backend', 'swarm'], {}, "--osworld is for --backend docker, which publishes the guest protocol's port beside the desktop's own (the backend is swarm)"],
    [['--backend', 'kubernetes'], { FLEET_OSWORLD: '1' }, "--osworld is for --backend docker, which publishes the guest protocol's port beside the desktop's own (the backend is kubernetes)"],
    [['--nope'], {}, /^Unknown option '--nope'[^]*Usage: computer-gateway fleet/],
  ]
  for (const [argv, env, message] of cases) t.throws(() => loadFleetConfig(argv, env), { code: 'ERR_INVALID_CONFIG', message }, argv.join(' '))
})

t.test('ready means GET /health answered 200 with ready: true; anything else is not ready', async (t) => {
  let answer: [number, string] = [200, '{"ready":true}']
  const server = createServer((_request, response) => { response.writeHead(answer[0]); response.end(answer[1]) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const cases: Array<[[number, string], boolean]> = [
    [[200, '{"ready":true}'], true],
    [[200, '{"ready":false}'], false],
    [[503, '{"ready":true}'], false],
    [[200, 'not json'], false],
    [[200, '{"ready":"yes"}'], false],
  ]
  for (const [given, expected] of cases) {
    answer = given
    t.equal(await healthReady(url), expected, JSON.stringify(given))
  }
  t.equal(await healthReady(`http://127.0.0.1:${await freePort()}`), false, 'a refused connection')
})

t.test('facts and claims round-trip through labels; labels not written by the fleet read as nothing', async (t) => {
  const facts = { id: '0123456789abcdef', token: 'tok', screen: { width: 1024, height: 768 }, desktop: 'minimal' as const, autostart: [{ app: 'browser', target: 'https://example.com/a b' }, { app: 'terminal' }], browser: 'chromium' as const, createdAt: 1_700_000_000_000 }
  const claim = { claimedAt: 1_700_000_001_000, expiresAt: 1_700_003_601_000, labels: { agent: 'a "quoted" value' } }
  const labels = { ...ownership('f', 'desktop', facts.id), ...factLabels(facts), ...claimLabels(claim) }
  t.strictSame(readFacts(labels), facts)
  t.strictSame(readClaim(labels), claim)
  const reset = { ...claim, id: 'fedcba9876543210' }
  t.strictSame(readClaim({ ...labels, ...claimLabels(reset) }), reset, 'the client id a reset carries over')
  const { [LABEL.profile]: _profile, [LABEL.autostart]: _autostart, [LABEL.browser]: _browser, ...unprofiled } = labels
  t.strictSame(readFacts(unprofiled), { ...facts, desktop: 'full', autostart: [], browser: 'firefox' }, "a desktop labelled before profiles and browsers: the image's full desktop, Firefox")
  t.equal(readClaim(ownership('f', 'desktop', facts.id)), undefined, 'no claim yet')
  const cases: Array<Record<string, string>> = [
    { ...labels, [LABEL.screen]: 'big' },
    { ...labels, [LABEL.token]: '' },
    { ...labels, [LABEL.createdAt]: 'yesterday' },
    { ...labels, [LABEL.profile]: 'huge' },
    { ...labels, [LABEL.browser]: 'lynx' },
    { ...labels, [LABEL.autostart]: '{' },
    { ...labels, [LABEL.autostart]: '[{"app":1}]' },
  ]
  for (const broken of cases) t.equal(readFacts(broken), undefined, JSON.stringify(broken).slice(0, 80))
  for (const value of ['[1]', '{"a":1}', '{', 'null']) t.equal(readClaim({ ...labels, [LABEL.labels]: value }), undefined, value)
  t.equal(readClaim({ ...labels, [LABEL.expiresAt]: 'never' }), undefined)
})
