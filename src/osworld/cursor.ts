/**
 * OSWorld's screenshots show the pointer (its server pastes the cursor image onto the grab);
 * ours are grabbed without it. An arrow is drawn with its tip at the pointer, clipped at the
 * screen's edges, so a model sees where it is about to click.
 */
import sharp from 'sharp'

const ARROW_WIDTH = 12
const ARROW_HEIGHT = 20
const ARROW = '<path d="M1 1 L1 17 L5 13 L8 19 L10 18 L7 12 L12 12 Z" fill="black" stroke="white" stroke-width="1.2" stroke-linejoin="round"/>'

/** The PNG with the arrow's tip at `at`; as it was when the pointer is off the screen. */
export async function withCursor (png: Buffer, at: readonly [number, number], screen: { width: number, height: number }): Promise<Buffer> {
  const [x, y] = at
  const width = Math.min(ARROW_WIDTH, screen.width - x)
  const height = Math.min(ARROW_HEIGHT, screen.height - y)
  if (x < 0 || y < 0 || width <= 0 || height <= 0) return png
  // The svg's own size clips the arrow at the right and bottom edges.
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${ARROW}</svg>`
  return await sharp(png).composite([{ input: Buffer.from(svg), left: x, top: y }]).png().toBuffer()
}
