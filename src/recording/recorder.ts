/**
 * The episodes: which are recording, their video captures and idle timers, the store's size
 * and age limits. A request names its episode (X-Recording-Id); the first request of a name
 * starts it (refused with 507 when the disk is nearly full), each request adds a step when it
 * ends. An episode ends on POST /recordings/{id}/stop, after the idle time, when the store's
 * limit is reached, when its video capture dies (the X server gone) or at shutdown; its name
 * cannot be reused while it is kept. Writing a step never fails a request: a write that fails
 * ends the episode and says why in stop_reason.
 */
import type { Logger } from 'pino'
import { RecordingEnded, RecordingLimit, RecordingNotFound, RecordingStoreFull } from '../errors/errors.ts'
import { mediaTypeOfImage } from './images.ts'
import { redactPayload, redactUrl } from './redact.ts'
import { ANSWER_NOT_KEPT } from './tool-output.ts'
import type { RecordedRun, RecordingDetail, RecordingStep, RecordingSummary } from './schema.ts'
import type { DraftRun, StepDraft } from './step.ts'
import { RecordingStore, type Meta } from './store.ts'
import type { VideoCapture, VideoSource } from './video-source.ts'

export interface RecorderOptions {
  dir: string
  /** The whole store's size limit: the oldest episodes are dropped to stay under it. */
  maxBytes: number
  /** Episodes that ended longer ago than this are dropped. */
  maxAgeMs: number
  /** An episode with no request for this long ends. */
  idleMs: number
  /** A new episode is refused while the store's disk has less free than this. */
  minFreeBytes: number
  /** The desktop's video; without one, episodes have steps and screenshots only. */
  video?: VideoSource
  log: Logger
  /** Most episodes recording at once (each has its own ffmpeg); a new one beyond is refused with 429. Default DEFAULT_MAX_ACTIVE. */
  maxActive?: number
  /** Most new episodes one client (by address) may start in a minute; beyond, 429. Default DEFAULT_MAX_PER_MINUTE. */
  maxPerMinute?: number
  /** How often the limits are checked while episodes record (default 5 s). */
  checkMs?: number
}

export const DEFAULT_MAX_ACTIVE = 4
export const DEFAULT_MAX_PER_MINUTE = 10
const MINUTE_MS = 60_000

/** What the recorder is doing now, for GET /health. */
export interface RecorderLoad {
  /** Episodes recording (and starting). */
  active: number
  /** Video encoders (ffmpeg) running for them. */
  encoders: number
  max_active: number
}

/** What the hooks know of a request when it ends. */
export interface StepRequest {
  method: string
  route: string
  url: string
  payload: unknown
  status: number
  ms: number
}

interface Active {
  capture?: VideoCapture
  /** The capture's encoder still runs. */
  encoding: boolean
  /** When the last request of the episode came (its idle time counts from it). */
  touchedAt: number
  idle?: NodeJS.Timeout
  /** Steps are written one after the other, in the order their requests ended. */
  writes: Promise<void>
}

export class Recorder {
  readonly store: RecordingStore
  readonly #options: RecorderOptions
  readonly #metas = new Map<string, Meta>()
  readonly #bytes = new Map<string, number>()
  readonly #active = new Map<string, Active>()
  readonly #starting = new Map<string, Promise<void>>()
  /** By client: when it started each episode of the last minute. */
  readonly #starts = new Map<string, number[]>()
  /** Episodes ended whose video is being finalised. */
  readonly #stopping = new Set<Active>()
  #timer?: NodeJS.Timeout
  #closed = false

  constructor (options: RecorderOptions) {
    this.#options = options
    this.store = new RecordingStore(options.dir)
  }

