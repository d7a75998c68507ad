/**
 * The screenshots of one HTTP answer, kept as the encoder's bytes until its body is written.
 * As base64 text a photographic screenshot is a 2.7 MB string, new each time: external memory,
 * which V8 counts toward a full collection of the whole heap (~8 ms of CPU a screenshot). So
 * an answer carries a short token where each image's base64 goes (alone, or at the end of a
 * `data:` URL), and src/http/image-bodies.ts writes the base64 from the bytes straight into the
 * body. Whatever else needs the text (a recorded step) asks `text()`.
 *
 * The token is letters and digits (JSON writes it as it is) and carries a random secret of
 * this process, so text a client sent cannot stand for an image.
 */
import { randomBytes } from 'node:crypto'

const SECRET = `image${randomBytes(12).toString('hex')}n`
/** The closing `i` keeps image 1 from being read in a token for 10. */
const token = (index: number): string => `${SECRET}${index}i`
const TOKEN = new RegExp(`${SECRET}(\\d+)i`, 'g')

export interface ImageToken {
  /** Where the token starts in the text searched, and its length. */
  at: number
  length: number
  image: Buffer
}

export class DeferredImages {
  readonly #images: Buffer[] = []

  /** A token that stands for `bytes`' base64 until the body is written. The bytes are ours from here on. */
  add (bytes: Buffer): string {
    this.#images.push(bytes)
    return token(this.#images.length - 1)
  }

  get size (): number {
    return this.#images.length
  }

  /** Each token of ours in `text`, in order. */
  * tokens (text: string): Generator<ImageToken> {
    for (const match of text.matchAll(TOKEN)) {
      const image = this.#images[Number(match[1])]
      if (image) yield { at: match.index, length: match[0].length, image }
    }
  }

  /** `text` with each token of ours replaced by its image's base64. */
  text (text: string): string {
    return text.replace(TOKEN, (found: string, index: string) => this.#images[Number(index)]?.toString('base64') ?? found)
  }

  /**
   * Frees the images' memory now instead of at the next full collection, which would otherwise
   * come sooner for it. Only memory a buffer has to itself: a small PNG may share Node's pool.
   */
  release (): void {
    if (this.#images.length === 0) return
    for (const image of this.#images.splice(0)) {
      // ES2024's ArrayBuffer.prototype.transfer (Node 21+): detaching frees the memory once nothing else holds it.
      const memory = image.buffer as ArrayBuffer & { transfer (length: number): ArrayBuffer }
      if (image.byteOffset === 0 && image.byteLength === memory.byteLength && memory.byteLength > Buffer.poolSize) memory.transfer(0)
    }
  }
}
