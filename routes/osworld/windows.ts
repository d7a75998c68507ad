/**
 * Applications and windows through launch_app and the window actions (the desktop's one input
 * queue): /setup/launch (an allowed application by name, else the shell), /setup/open_file (the
 * application for the file's type), /setup/activate_window, /setup/close_window, /window_size.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { UnifiedAction } from '../../src/actions/index.ts'
import type { WindowInfo } from '../../src/actions/window.ts'
import type { Executor } from '../../src/executor/executor.ts'
import { FileNotFound, WindowNotFound } from '../../src/errors/errors.ts'
import { openWith } from '../../src/osworld/open-with.ts'
import { homeRelative } from '../../src/osworld/paths.ts'
import { matchWindow } from '../../src/osworld/window-match.ts'
import { shellOff } from '../../src/osworld/shell.ts'
import { shlexSplit } from '../../src/osworld/command.ts'
import type { GuestDeps } from './deps.ts'

async function runOne (executor: Executor, action: UnifiedAction) {
  const outcome = await executor.run([action])
  if (outcome.error) throw outcome.error
  return outcome.results[0]!
}

async function listWindows (executor: Executor): Promise<WindowInfo[]> {
  return (await runOne(executor, { action: 'list_windows' })).windows ?? []
}

export const windowRoutes: FastifyPluginAsyncTypebox<GuestDeps> = async (fastify, { executor, apps, shell, files, home }) => {
  fastify.post('/setup/launch', { schema: { body: Type.Ref('GuestExecuteBody') } }, async (request, reply) => {
    const { command, shell: asShell = false } = request.body as { command: string | string[], shell?: boolean }
    const argv = asShell ? undefined : typeof command === 'string' ? shlexSplit(command) : command
    // An allowed application, with at most one target: launch_app, its checks and its wait for the window.
    if (argv && argv.length <= 2 && apps.includes(argv[0]!)) {
      const window = (await runOne(executor, { action: 'launch_app', app: argv[0]!, ...(argv[1] !== undefined && { target: argv[1] }) })).window
      return await reply.type('text/plain; charset=utf-8').send(`${argv.join(' ')} launched successfully${window ? `: window ${window.id} '${window.title}'` : ''}`)
    }
    if (!shell) throw shellOff('/setup/launch', command)
    await shell.launch(command, { shell: asShell })
    return await reply.type('text/plain; charset=utf-8').send(`${typeof command === 'string' ? command : command.join(' ')} launched successfully`)
  })

  fastify.post('/setup/open_file', { schema: { body: Type.Ref('GuestOpenFileBody') } }, async (request, reply) => {
    const { path } = request.body as { path: string }
    const relative = homeRelative(path, home)
    const parent = relative.includes('/') ? relative.slice(0, relative.lastIndexOf('/')) : ''
    const name = relative.slice(relative.lastIndexOf('/') + 1)
    // Through the jail: a path that is not there (or leads out) is refused before anything starts.
    const entry = (await files.list(parent)).entries.find((candidate) => candidate.name === name)
    if (!entry) throw new FileNotFound(`nothing to open at '${path}' in the desktop's home`)
    const app = openWith(relative, entry.kind === 'directory')
    const target = app === 'browser' ? new URL(`file://${home.replace(/\/+$/, '')}/${relative.split('/').map(encodeURIComponent).join('/')}`).href : relative
    await runOne(executor, { action: 'launch_app', app, target })
    return await reply.type('text/plain; charset=utf-8').send('File opened and window activated successfully')
  })

  fastify.post('/setup/activate_window', { schema: { body: Type.Ref('GuestWindowBody') } }, async (request, reply) => {
    const { window_name: name, strict, by_class: byClass } = request.body as { window_name: string, strict?: boolean, by_class?: boolean }
    const windows = await listWindows(executor)
    const window = matchWindow(windows, name, { ...(strict !== undefined && { strict }), ...(byClass !== undefined && { byClass }) })
    if (!window) throw new WindowNotFound(`no window ${byClass ? 'of class' : 'titled'} '${name}'; open windows: ${windows.map((w) => `'${w.title}' (${w.class})`).join(', ') || 'none'}`)
    await runOne(executor, { action: 'focus_window', window: { id: window.id } })
    return await reply.type('text/plain; charset=utf-8').send('Window activated successfully')
  })

  // As OSWorld's guest (wmctrl -c): the window manager is asked, as by the close button, so an
  // application with unsaved work may keep its window behind a save prompt. No match is a 404,
  // as /setup/activate_window answers, where the original said success having closed nothing.
  fastify.post('/setup/close_window', { schema: { body: Type.Ref('GuestWindowBody') } }, async (request, reply) => {
    const { window_name: name, strict, by_class: byClass } = request.body as { window_name: string, strict?: boolean, by_class?: boolean }
    const windows = await listWindows(executor)
    const window = matchWindow(windows, name, { ...(strict !== undefined && { strict }), ...(byClass !== undefined && { byClass }) })
    if (!window) throw new WindowNotFound(`no window ${byClass ? 'of class' : 'titled'} '${name}' to close; open windows: ${windows.map((w) => `'${w.title}' (${w.class})`).join(', ') || 'none'}`)
    await executor.closeWindow(Number.parseInt(window.id, 16))
    return await reply.type('text/plain; charset=utf-8').send('Window closed successfully.')
  })

  fastify.post('/window_size', { schema: { body: Type.Ref('GuestWindowSizeForm'), response: { 200: Type.Ref('GuestSize') } } }, async (request) => {
    const { app_class_name: name } = request.body as { app_class_name: string }
    const windows = await listWindows(executor)
    const window = windows.find((candidate) => candidate.class.toLowerCase() === name.toLowerCase())
    if (!window) throw new WindowNotFound(`no window of class '${name}'; open windows' classes: ${[...new Set(windows.map((w) => w.class))].join(', ') || 'none'}`)
    return { width: window.width, height: window.height }
  })
}
