/**
 * A recordings store for a test: a temporary folder removed at teardown, and every byte in it
 * as text (images and videos too: a secret must not be in any byte).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export async function recordingStore (t: { teardown: (fn: () => unknown) => void }, prefix = 'cg-recordings-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** Every file of the store, as text. */
export async function everyByte (dir: string): Promise<string> {
  let text = ''
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) text += (await readFile(join(entry.parentPath, entry.name))).toString('latin1')
  }
  return text
}
