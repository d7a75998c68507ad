/**
 * Where an episode's video comes from: a capture of the desktop's display into a file that
 * stays playable whatever happens to the capture (fragmented MP4). The driver side
 * (drivers/x11/ffmpeg-video.ts) provides it; the recorder starts one per episode.
 */

export interface VideoCapture {
  /** When the first frame was grabbed (ms since the epoch): step offsets count from it. */
  readonly startedAt: number
  /** Resolves when the capture has ended, by stop() or on its own (the X server gone, the size limit hit); with why, when on its own. */
  readonly ended: Promise<string | null>
  /** Ends the capture and finalises the file; resolves once it is complete. Safe twice. */
  stop: () => Promise<void>
}

export interface VideoSource {
  /** The file's extension and media type. */
  readonly extension: string
  readonly mediaType: string
  /** Starts capturing into `file`, at most `maxBytes` long; rejects when no capture could start (no display, no ffmpeg). */
  start: (file: string, maxBytes: number) => Promise<VideoCapture>
}
