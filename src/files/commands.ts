/**
 * Scrapybara's file commands (command-table.ts) over the desktop's home, through the same jail
 * as /files and the editor: reads and writes are FileStore's (paths taken apart by `components`,
 * walked through held directories, links followed only while they stay inside, writes into a
 * temporary file renamed onto the target, --max-file-size and --max-files-total counted), the
 * editor's commands are TextEditor's, and what neither has — mkdir, move — walks with
 * dir-handle.ts as they do. Every command that changes the home first asks `mayWrite` (the
 * control lease: 423 while a person holds the desktop).
 */
import { realpath, rename, stat } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { setFlagsFromString } from 'node:v8'
import { FileNotFound, InvalidAction, PathConflict, PathForbidden, TooLarge } from '../errors/errors.ts'
import type { TextEditor } from '../editor/editor.ts'
import { errnoOf, nothingAt, walking, type Owner } from './dir-handle.ts'
import { FILE_COMMANDS, fieldsOf, type FileCommandName, type FileRequest, type FileResponse } from './command-table.ts'
import { MAX_LISTING, refusal, type Entry, type FileStore } from './store.ts'

// grep's patterns run on V8's linear-time engine (the `l` flag), so no pattern can stall the server.
setFlagsFromString('--enable-experimental-regexp-engine')

/** The most one command reads into memory from a file (a JSON answer holds it whole). */
export const FILE_COMMAND_MAX_BYTES = 16 * 1024 * 1024
/** grep's answer: at most this many matching lines. */
export const MAX_MATCHES = 1000

export interface FileCommandsOptions {
  home: string
  store: FileStore
  editor: TextEditor
  /** Throws (423) when the desktop may not be changed now. */
  mayWrite: () => void
}

type Fields = Omit<FileRequest, 'command'>

