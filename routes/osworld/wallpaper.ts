/**
 * /setup/change_wallpaper: a picture in the desktop's home set as the wallpaper, where the
 * full desktop's xfdesktop draws one. The minimal desktop draws none (a window manager on a
 * bare root), so there the request is refused (400 ERR_UNSUPPORTED_ACTION, as a window action
 * on a desktop without window control is), saying which desktop has one.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { DesktopTakenOver, DriverFailure, FileNotFound, UnsupportedAction } from '../../src/errors/errors.ts'
import { homeRelative } from '../../src/osworld/paths.ts'
import type { GuestDeps } from './deps.ts'

export const wallpaperRoutes: FastifyPluginAsyncTypebox<GuestDeps> = async (fastify, { files, home, wallpaper }) => {
  fastify.post('/setup/change_wallpaper', { schema: { body: Type.Ref('GuestPathBody') } }, async (request, reply) => {
    const { path } = request.body as { path: string }
    const relative = homeRelative(path, home)
    const parent = relative.includes('/') ? relative.slice(0, relative.lastIndexOf('/')) : ''
    const name = relative.slice(relative.lastIndexOf('/') + 1)
    // Through the jail: a path out (`..`, a link out) is refused, and only a regular file is a picture.
    const entry = (await files.list(parent)).entries.find((candidate) => candidate.name === name)
    if (entry?.kind !== 'file') throw new FileNotFound(`no picture at '${path}' in the desktop's home${entry ? ` (it is a ${entry.kind})` : ''}`)
    if (!wallpaper) throw new UnsupportedAction('this desktop draws no wallpaper: the minimal desktop is a window manager on a bare screen; the full desktop (--desktop full) has one')
    try {
      await wallpaper(`${home.replace(/\/+$/, '')}/${relative}`)
    } catch (error) {
      // Ours already (a person holds the desktop: 423): as it is. The setter's own failure: a 500.
      if (error instanceof DesktopTakenOver) throw error
      throw new DriverFailure(`the wallpaper could not be set: ${(error as Error).message}`, { cause: error })
    }
    return await reply.type('text/plain; charset=utf-8').send('Wallpaper changed successfully')
  })
}
