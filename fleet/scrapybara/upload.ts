/**
 * POST /v1/instance/{id}/upload as the SDKs send it (multipart/form-data: `file`, and `path`, the
 * file's place on the instance), written through the desktop's own PUT /files/{path}. Paths are
 * the desktop's home or below: absolute under it, or relative to it; a path ending in '/' is a
 * directory the file keeps its own name in.
 */
import { Readable, Transform } from 'node:stream'
import { posix } from 'node:path'
import { BodyTooLarge } from '../../src/errors/errors.ts'
import { InvalidInstanceRequest } from './invalid.ts'
import { DESKTOP_HOME } from '../backends/backend.ts'

/** The largest upload taken: it is read whole before it is sent on. */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024

export interface Upload { file: Blob, filename: string, relative: string, path: string }

/** The form's file and where it goes, or a 422 that says what is missing. */
export async function readUpload (body: Readable, contentType: string | undefined): Promise<Upload> {
  if (!contentType?.toLowerCase().startsWith('multipart/form-data')) throw new InvalidInstanceRequest('an upload is multipart/form-data with the fields file and path (as the Scrapybara SDKs send it)', ['body'])
  let seen = 0
  const counted = body.pipe(new Transform({
    transform (chunk: Buffer, _encoding, done) {
      seen += chunk.length
      if (seen > MAX_UPLOAD_BYTES) done(new BodyTooLarge(`an upload is at most ${MAX_UPLOAD_BYTES} bytes; larger files go through PUT /desktops/{id}/files/{path}, which streams`))
      else done(null, chunk)
    },
  }))
  let form: FormData
  try {
    form = await new Request('http://upload.invalid/', { method: 'POST', headers: { 'content-type': contentType }, body: Readable.toWeb(counted) as ReadableStream, duplex: 'half' } as RequestInit).formData()
  } catch (error) {
    if (seen > MAX_UPLOAD_BYTES) throw new BodyTooLarge(`an upload is at most ${MAX_UPLOAD_BYTES} bytes; larger files go through PUT /desktops/{id}/files/{path}, which streams`)
    throw new InvalidInstanceRequest(`the upload is not a readable multipart/form-data body: ${(error as Error).message}`, ['body'])
  }
  const file = form.get('file')
  const path = form.get('path')
  if (!(file instanceof Blob)) throw new InvalidInstanceRequest('an upload needs the form field file (the file\'s content)', ['body', 'file'])
  if (typeof path !== 'string' || path === '') throw new InvalidInstanceRequest('an upload needs the form field path (where the file goes on the instance)', ['body', 'path'])
  const filename = (file as File).name || 'upload'
  const relative = homeRelative(path.endsWith('/') ? `${path}${filename}` : path)
  return { file, filename: posix.basename(relative), relative, path: `${DESKTOP_HOME}/${relative}` }
}

/** A path on the instance as a path under the desktop's home, or a 400. */
export function homeRelative (path: string): string {
  const absolute = posix.normalize(path.startsWith('/') ? path : `${DESKTOP_HOME}/${path}`)
  if (!absolute.startsWith(`${DESKTOP_HOME}/`) || absolute.length === DESKTOP_HOME.length + 1) {
    throw new InvalidInstanceRequest(`path '${path}' is not a file in the instance's home: files go under ${DESKTOP_HOME}/ (absolute, or relative to it)`, ['body', 'path'])
  }
  return absolute.slice(DESKTOP_HOME.length + 1)
}
