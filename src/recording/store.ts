/**
 * The recordings on disk: one folder per episode under the store's directory, holding
 * meta.json (its summary), steps.jsonl (a line per step, appended as it ends), images/ (the
 * screenshots, by step) and video.mp4. Nothing but the folder's name comes from a client, and
 * that is checked against RECORDING_ID_PATTERN before it gets here.
 */
import { appendFile, mkdir, readdir, readFile, rename, rm, stat, statfs, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { RecordingStep, RecordingSummary } from './schema.ts'

export type Meta = Omit<RecordingSummary, 'bytes'> & { video_file: string | null }

export const META_FILE = 'meta.json'
export const STEPS_FILE = 'steps.jsonl'
export const IMAGES_DIR = 'images'

export class RecordingStore {
  constructor (readonly dir: string) {}

  path (id: string, ...parts: string[]): string {
    return join(this.dir, id, ...parts)
  }

  async create (id: string): Promise<void> {
    await mkdir(this.path(id, IMAGES_DIR), { recursive: true })
  }

  /** Written whole to a temporary name first: a crash never leaves half a meta.json. */
  async writeMeta (meta: Meta): Promise<void> {
    const temporary = this.path(meta.id, `${META_FILE}.tmp`)
    await writeFile(temporary, JSON.stringify(meta))
    await rename(temporary, this.path(meta.id, META_FILE))
  }

  async appendStep (id: string, step: RecordingStep): Promise<void> {
    await appendFile(this.path(id, STEPS_FILE), JSON.stringify(step) + '\n')
  }

  async saveImage (id: string, name: string, bytes: Buffer): Promise<void> {
    await writeFile(this.path(id, IMAGES_DIR, name), bytes)
  }

  /** The steps as far as they were written; a last line cut short by a crash is left out. */
  async steps (id: string): Promise<RecordingStep[]> {
    const text = await readFile(this.path(id, STEPS_FILE), 'utf8').catch(() => '')
    const steps: RecordingStep[] = []
    for (const line of text.split('\n')) {
      if (!line) continue
      try { steps.push(JSON.parse(line) as RecordingStep) } catch { /* a torn last line */ }
    }
    return steps
  }

  /** Every episode with a readable meta.json; folders without one are not ours and are left alone. */
  async load (): Promise<Meta[]> {
    await mkdir(this.dir, { recursive: true })
    const metas: Meta[] = []
    for (const entry of await readdir(this.dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      const text = await readFile(this.path(entry.name, META_FILE), 'utf8').catch(() => undefined)
      if (!text) continue
      try { metas.push(JSON.parse(text) as Meta) } catch { /* unreadable: not listed */ }
    }
    return metas
  }

  /** Bytes the episode's files take. */
  async bytes (id: string): Promise<number> {
    let total = 0
    const walk = async (dir: string) => {
      for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        const path = join(dir, entry.name)
        if (entry.isDirectory()) await walk(path)
        else total += (await stat(path).catch(() => ({ size: 0 }))).size
      }
    }
    await walk(this.path(id))
    return total
  }

  async remove (id: string): Promise<void> {
    await rm(this.path(id), { recursive: true, force: true })
  }

  /** Bytes free to an unprivileged writer on the store's file system. */
  async freeBytes (): Promise<number> {
    await mkdir(this.dir, { recursive: true })
    const info = await statfs(this.dir)
    return info.bavail * info.bsize
  }
}
