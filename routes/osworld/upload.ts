/**
 * `/setup/upload`'s multipart body (requests_toolbelt's MultipartEncoder: the field file_path,
 * then the file file_data), its file streamed into the home jail as it arrives, never held in
 * memory. file_path must come first, as the harness sends it: the file has nowhere to go before.
 */
import type { IncomingMessage } from 'node:http'
import { Busboy, type BusboyFileStream } from '@fastify/busboy'
import { InvalidNativePayload } from '../../src/errors/errors.ts'

/** Reads the form; `write` gets the path and the file's stream and finishes storing it. */
export async function receiveUpload<T> (raw: IncomingMessage, write: (path: string, file: BusboyFileStream) => Promise<T>): Promise<T> {
  const contentType = raw.headers['content-type'] ?? ''
  return await new Promise<T>((resolve, reject) => {
    let path: string | undefined
    let stored: Promise<T> | undefined
    let failed = false
    const fail = (error: Error) => {
      if (failed) return
      failed = true
      raw.unpipe()
      raw.resume()
      reject(error)
    }
    let form
    try {
      form = Busboy({ headers: { ...raw.headers, 'content-type': contentType }, limits: { fields: 4, files: 1, fieldSize: 8192 } })
    } catch (error) {
      fail(new InvalidNativePayload(`/setup/upload takes a multipart/form-data body (file_path, then file_data): ${(error as Error).message}`))
      return
    }
    form.on('field', (name, value) => { if (name === 'file_path') path = value })
    form.on('file', (name, file) => {
      if (name !== 'file_data' || stored !== undefined) { file.resume(); return }
      if (path === undefined || path === '') {
        file.resume()
        fail(new InvalidNativePayload('/setup/upload needs the field file_path before the file file_data (the target path in the desktop\'s home)'))
        return
      }
      stored = write(path, file)
      stored.catch((error: unknown) => { file.resume(); fail(error as Error) })
    })
    form.on('error', (error: Error) => fail(new InvalidNativePayload(`/setup/upload's form is malformed: ${error.message}`)))
    form.on('finish', () => {
      if (failed) return
      if (stored === undefined) {
        fail(new InvalidNativePayload('/setup/upload needs file_path and file_data (a multipart/form-data body)'))
        return
      }
      stored.then(resolve, fail)
    })
    raw.pipe(form)
  })
}
