/**
 * The photo row's page: Firefox (the desktop image's browser) in kiosk mode over the display,
 * showing a local page of one 1280x800 JPEG made here (bench/photo.ts: photograph-like noise,
 * no download) at the page's origin, so the screenshot's top-left is the photo pixel for
 * pixel (bench/peers/effects.ts's photoEffect checks it).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import sharp from 'sharp'
import { spawnOwned, stopOwned } from '../../test/helpers/processes.ts'
import { photoJpeg } from '../photo.ts'
import { photoEffect, type RawImage } from './effects.ts'

const SIZE = { width: 1280, height: 800 }
/**
 * The part of the screen the photo must fill: Firefox's kiosk window under the peers' window
 * manager (jwm) is 1152x720 at the origin, not the whole screen, so the check is of the part
 * any such window shows.
 */
export const PHOTO_AREA = { width: 1024, height: 640 }

async function raw (image: Buffer): Promise<RawImage> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  return { width: info.width, height: info.height, channels: info.channels, data }
}

/**
 * Starts Firefox on the page and waits (120 s at most: a cold Firefox on a loaded machine)
 * until `screenshot` shows the photo. Answers the photo's pixels, as the browser decodes them
 * give or take its decoder's rounding, and how to stop it all.
 */
export async function startPhotoPage (env: NodeJS.ProcessEnv, screenshot: () => Promise<Buffer>): Promise<{ photo: RawImage, bytes: number, stop: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'cg-bench-photo-'))
  const jpeg = await photoJpeg(SIZE.width, SIZE.height, 47)
  await writeFile(join(dir, 'photo.jpg'), jpeg)
  await writeFile(join(dir, 'page.html'), '<!doctype html><html><head><meta charset="utf-8"><title>Photo</title>' +
    '<style>html,body{margin:0;padding:0;overflow:hidden;background:#000}img{display:block}</style></head>' +
    `<body><img src="photo.jpg" width="${SIZE.width}" height="${SIZE.height}" alt="photo"></body></html>`)
  // Firefox asks for a profile that does not exist yet ("Profile Missing") rather than making it.
  const profile = join(dir, 'profile')
  await mkdir(profile)
  const firefox = spawnOwned(undefined, 'firefox', ['--kiosk', '--no-remote', '--profile', profile, `file://${join(dir, 'page.html')}`], {
    env: { ...env, MOZ_CRASHREPORTER_DISABLE: '1' }, stdio: 'ignore', group: true,
  })
  const stop = async () => { await stopOwned(firefox, true); await rm(dir, { recursive: true, force: true }) }
  try {
    const photo = await raw(jpeg)
    const deadline = Date.now() + 120_000
    let last = 'no screenshot yet'
    for (;;) {
      if (firefox.exitCode !== null) throw new Error(`firefox exited (${firefox.exitCode}) before showing the photo page`)
      const miss = await screenshot().then(raw).then((screen) => photoEffect(photo, screen, PHOTO_AREA), (error: unknown) => (error as Error).message)
      if (miss === undefined) break
      last = miss
      if (Date.now() > deadline) throw new Error(`Firefox did not show the photo page within 120 s: ${last}`)
      await delay(500)
    }
    // Its first paint done: a moment more for the page to settle (no spinner, no transition).
    await delay(1000)
    return { photo, bytes: jpeg.length, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
