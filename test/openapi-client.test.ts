/**
 * A client generated from openapi.yaml works: openapi-typescript writes the types, a program
 * written against them with openapi-fetch must type-check (tsc, strict), and run against the
 * server, where every answer must fit the document's schema for its status. The program is
 * what a user writes (the nine seed actions, a batch, anthropic and Gemini calls), so the
 * README's "Generated clients" section shows the same calls.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { createClient } from '@hey-api/openapi-ts'
import openapiTS, { astToString } from 'openapi-typescript'
import t from 'tap'
import { parse } from 'yaml'
import { build } from './helpers/build.ts'

const root = new URL('..', import.meta.url)
const tsc = fileURLToPath(new URL('node_modules/typescript/bin/tsc', root))

/** What the user writes; `./schema.js` is the generated file. */
const PROGRAM = `
import createClient from 'openapi-fetch'
import type { components, paths } from './schema.js'

type UnifiedAction = components['schemas']['UnifiedAction']
export interface Answer { path: string, status: number, body: unknown }

export async function run (baseUrl: string): Promise<Answer[]> {
  const client = createClient<paths>({ baseUrl })
  const answers: Answer[] = []
  const keep = <T extends { response: Response, data?: unknown, error?: unknown }>(path: string, result: T): T => {
    answers.push({ path, status: result.response.status, body: result.data ?? result.error })
    return result
  }

  const moved = keep('/computer', await client.POST('/computer', { body: { action: 'move_mouse', coordinates: [10, 20] } }))
  const cursor: number | undefined = moved.data?.cursor_position?.[0]
  void cursor
  keep('/computer', await client.POST('/computer', { body: { action: 'click_mouse', button: 'left', coordinates: [30, 40] } }))
  keep('/computer', await client.POST('/computer', { body: { action: 'drag_mouse', path: [[1, 2], [30, 40]] } }))
  keep('/computer', await client.POST('/computer', { body: { action: 'scroll', coordinates: [50, 50], delta_x: 0, delta_y: 3 } }))
  keep('/computer', await client.POST('/computer', { body: { action: 'press_key', keys: ['ctrl', 'a'] } }))
  keep('/computer', await client.POST('/computer', { body: { action: 'type_text', text: 'hello' } }))
  keep('/computer', await client.POST('/computer', { body: { action: 'wait', duration: 0.01 } }))
  const shot = keep('/computer', await client.POST('/computer', { body: { action: 'take_screenshot' }, params: { query: { display_width_px: 640, display_height_px: 400 } } }))
  const png: string | null | undefined = shot.data?.base64_image
  void png
  keep('/computer', await client.POST('/computer', { body: { action: 'get_cursor_position' } }))

  const refused = keep('/computer', await client.POST('/computer', { body: { action: 'move_mouse', coordinates: [100000, 1] } }))
  const code: string | undefined = refused.error?.code
  void code

  const batch: UnifiedAction[] = [{ action: 'click_mouse', button: 'left' }, { action: 'type_text', text: 'hi' }]
  const ran = keep('/computer/batch', await client.POST('/computer/batch', { body: { actions: batch } }))
  const results: number | undefined = ran.data?.results.length
  void results

  const tool = keep('/computer/anthropic', await client.POST('/computer/anthropic', {
    params: { query: { screenshot: false, tool_version: 'computer_20251124' } },
    body: { type: 'tool_use', id: 'toolu_01', name: 'computer', input: { action: 'left_click', coordinate: [12, 34] } },
  }))
  // One tool_result block for the computer tool, the list of them for the toolset (the default).
  const resultType: 'tool_result' | undefined = Array.isArray(tool.data) ? tool.data[0]?.type : tool.data?.type
  void resultType
  keep('/computer/anthropic', await client.POST('/computer/anthropic', { body: { type: 'tool_use', id: 'toolu_02', name: 'screenshot', toolset_name: 'computer', input: {} } }))
  keep('/computer/gemini', await client.POST('/computer/gemini', { body: { name: 'click_at', args: { x: 500, y: 300 } } }))
  keep('/computer/gemini', await client.POST('/computer/gemini', { body: [{ functionCall: { name: 'type_text_at', args: { x: 10, y: 10, text: 'hi' } } }] }))
  return answers
}

// Never called: what must not compile.
export async function misuse (client: ReturnType<typeof createClient<paths>>): Promise<void> {
  // @ts-expect-error the discriminator's values are the action names, not the schema names
  await client.POST('/computer', { body: { action: 'MoveMouseAction', coordinates: [10, 20] } })
  // @ts-expect-error an action without its required fields
  await client.POST('/computer', { body: { action: 'type_text' } })
  // @ts-expect-error no such action
  await client.POST('/computer', { body: { action: 'fly' } })
}
`