  get maxBytes (): number { return this.#options.maxBytes }

  /** Reads the store; episodes a previous process left recording are ended, as it did. */
  async open (): Promise<void> {
    for (const meta of await this.store.load()) {
      if (meta.state === 'recording') {
        Object.assign(meta, { state: 'stopped', ended_at: new Date().toISOString(), stop_reason: 'restarted: the server stopped while it recorded' })
        await this.store.writeMeta(meta).catch(() => {})
      }
      this.#metas.set(meta.id, meta)
      this.#bytes.set(meta.id, await this.store.bytes(meta.id))
    }
    await this.#enforce()
    this.#timer = setInterval(() => { void this.#enforce() }, this.#options.checkMs ?? 5000).unref()
  }

  /** The episode `id`, started if it is new (for `client`, whose new episodes a minute are limited). */
  async begin (id: string, client = 'local'): Promise<void> {
    if (this.#active.has(id)) return
    const starting = this.#starting.get(id)
    if (starting) return starting
    const meta = this.#metas.get(id)
    if (meta) throw new RecordingEnded(`recording '${id}' has ended (${meta.stop_reason}); name a new episode in X-Recording-Id, or DELETE /recordings/${id} first`)
    // Synchronously up to #starting.set below: parallel requests cannot all pass the count.
    this.#admit(client)
    const started = this.#start(id).finally(() => this.#starting.delete(id))
    this.#starting.set(id, started)
    return started
  }

  /** Refuses a new episode beyond --record-max-active or the client's --record-max-per-minute (429, Retry-After), else counts it. */
  #admit (client: string): void {
    const now = Date.now()
    const maxActive = this.#options.maxActive ?? DEFAULT_MAX_ACTIVE
    const busy = this.#active.size + this.#starting.size + [...this.#stopping].filter((active) => active.encoding).length
    if (busy >= maxActive) {
      // The soonest an episode ends by itself: the one idle longest reaching --record-idle.
      const idleEnds = [...this.#active.values()].map((active) => active.touchedAt + this.#options.idleMs - now)
      const retryAfterSeconds = Math.max(1, Math.ceil(Math.min(this.#options.idleMs, ...idleEnds) / 1000))
      throw Object.assign(new RecordingLimit(`no new recording: ${busy} are recording, the most --record-max-active allows (${maxActive}). ` +
        `End one (POST /recordings/{id}/stop), or wait: one without requests ends after --record-idle (${this.#options.idleMs / 1000} s). ` +
        'Requests without X-Recording-Id, or naming an episode that records, run as usual'), { retryAfterSeconds })
    }
    const maxPerMinute = this.#options.maxPerMinute ?? DEFAULT_MAX_PER_MINUTE
    const recent = (this.#starts.get(client) ?? []).filter((at) => now - at < MINUTE_MS)
    if (recent.length >= maxPerMinute) {
      const retryAfterSeconds = Math.max(1, Math.ceil((recent[0]! + MINUTE_MS - now) / 1000))
      throw Object.assign(new RecordingLimit(`no new recording: this client (${client}) started ${recent.length} in the last minute, the most --record-max-per-minute allows; ` +
        `retry in ${retryAfterSeconds} s, or keep naming the same episode in X-Recording-Id`), { retryAfterSeconds })
    }
    recent.push(now)
    this.#starts.set(client, recent)
  }

  /** What is recording now: episodes, and the video encoders running for them. */
  load (): RecorderLoad {
    const actives = [...this.#active.values()]
    return {
      active: actives.length + this.#starting.size,
      encoders: [...actives, ...this.#stopping].filter((active) => active.encoding).length,
      max_active: this.#options.maxActive ?? DEFAULT_MAX_ACTIVE,
    }
  }

  async #start (id: string): Promise<void> {
    await this.#enforce()
    const free = await this.store.freeBytes()
    if (free < this.#options.minFreeBytes) {
      throw new RecordingStoreFull(`no new recording: the recordings' disk (${this.store.dir}) has ${mb(free)} MB free, below --record-min-free-mb (${mb(this.#options.minFreeBytes)} MB). ` +
        'Delete recordings (DELETE /recordings/{id}) or free space; requests without X-Recording-Id run as usual')
    }
    await this.store.create(id)
    const meta: Meta = {
      id, state: 'recording', started_at: new Date().toISOString(), ended_at: null, stop_reason: null, steps: 0,
      video: false, video_started_at: null, video_error: null, video_file: null,
    }
    const active: Active = { writes: Promise.resolve(), encoding: false, touchedAt: Date.now() }
    const video = this.#options.video
    if (video) {
      const file = `video.${video.extension}`
      try {
        const capture = await video.start(this.store.path(id, file), this.#options.maxBytes)
        Object.assign(meta, { video: true, video_file: file, video_started_at: new Date(capture.startedAt).toISOString() })
        active.capture = capture
        active.encoding = true
        void capture.ended.then((reason) => {
          active.encoding = false
          if (reason && this.#active.has(id)) void this.stop(id, `desktop-gone: ${reason}`)
        })
      } catch (error) {
        meta.video_error = (error as Error).message
        this.#options.log.warn({ err: error, recording: id }, 'recording without video')
      }
    }
    this.#metas.set(id, meta)
    this.#active.set(id, active)
    this.#bytes.set(id, 0)
    await this.store.writeMeta(meta)
    this.#touch(id)
    this.#options.log.info({ recording: id, video: meta.video }, 'recording started')
  }

  /** Adds the request's step to its episode; never throws (a failed write ends the episode). */
  commit (draft: StepDraft, request: StepRequest): void {
    const active = this.#active.get(draft.episode)
    const meta = this.#metas.get(draft.episode)
    if (!active || !meta) return
    this.#touch(draft.episode)
    active.writes = active.writes.then(() => this.#write(meta, draft, request)).catch((error: unknown) => {
      this.#options.log.error({ err: error, recording: meta.id }, 'recording a step failed; the recording ends')
      void this.stop(meta.id, `write-failed: ${(error as Error).message}`)
    })
  }

  /**
   * A step in every episode recording now for something that happened beside any request of it
   * (a person taking the desktop over, handing it back): method EVENT, no runs.
   */
  mark (route: string, payload: Record<string, unknown>): void {
    const now = Date.now()
    for (const episode of this.#active.keys()) {
      this.commit({ episode, startedAt: now, runs: [], error: null, response: JSON.stringify(payload) },
        { method: 'EVENT', route, url: route, payload, status: 200, ms: 0 })
    }
  }

  async #write (meta: Meta, draft: StepDraft, request: StepRequest): Promise<void> {
    if (meta.state !== 'recording') return
    const index = meta.steps
    const prefix = String(index).padStart(4, '0')
    const images: string[] = []
    let written = 0
    const save = async (base64: string, suffix: string): Promise<string> => {
      const bytes = Buffer.from(base64, 'base64')
      const name = `${prefix}-${images.length}${suffix}.${mediaTypeOfImage(bytes)}`
      await this.store.saveImage(meta.id, name, bytes)
      images.push(name)
      written += bytes.length
      return name
    }
    const runs: RecordedRun[] = []
    for (const run of draft.runs) runs.push(await this.#run(run, save))
    const capture = this.#active.get(meta.id)?.capture
    const step: RecordingStep = {
      index,
      method: request.method,
      route: request.route,
      url: redactUrl(request.url),
      payload: redactPayload(request.payload ?? null),
      runs,
      status: request.status,
      response: draft.withholdResponse ? ANSWER_NOT_KEPT : responseOf(draft.response),
      error: draft.error,
      started_at: new Date(draft.startedAt).toISOString(),
      ms: Math.round(request.ms * 10) / 10,
      video_offset_ms: capture ? Math.max(0, draft.startedAt - capture.startedAt) : null,
      images,
    }
    const line = JSON.stringify(step)
    await this.store.appendStep(meta.id, step)
    meta.steps = index + 1
    await this.store.writeMeta(meta)
    this.#bytes.set(meta.id, (this.#bytes.get(meta.id) ?? 0) + written + line.length + 1)
  }

  async #run (run: DraftRun, save: (base64: string, suffix: string) => Promise<string>): Promise<RecordedRun> {
    const results: unknown[] = []
    for (const [index, result] of run.results.entries()) {
      const { base64_image: image, ...rest } = result
      const after = run.after?.[index]
      results.push({ ...rest, image: image ? await save(image, '') : null, ...(after && { after: await save(after, '-after') }) })
    }
    return { actions: run.actions, results, failed_index: run.failedIndex, error: run.error, ms: Math.round(run.ms * 10) / 10 }
  }

  /** Ends the episode: its video finalised, its steps all written. Safe on an ended one. */
  async stop (id: string, reason: string): Promise<RecordingSummary> {
    const active = this.#active.get(id)
    const meta = this.#metas.get(id)
    if (!meta) throw new RecordingNotFound(`no recording '${id}' (GET /recordings lists them)`)
    if (active) {
      this.#active.delete(id)
      // Its encoder still counts against --record-max-active until it has finished the file.
      this.#stopping.add(active)
      clearTimeout(active.idle)
      try {
        await active.writes
        await active.capture?.stop()
      } finally {
        active.encoding = false
        this.#stopping.delete(active)
      }
      Object.assign(meta, { state: 'stopped', ended_at: new Date().toISOString(), stop_reason: reason })
      this.#bytes.set(id, await this.store.bytes(id))
      await this.store.writeMeta(meta).catch((error: unknown) => this.#options.log.error({ err: error, recording: id }, 'writing the recording\'s end failed'))
      this.#options.log.info({ recording: id, reason, steps: meta.steps }, 'recording ended')
    }
    return this.#summary(meta)
  }

  async remove (id: string): Promise<void> {
    if (!this.#metas.has(id)) throw new RecordingNotFound(`no recording '${id}' (GET /recordings lists them)`)
    await this.stop(id, 'deleted')
    this.#metas.delete(id)
    this.#bytes.delete(id)
    await this.store.remove(id)
  }

  /** The episodes, newest first, once the steps of those recording are written. */
  async list (): Promise<{ recordings: RecordingSummary[], bytes: number, max_bytes: number }> {
    await Promise.all([...this.#active.values()].map((active) => active.writes))
    const recordings = await Promise.all([...this.#metas.values()].map((meta) => this.#summary(meta)))
    recordings.sort((a, b) => b.started_at.localeCompare(a.started_at))
    return { recordings, bytes: recordings.reduce((sum, r) => sum + r.bytes, 0), max_bytes: this.#options.maxBytes }
  }

  async detail (id: string): Promise<RecordingDetail> {
    const meta = this.#metas.get(id)
    if (!meta) throw new RecordingNotFound(`no recording '${id}' (GET /recordings lists them)`)
    await this.#active.get(id)?.writes
    return { ...await this.#summary(meta), steps: await this.store.steps(id) }
  }

  /** The episode's meta, or a 404. */
  meta (id: string): Meta {
    const meta = this.#metas.get(id)
    if (!meta) throw new RecordingNotFound(`no recording '${id}' (GET /recordings lists them)`)
    return meta
  }

  async close (): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    clearInterval(this.#timer)
    await Promise.all([...this.#active.keys()].map((id) => this.stop(id, 'shutdown')))
  }

  async #summary (meta: Meta): Promise<RecordingSummary> {
    const { video_file: _file, ...summary } = meta
    return { ...summary, bytes: await this.#size(meta.id) }
  }

  /** An episode's bytes: what was written, plus its growing video while it records. */
  async #size (id: string): Promise<number> {
    if (!this.#active.has(id)) return this.#bytes.get(id) ?? 0
    return this.store.bytes(id)
  }

  #touch (id: string): void {
    const active = this.#active.get(id)
    if (!active) return
    clearTimeout(active.idle)
    active.touchedAt = Date.now()
    active.idle = setTimeout(() => { void this.stop(id, 'idle') }, this.#options.idleMs).unref()
  }

  /** Drops ended episodes past the age limit, then the oldest until the store fits its size limit. */
  async #enforce (): Promise<void> {
    const now = Date.now()
    // Clients that started nothing in the last minute are forgotten: the map stays as small as the traffic.
    for (const [client, starts] of this.#starts) if (starts.every((at) => now - at >= MINUTE_MS)) this.#starts.delete(client)
    for (const meta of [...this.#metas.values()]) {
      if (meta.state === 'stopped' && meta.ended_at && now - Date.parse(meta.ended_at) > this.#options.maxAgeMs) await this.#drop(meta.id, 'age')
    }
    const sizes = new Map<string, number>()
    for (const id of this.#metas.keys()) sizes.set(id, await this.#size(id))
    let total = [...sizes.values()].reduce((a, b) => a + b, 0)
    const oldestFirst = [...this.#metas.values()].sort((a, b) => a.started_at.localeCompare(b.started_at))
    for (const meta of oldestFirst) {
      if (total <= this.#options.maxBytes) return
      if (meta.state === 'recording') continue
      total -= sizes.get(meta.id) ?? 0
      await this.#drop(meta.id, 'size')
    }
    // Only episodes still recording are left, and they are over the limit: the oldest ends.
    for (const meta of oldestFirst) {
      if (total <= this.#options.maxBytes) return
      if (meta.state !== 'recording') continue
      total -= sizes.get(meta.id) ?? 0
      await this.stop(meta.id, `limit: the store is over --record-max-mb (${mb(this.#options.maxBytes)} MB)`)
    }
  }

  async #drop (id: string, why: 'age' | 'size'): Promise<void> {
    this.#metas.delete(id)
    this.#bytes.delete(id)
    await this.store.remove(id).catch((error: unknown) => this.#options.log.error({ err: error, recording: id }, 'dropping a recording failed'))
    this.#options.log.info({ recording: id, why }, 'recording dropped by the store\'s limits')
  }
}

/** The answer as JSON when it is JSON, else as text; base64 images inside it replaced by their length (the step's images hold them). */
function responseOf (body: string | undefined): unknown {
  if (body === undefined) return null
  try {
    return redactPayload(JSON.parse(body))
  } catch {
    return redactPayload(body)
  }
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10
