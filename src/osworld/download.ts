/**
 * OSWorld's /setup/download_file: the guest fetches a URL itself and writes it into the
 * desktop's home. Here only http(s), each redirect followed by hand so that one to another
 * scheme (file:, ftp:, data:) is refused rather than taken; the whole download within a time
 * limit; the body written through the home jail (`FileStore.put`: no `..`, no link out, the
 * --max-file-size bound, a temporary file renamed into place), so a refused or broken
 * download leaves nothing behind.
 */
import { Readable } from 'node:stream'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import type { FileStore } from '../files/store.ts'
import { DownloadFailed, DownloadTimeout, InvalidAction } from '../errors/errors.ts'

/** The whole download, from the first request to the body's last byte: OSWorld's harness gives its own 300 s. */
export const DOWNLOAD_TIMEOUT_MS = 300_000
/** Redirects followed before giving up, as browsers bound them. */
const MAX_REDIRECTS = 10
const WEB_SCHEMES = new Set(['http:', 'https:'])

/** The URL as the client sent it, or a 400 naming `url`. */
export function downloadUrl (url: string): URL {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new InvalidAction(`body/url url must be an absolute http:// or https:// URL; got ${JSON.stringify(url)}`)
  }
  // The schema's pattern has already said so; this is the parsed URL's own word.
  if (!WEB_SCHEMES.has(parsed.protocol)) throw new InvalidAction(`body/url url must be an http:// or https:// URL; ${parsed.protocol} is not fetched by this server`)
  return parsed
}

/** Fetches `url` into the home-relative `path`; resolves with the bytes written. */
export async function download (files: FileStore, url: URL, path: string, timeoutMs = DOWNLOAD_TIMEOUT_MS): Promise<number> {
  const signal = AbortSignal.timeout(timeoutMs)
  const failed = (error: unknown): Error => {
    if (signal.aborted) return new DownloadTimeout(`${url.href} did not arrive whole within ${timeoutMs / 1000} s`)
    const cause = (error as { cause?: { code?: string, message?: string } }).cause
    const reason = cause?.code ?? cause?.message ?? (error as Error).message
    return new DownloadFailed(`could not fetch ${url.href}: ${reason}`)
  }
  let response: Response
  let current = url
  for (let redirects = 0; ; redirects++) {
    try {
      response = await fetch(current, { redirect: 'manual', signal })
    } catch (error) {
      throw failed(error)
    }
    const location = response.headers.get('location')
    if (response.status < 300 || response.status >= 400 || location === null) break
    await response.body?.cancel().catch(() => {})
    const next = new URL(location, current)
    if (!WEB_SCHEMES.has(next.protocol)) throw new DownloadFailed(`${current.href} redirected to ${next.protocol} (${next.href}), which this server does not follow: only http:// and https://`)
    if (redirects >= MAX_REDIRECTS) throw new DownloadFailed(`${url.href} redirected more than ${MAX_REDIRECTS} times`)
    current = next
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => {})
    throw new DownloadFailed(`${current.href} answered ${response.status} ${response.statusText}: nothing was written`)
  }
  // A declared length lets the jail refuse a file over its limit before a byte is read; with a
  // content coding it is the coded size, not what is written, so it is not passed on then.
  const length = response.headers.has('content-encoding') ? NaN : Number(response.headers.get('content-length') ?? NaN)
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>)
  try {
    return (await files.put(path, body, Number.isSafeInteger(length) && length >= 0 ? length : undefined)).size
  } catch (error) {
    body.destroy()
    // The jail's own refusals (a path out, too large, no room) stand as they are.
    if (typeof (error as { statusCode?: unknown }).statusCode === 'number') throw error
    throw failed(error)
  }
}
