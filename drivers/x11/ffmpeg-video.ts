/**
 * An episode's video: Debian's ffmpeg grabbing the X display (x11grab) at a modest frame rate
 * into fragmented MP4 (H.264, one fragment a second). Each fragment is complete on disk once
 * written, so an ffmpeg killed outright, or an X server that dies under it, still leaves a
 * file every player opens, of everything up to the last second; a stop asks ffmpeg to finish
 * ('q' on its stdin) and it closes the file itself.
 */
import { spawn } from 'node:child_process'
import type { VideoCapture, VideoSource } from '../../src/recording/video-source.ts'
import { xEnv } from './authority.ts'
import { diesWithUs } from './orphan.ts'

export interface FfmpegVideoOptions {
  /** The display of the moment (a supervised desktop may have replaced it). */
  display: () => string | undefined
  /** Frames a second (default 5). */
  fps?: number
  /** How long ffmpeg gets to show its first frame before the capture is given up (default 10 s). */
  startTimeoutMs?: number
}

/** How long a stop waits for ffmpeg to close the file, and then to die of SIGTERM, before SIGKILL. */
const FINISH_MS = 5000
const TERM_MS = 2000
/** ffmpeg prints the grab's first timestamp: x11grab stamps frames with the wall clock (µs). */
const START = /Input #0, x11grab[\s\S]*?start: (\d+(?:\.\d+)?)/

export function ffmpegVideo (options: FfmpegVideoOptions): VideoSource {
  const fps = options.fps ?? 5
  return {
    extension: 'mp4',
    mediaType: 'video/mp4',
    async start (file, maxBytes) {
      const display = options.display()
      if (!display) throw new Error('the desktop has no X display to record yet')
      const [command, args] = diesWithUs('ffmpeg', [
        '-hide_banner', '-loglevel', 'info', '-f', 'x11grab', '-framerate', String(fps), '-draw_mouse', '1', '-i', display,
        '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-pix_fmt', 'yuv420p',
        // Odd sizes cannot be yuv420p; one keyframe (and so one fragment) a second.
        '-vf', 'pad=ceil(iw/2)*2:ceil(ih/2)*2', '-g', String(Math.max(1, Math.round(fps))),
        '-flush_packets', '1', '-movflags', '+frag_keyframe+empty_moov+default_base_moof', '-fs', String(maxBytes),
        '-y', file,
      ])
      const child = spawn(command, args, { env: { ...process.env, ...xEnv(display) }, stdio: ['pipe', 'ignore', 'pipe'] })
      let stderr = ''
      let exitCode: number | null = null
      const exited = new Promise<void>((resolve) => child.once('close', (code) => { exitCode = code; resolve() }))
      child.stdin.on('error', () => {})
      const startedAt = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`ffmpeg showed no frame within ${options.startTimeoutMs ?? 10_000} ms`)) }, options.startTimeoutMs ?? 10_000)
        child.once('error', (error) => { clearTimeout(timer); reject(new Error(`ffmpeg could not start (${error.message}): install it with scripts/install-system-deps.sh`)) })
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          // Only the head is parsed; the rest is kept short for the reason of an early end.
          stderr = (stderr + chunk).slice(-4000)
          const match = START.exec(stderr)
          if (match) { clearTimeout(timer); resolve(Math.round(Number(match[1]) * 1000)) }
        })
        void exited.then(() => { clearTimeout(timer); reject(new Error(`ffmpeg ended before its first frame: ${lastLine(stderr)}`)) })
      })
      let stopping: Promise<void> | undefined
      const ended = exited.then(() => stopping ? null : `the capture ended on its own (ffmpeg exit ${exitCode}): ${lastLine(stderr)}`)
      const capture: VideoCapture = {
        startedAt,
        ended,
        stop: () => stopping ??= (async () => {
          if (exitCode !== null || child.exitCode !== null) return
          child.stdin.end('q')
          if (await within(exited, FINISH_MS)) return
          child.kill('SIGTERM')
          if (await within(exited, TERM_MS)) return
          child.kill('SIGKILL')
          await exited
        })(),
      }
      return capture
    },
  }
}

const within = async (promise: Promise<unknown>, ms: number): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined
  const done = await Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), ms) })])
  clearTimeout(timer)
  return done
}

const lastLine = (text: string) => text.trim().split('\n').filter((line) => !line.startsWith('frame=')).at(-1)?.slice(0, 300) ?? ''