export class FileCommands {
  readonly #options: FileCommandsOptions
  constructor (options: FileCommandsOptions) { this.#options = options }

  /** The command's answer; a 4xx for a command unknown, a field missing or not the command's, or a path out of the home. */
  async run (request: FileRequest): Promise<FileResponse> {
    const { command, ...given } = request
    if (given.encoding !== undefined && given.encoding !== null) base64(given.encoding)
    const fields = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined && value !== null)) as Fields
    if (!Object.hasOwn(FILE_COMMANDS, command)) {
      throw new InvalidAction(`unknown file command '${command}': one of ${Object.keys(FILE_COMMANDS).join(', ')}`)
    }
    const name = command as FileCommandName
    const spec = FILE_COMMANDS[name]
    for (const field of Object.keys(fields)) {
      if (!(spec.needs as readonly string[]).includes(field) && !(spec.takes as readonly string[]).includes(field)) throw new InvalidAction(`'${field}' is not a field of ${name}: ${fieldsOf(name)}`)
    }
    const missing = spec.needs.filter((field) => (fields as Record<string, unknown>)[field] === undefined)
    if (missing.length) throw new InvalidAction(`${name} is missing ${missing.join(', ')}: ${fieldsOf(name)}`)
    if (spec.writes) this.#options.mayWrite()
    return this.#run(name, fields)
  }

  async #run (name: FileCommandName, f: Fields): Promise<FileResponse> {
    const { editor } = this.#options
    switch (name) {
      case 'read': {
        const bytes = await this.#read(f.path!)
        return { output: base64(f.encoding) ? bytes.toString('base64') : text(bytes, f.path!) }
      }
      case 'write': {
        if (f.mode !== undefined && f.mode !== 'w' && f.mode !== 'a') throw new InvalidAction(`mode must be 'w' (replace) or 'a' (append), not '${f.mode}'`)
        if (f.mode === 'a') return this.#run('append', { path: f.path!, content: f.content!, ...(f.encoding !== undefined && { encoding: f.encoding }) })
        const bytes = decode(f.content!, f.encoding)
        await this.#put(f.path!, bytes)
        return { output: `wrote ${bytes.length} bytes to ${f.path}` }
      }
      case 'append': {
        const bytes = decode(f.content!, f.encoding)
        const before = await this.#exists(f.path!) ? await this.#read(f.path!) : Buffer.alloc(0)
        await this.#put(f.path!, Buffer.concat([before, bytes]))
        return { output: `appended ${bytes.length} bytes to ${f.path}` }
      }
      case 'exists':
        return { output: String(await this.#exists(f.path!)) }
      case 'list': {
        const { lines, cut } = await this.#tree(this.#relative(f.path ?? ''), f.recursive === true)
        return { output: lines.map(({ path, entry }) => path + (entry.kind === 'directory' ? '/' : '')).join('\n'), ...(cut && { system: `only the first ${MAX_LISTING} entries are listed` }) }
      }
      case 'mkdir':
        await this.#mkdir(f.path!, f.recursive === true)
        return { output: `made the directory ${f.path}` }
      case 'delete':
        return { output: await this.#delete(f.path!, f.recursive === true) }
      case 'move':
        await this.#move(f.src!, f.dst!)
        return { output: `moved ${f.src} to ${f.dst}` }
      case 'copy':
        return await this.#copy(f.src!, f.dst!, f.recursive === true)
      case 'view':
        return { output: await editor.run({ command: 'view', path: f.path!, view_range: f.view_range }) }
      case 'create':
        return { output: await editor.run({ command: 'create', path: f.path!, file_text: f.content }) }
      case 'insert':
        return { output: await editor.run({ command: 'insert', path: f.path!, insert_line: f.line, insert_text: f.text }) }
      case 'replace': {
        if (f.all_occurrences !== true) return { output: await editor.run({ command: 'str_replace', path: f.path!, old_str: f.old_str, new_str: f.new_str }) }
        if (f.old_str === '') throw new InvalidAction('old_str must not be empty: it would match between every character')
        const before = text(await this.#read(f.path!), f.path!)
        const count = before.split(f.old_str!).length - 1
        if (count === 0) throw new InvalidAction(`No replacement was performed, old_str \`${f.old_str}\` did not appear verbatim in ${f.path}.`)
        await this.#put(f.path!, Buffer.from(before.replaceAll(f.old_str!, f.new_str ?? '')))
        return { output: `replaced ${count} occurrence${count === 1 ? '' : 's'} in ${f.path}` }
      }
      case 'delete_lines': {
        const lines = text(await this.#read(f.path!), f.path!).split('\n')
        const doomed = new Set(f.lines)
        for (const line of doomed) {
          if (line < 1 || line > lines.length) throw new InvalidAction(`line ${line} is not in ${f.path}: its lines are 1 to ${lines.length}`)
        }
        await this.#put(f.path!, Buffer.from(lines.filter((_, index) => !doomed.has(index + 1)).join('\n')))
        return { output: `deleted ${doomed.size} line${doomed.size === 1 ? '' : 's'} from ${f.path}` }
      }
      case 'grep':
        return await this.#grep(f)
    }
  }

  /** A client's path as a path relative to the home (absolute inside it, or relative); `..` and paths outside refused. */
  #relative (path: string): string {
    return this.#options.editor.parts(path).join('/')
  }

  async #read (path: string): Promise<Buffer> {
    const file = await this.#options.store.get(this.#relative(path))
    if (file.size > FILE_COMMAND_MAX_BYTES) {
      file.stream.destroy()
      throw new TooLarge(`'${path}' is ${file.size} bytes; the file tool reads at most ${FILE_COMMAND_MAX_BYTES} (download it with GET /files/{path})`)
    }
    const chunks: Buffer[] = []
    for await (const chunk of file.stream) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  }

  async #put (path: string, bytes: Buffer): Promise<void> {
    await this.#options.store.put(this.#relative(path), Readable.from([bytes]), bytes.length)
  }

  async #exists (path: string): Promise<boolean> {
    try {
      await this.#options.store.list(this.#relative(path))
      return true
    } catch (error) {
      if (error instanceof FileNotFound) return false
      // A file, not a directory: there all the same.
      if (error instanceof PathConflict && /is a file, not a directory/.test(error.message)) return true
      throw error
    }
  }

  /** The entries under `relative` (links not followed), each by its path from there; cut at MAX_LISTING. */
  async #tree (relative: string, recursive: boolean): Promise<{ lines: Array<{ path: string, entry: Entry }>, cut: boolean }> {
    const lines: Array<{ path: string, entry: Entry }> = []
    const pending = ['']
    while (pending.length) {
      const under = pending.shift()!
      const listing = await this.#options.store.list([relative, under].filter(Boolean).join('/'))
      for (const entry of listing.entries) {
        if (lines.length >= MAX_LISTING) return { lines, cut: true }
        const path = under ? `${under}/${entry.name}` : entry.name
        lines.push({ path, entry })
        if (recursive && entry.kind === 'directory') pending.push(path)
      }
      if (listing.truncated) return { lines, cut: true }
    }
    return { lines, cut: false }
  }

  async #walk<T> (shown: string, work: (home: string, owner: Owner | undefined) => Promise<T>): Promise<T> {
    const home = await realpath(this.#options.home)
    const info = await stat(home)
    const owner = process.getuid?.() === 0 && info.uid !== 0 ? { uid: info.uid, gid: info.gid } : undefined
    try {
      return await work(home, owner)
    } catch (error) {
      throw refusal(error, shown)
    }
  }

  async #mkdir (path: string, recursive: boolean): Promise<void> {
    const parts = this.#options.editor.parts(path)
    if (!parts.length) throw new PathConflict(`'${path}' is the home directory itself, which exists`)
    await this.#walk(path, (home, owner) => walking(home, async (walk) => {
      const leaf = await walk.leaf(parts, { follow: true, ...(recursive && { create: { ...(owner && { owner }) } }) })
      if (!leaf) throw new FileNotFound(`the directory that would hold '${path}' does not exist: make it first, or pass recursive: true`)
      if (leaf.stats?.isDirectory() && recursive) return
      if (leaf.stats || leaf.name === undefined) throw new PathConflict(`'${path}' exists already`)
      await walk.enter([leaf.name], { ...(owner && { owner }) })
    }))
  }

  async #delete (path: string, recursive: boolean): Promise<string> {
    const relative = this.#relative(path)
    if (!relative) throw new PathForbidden('the home directory itself cannot be deleted: name something under it')
    // The name itself, never what a link there points to: a link is deleted as a link, its target's contents kept.
    if (!recursive || !await this.#walk(path, (home) => walking(home, async (walk) => (await walk.leaf(relative.split('/'), { follow: false }))?.stats?.isDirectory() === true))) {
      const { kind } = await this.#options.store.remove(relative)
      return `deleted the ${kind} ${path}`
    }
    const { lines, cut } = await this.#tree(relative, true)
    if (cut) throw new TooLarge(`'${path}' holds more than ${MAX_LISTING} entries: delete what is under it in parts`)
    // Deepest first: a directory is empty when its turn comes.
    for (const { path: under } of lines.reverse()) await this.#options.store.remove(`${relative}/${under}`)
    await this.#options.store.remove(relative)
    return `deleted the directory ${path} and the ${lines.length} entr${lines.length === 1 ? 'y' : 'ies'} under it`
  }

  async #isDirectory (relative: string): Promise<boolean> {
    return this.#options.store.list(relative).then(() => true, (error: unknown) => {
      if (error instanceof PathConflict && /is a file, not a directory/.test(error.message)) return false
      throw error
    })
  }

  /** A rename inside the home: the source's last name is never followed (a link moves as a link). */
  async #move (src: string, dst: string): Promise<void> {
    const from = this.#options.editor.parts(src)
    const to = this.#options.editor.parts(dst)
    if (!from.length || !to.length) throw new PathForbidden('the home directory itself cannot be moved, nor anything moved onto it')
    await this.#walk(src, (home, owner) => walking(home, (a) => walking(home, async (b) => {
      const source = await a.leaf(from, { follow: false })
      if (!source?.stats || source.name === undefined) throw nothingAt(src)
      const target = await b.leaf(to, { follow: false, create: { ...(owner && { owner }) } })
      if (!target || target.name === undefined || target.stats) throw new PathConflict(`'${dst}' exists already: delete it first, or move to another name`)
      await rename(source.dir.at(source.name), target.dir.at(target.name)).catch((error: unknown) => {
        if (errnoOf(error) === 'EINVAL') throw new InvalidAction(`'${src}' cannot be moved into itself ('${dst}')`)
        if (errnoOf(error) === 'EXDEV') throw new PathConflict(`'${dst}' is on another file system than '${src}': copy it, then delete the source`)
        throw error
      })
    })))
  }

  async #copy (src: string, dst: string, recursive: boolean): Promise<FileResponse> {
    const from = this.#relative(src)
    const to = this.#relative(dst)
    if (!to) throw new PathForbidden('nothing can be copied onto the home directory itself')
    if (await this.#exists(dst)) throw new PathConflict(`'${dst}' exists already: delete it first, or copy to another name`)
    const { store } = this.#options
    if (!await this.#isDirectory(from)) {
      const file = await store.get(from)
      await store.put(to, file.stream, file.size)
      return { output: `copied ${src} to ${dst}` }
    }
    if (!recursive) throw new PathConflict(`'${src}' is a directory: copy it with recursive: true`)
    const { lines, cut } = await this.#tree(from, true)
    if (cut) throw new TooLarge(`'${src}' holds more than ${MAX_LISTING} entries: copy what is under it in parts`)
    await this.#mkdir(dst, true)
    let skipped = 0
    for (const { path, entry } of lines) {
      if (entry.kind === 'directory') await this.#mkdir(`${to}/${path}`, true)
      else if (entry.kind === 'file') {
        const file = await store.get(`${from}/${path}`)
        await store.put(`${to}/${path}`, file.stream, file.size)
      } else skipped++
    }
    return { output: `copied ${src} to ${dst}: ${lines.length - skipped} entries`, ...(skipped && { system: `${skipped} symbolic link(s) or special file(s) not copied` }) }
  }

  async #grep (f: Fields): Promise<FileResponse> {
    // V8's linear engine has no `i`: without case, the line and the pattern's letters (not its escapes) are lowercased.
    const folded = f.case_sensitive === false
    let pattern: RegExp
    try {
      pattern = new RegExp(folded ? f.pattern!.replace(/\\.|[^\\]+/g, (part) => part.startsWith('\\') ? part : part.toLowerCase()) : f.pattern!, 'l')
    } catch (error) {
      throw new InvalidAction(`pattern is not a regular expression grep can run in linear time (no backreferences or lookaround): ${(error as Error).message}`)
    }
    const shown = f.path ?? ''
    const relative = this.#relative(shown)
    const numbers = f.line_numbers !== false
    const directory = await this.#isDirectory(relative)
    const files = directory
      ? (await this.#tree(relative, f.recursive === true)).lines.filter(({ entry }) => entry.kind === 'file').map(({ path }) => path)
      : ['']
    const out: string[] = []
    let more = false
    for (const file of files) {
      const where = [relative, file].filter(Boolean).join('/')
      // In a directory, a file too large to read is passed over; named alone, it is refused.
      const bytes = await this.#read(where).catch((error: unknown) => {
        if (directory && error instanceof TooLarge) return undefined
        throw error
      })
      if (!bytes) continue
      // A binary file (a NUL in it) is skipped, as grep -I does.
      if (bytes.includes(0)) continue
      const lines = bytes.toString('utf8').split('\n')
      for (const [index, line] of lines.entries()) {
        if (!pattern.test(folded ? line.toLowerCase() : line)) continue
        if (out.length >= MAX_MATCHES) { more = true; break }
        out.push([...(directory ? [[shown.replace(/\/+$/, ''), file].filter(Boolean).join('/')] : []), ...(numbers ? [index + 1] : []), line].join(':'))
      }
      if (more) break
    }
    return { output: out.join('\n'), ...(more && { system: `only the first ${MAX_MATCHES} matching lines are shown` }) }
  }
}

const base64 = (encoding: string | undefined): boolean => {
  const name = (encoding ?? 'utf-8').toLowerCase()
  if (name === 'base64') return true
  if (name === 'utf-8' || name === 'utf8') return false
  throw new InvalidAction(`encoding must be 'utf-8' or 'base64', not '${encoding}'`)
}

function decode (content: string, encoding: string | undefined): Buffer {
  if (!base64(encoding)) return Buffer.from(content)
  const compact = content.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) throw new InvalidAction("content is not base64 (encoding 'base64')")
  return Buffer.from(compact, 'base64')
}

function text (bytes: Buffer, path: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new InvalidAction(`'${path}' is not UTF-8 text: read it with encoding 'base64'`)
  }
}
