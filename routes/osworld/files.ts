/**
 * Files, all through the home jail (src/files): /file (download), /setup/upload,
 * /setup/download_file (a URL fetched into the home), /list_directory (a nested tree, as
 * OSWorld's), /desktop_path. OSWorld's paths (`~/…`, absolute) are taken
 * relative to the desktop's home; a path outside it is refused (403).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { homeRelative } from '../../src/osworld/paths.ts'
import type { GuestDirectoryNode } from '../../src/osworld/schema.ts'
import type { FileStore } from '../../src/files/store.ts'
import { FileNotFound, TooLarge } from '../../src/errors/errors.ts'
import { download, downloadUrl } from '../../src/osworld/download.ts'
import { receiveUpload } from './upload.ts'
import type { GuestDeps } from './deps.ts'

/** Most entries /list_directory walks in all: a tree of a whole home would be megabytes. */
const MAX_TREE_ENTRIES = 20_000

export const fileRoutes: FastifyPluginAsyncTypebox<GuestDeps> = async (fastify, { files, home }) => {
  fastify.post('/file', { schema: { body: Type.Ref('GuestFileForm') } }, async (request, reply) => {
    const { file_path: path } = request.body as { file_path: string }
    const file = await files.get(homeRelative(path, home))
    return await reply
      .type('application/octet-stream')
      .header('content-length', String(file.size))
      .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`)
      .send(file.stream)
  })

  fastify.post('/setup/upload', async (request, reply) => {
    try {
      const written = await receiveUpload(request.raw, async (path, stream) => {
        const result = await files.put(homeRelative(path, home), stream)
        // busboy cut the file at its fileSize limit: never store half a file as if whole.
        if (stream.truncated) throw new TooLarge(`the upload to ${path} was cut short`)
        return result
      })
      return await reply.type('text/plain; charset=utf-8').send(`File Uploaded: ${written.size} bytes`)
    } catch (error) {
      if (!request.raw.complete) reply.header('connection', 'close')
      throw error
    }
  })

  fastify.post('/setup/download_file', { schema: { body: Type.Ref('GuestDownloadBody') } }, async (request, reply) => {
    const { url, path } = request.body as { url: string, path: string }
    // Both checked before anything is fetched: a path out of the home never costs a download.
    const target = downloadUrl(url)
    const relative = homeRelative(path, home)
    await download(files, target, relative)
    return await reply.type('text/plain; charset=utf-8').send('File downloaded successfully')
  })

  fastify.post('/list_directory', {
    schema: { body: Type.Ref('GuestPathBody'), response: { 200: Type.Ref('GuestDirectoryTree') } },
  }, async (request) => {
    const { path } = request.body as { path: string }
    const relative = homeRelative(path, home)
    // Named as os.path.basename names the path asked for: the home's own name for the home.
    const name = (relative === '' ? home.replace(/\/+$/, '') : relative).split('/').at(-1)!
    return { directory_tree: await tree(files, relative, name, { left: MAX_TREE_ENTRIES }) }
  })

  fastify.post('/desktop_path', { schema: { response: { 200: Type.Ref('GuestDesktopPath') } } }, async () => {
    const listing = await files.list('').catch(() => undefined)
    if (!listing?.entries.some((entry) => entry.name === 'Desktop' && entry.kind === 'directory')) {
      throw new FileNotFound(`the desktop's home (${home}) has no Desktop directory`)
    }
    return { desktop_path: `${home.replace(/\/+$/, '')}/Desktop` }
  })
}

/** The directory's tree, directories first walked as OSWorld's os.listdir recursion does, within a budget of entries. */
async function tree (files: FileStore, path: string, name: string, budget: { left: number }): Promise<GuestDirectoryNode> {
  const listing = await files.list(path)
  const children: GuestDirectoryNode[] = []
  for (const entry of listing.entries) {
    if (budget.left-- <= 0) break
    const child = path === '' ? entry.name : `${path}/${entry.name}`
    children.push(entry.kind === 'directory' ? await tree(files, child, entry.name, budget) : { type: 'file', name: entry.name })
  }
  return { type: 'directory', name, children }
}
