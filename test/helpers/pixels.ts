/** Screenshots read back as pixels. */
import sharp from 'sharp'

/** Decodes a base64 PNG into RGB pixels. */
export async function decode (base64: string) {
  const { data, info } = await sharp(Buffer.from(base64, 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  return { width: info.width, height: info.height, at: (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)] }
}
