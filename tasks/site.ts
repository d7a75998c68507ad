/** A local web site for the browser tasks: pages by path, and every request that arrived (method, path, body). */
import { createServer } from 'node:http'
import type { TaskContext } from './task.ts'

export interface Arrival { method: string, path: string, body: string }

export type Site = Awaited<ReturnType<typeof startSite>>

export async function startSite (pages: Record<string, string>, cleanup: (fn: () => unknown) => void) {
  const arrivals: Arrival[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => { body += chunk })
    request.on('end', () => {
      const path = request.url ?? ''
      arrivals.push({ method: request.method ?? '', path, body })
      const page = pages[path.split('?')[0]!]
      response.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' })
      response.end(page ?? '<!doctype html><title>Not found</title>not found')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanup(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, arrivals }
}

/** Serves `pages` for the task and opens the browser on `path` of the site. */
export async function openSite (ctx: TaskContext, pages: Record<string, string>, path: string): Promise<Site> {
  const site = await startSite(pages, ctx.cleanup)
  await ctx.launch('browser', `${site.origin}${path}`)
  return site
}