/** The same calls through @hey-api/openapi-ts's SDK: one function per operationId. */
const HEYAPI_PROGRAM = `
import { client } from './generated/client.gen'
import { postComputer, postComputerAnthropic, postComputerBatch, postComputerGemini } from './generated/sdk.gen'
import type { UnifiedAction } from './generated/types.gen'

export interface Answer { path: string, status: number, body: unknown }

export async function run (baseUrl: string): Promise<Answer[]> {
  client.setConfig({ baseUrl })
  const answers: Answer[] = []
  const keep = <T extends { response: Response, data?: unknown, error?: unknown }>(path: string, result: T): T => {
    answers.push({ path, status: result.response.status, body: result.data ?? result.error })
    return result
  }
  const actions: UnifiedAction[] = [
    { action: 'move_mouse', coordinates: [10, 20] },
    { action: 'click_mouse', button: 'left', coordinates: [30, 40] },
    { action: 'drag_mouse', path: [[1, 2], [30, 40]] },
    { action: 'scroll', coordinates: [50, 50], delta_x: 0, delta_y: 3 },
    { action: 'press_key', keys: ['ctrl', 'a'] },
    { action: 'type_text', text: 'hello' },
    { action: 'wait', duration: 0.01 },
    { action: 'take_screenshot' },
    { action: 'get_cursor_position' },
  ]
  for (const body of actions) {
    const answer = keep('/computer', await postComputer({ body }))
    const cursor: [number, number] | null | undefined = answer.data?.cursor_position
    void cursor
  }
  const refused = keep('/computer', await postComputer({ body: { action: 'move_mouse', coordinates: [100000, 1] } }))
  const code: string | undefined = refused.error?.code
  void code
  keep('/computer/batch', await postComputerBatch({ body: { actions: [{ action: 'click_mouse', button: 'left' }, { action: 'type_text', text: 'hi' }] } }))
  keep('/computer/anthropic', await postComputerAnthropic({
    query: { screenshot: false, tool_version: 'computer_20251124' },
    body: { type: 'tool_use', id: 'toolu_01', name: 'computer', input: { action: 'left_click', coordinate: [12, 34] } },
  }))
  keep('/computer/anthropic', await postComputerAnthropic({ body: { type: 'tool_use', id: 'toolu_02', name: 'screenshot', toolset_name: 'computer', input: {} } }))
  keep('/computer/gemini', await postComputerGemini({ body: { name: 'click_at', args: { x: 500, y: 300 } } }))
  keep('/computer/gemini', await postComputerGemini({ body: [{ functionCall: { name: 'type_text_at', args: { x: 10, y: 10, text: 'hi' } } }] }))
  return answers
}

// Never called: what must not compile.
export async function misuse (): Promise<void> {
  // @ts-expect-error the discriminator's values are the action names, not the schema names
  await postComputer({ body: { action: 'MoveMouseAction', coordinates: [10, 20] } })
  // @ts-expect-error an action without its required fields
  await postComputer({ body: { action: 'type_text' } })
}
`

const COMPILER_OPTIONS = {
  target: 'ES2022',
  lib: ['ES2022', 'DOM', 'DOM.Iterable'],
  types: [],
  strict: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: true,
  noEmit: true,
}

const EXPECTED = [200, 200, 200, 200, 200, 200, 200, 200, 200, 400, 200, 200, 200, 200, 200]

type Answers = Array<{ path: string, status: number, body: unknown }>
interface Test { teardown: (fn: () => unknown) => void, ok: typeof t.ok, strictSame: typeof t.strictSame }

/** A temp dir that resolves packages from ours, holding `files`. */
async function workspace (t: Test, files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'openapi-client-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await symlink(fileURLToPath(new URL('node_modules', root)), join(dir, 'node_modules'))
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text)
  return dir
}

async function typeErrors (dir: string): Promise<string> {
  return promisify(execFile)(process.execPath, [tsc, '-p', dir], { cwd: dir })
    .then(() => '', (error: { stdout?: string }) => error.stdout ?? String(error))
}

/** Runs the program against a listening server; every answer must fit the document's schema for its status. */
async function runAgainstServer (t: Test, dir: string): Promise<void> {
  const document = parse(await readFile(new URL('openapi.yaml', root), 'utf8'))
  const { app } = await build(t)
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  const program = await import(pathToFileURL(join(dir, 'program.ts')).href) as { run: (baseUrl: string) => Promise<Answers> }
  const answers = await program.run(address)

  t.strictSame(answers.map((a) => a.status), EXPECTED, 'nine actions, one refused, a batch, two anthropic tool calls and two Gemini calls (one call, a list of parts)')
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true })
  ajv.addSchema({ ...document, $id: 'https://computer-gateway.local/openapi.json' })
  for (const [i, answer] of answers.entries()) {
    const responses = document.paths[answer.path].post.responses
    const status = String(answer.status) in responses ? String(answer.status) : `${String(answer.status)[0]}XX`
    const pointer = ['paths', answer.path, 'post', 'responses', status, 'content', 'application/json', 'schema']
      .map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')
    const validate = ajv.getSchema(`https://computer-gateway.local/openapi.json#/${pointer}`)!
    t.ok(validate(answer.body), `answer ${i} (${answer.path}, ${answer.status}) fits the document`, { errors: validate.errors })
  }
}

t.test('a client generated with openapi-typescript and openapi-fetch compiles and speaks to the server', async (t) => {
  // Properties with a default are optional to send: the default only fills in answers.
  const ast = await openapiTS(new URL('openapi.yaml', root), { defaultNonNullable: false, silent: true })
  const dir = await workspace(t, {
    'schema.ts': astToString(ast),
    'program.ts': PROGRAM,
    'tsconfig.json': JSON.stringify({ compilerOptions: { ...COMPILER_OPTIONS, module: 'NodeNext', moduleResolution: 'NodeNext' }, files: ['program.ts'] }),
  })
  t.equal(await typeErrors(dir), '', 'tsc finds no error in the program')
  await runAgainstServer(t, dir)
})

t.test('a client generated with @hey-api/openapi-ts compiles and speaks to the server', async (t) => {
  const dir = await workspace(t, {
    'program.ts': HEYAPI_PROGRAM,
    // The generated modules import each other without extensions, as bundlers (and tsx) resolve them.
    'tsconfig.json': JSON.stringify({ compilerOptions: { ...COMPILER_OPTIONS, module: 'ESNext', moduleResolution: 'Bundler' }, files: ['program.ts'] }),
  })
  await createClient({ input: fileURLToPath(new URL('openapi.yaml', root)), output: join(dir, 'generated'), logs: { level: 'silent', file: false } })
  t.equal(await typeErrors(dir), '', 'tsc finds no error in the program')
  await runAgainstServer(t, dir)
})
