/**
 * Scrapybara's file tool (`instance.file(...)`): its SDKs send one body with every field any
 * command may use and type the answer as {output, error, base64_image, system}, but publish no
 * command names. These are ours, derived from the fields: each command, the fields it needs and
 * may take, and whether it writes (refused with 423 while a person holds the desktop, as /files
 * writes are). A field a command does not take, or one it needs and lacks, is a 400 naming the
 * command's fields.
 */
import { Type, type Static } from '@sinclair/typebox'

export interface CommandSpec {
  needs: readonly string[]
  takes: readonly string[]
  writes: boolean
  does: string
}

export const FILE_COMMANDS = {
  read: { needs: ['path'], takes: ['encoding'], writes: false, does: "the file's content: UTF-8 text, or base64 with encoding 'base64'" },
  write: { needs: ['path', 'content'], takes: ['encoding', 'mode'], writes: true, does: "replaces the file (made, with its parents, when missing) with content, decoded by encoding; mode 'a' appends" },
  append: { needs: ['path', 'content'], takes: ['encoding'], writes: true, does: 'adds content to the end of the file (made when missing)' },
  exists: { needs: ['path'], takes: [], writes: false, does: "'true' or 'false'" },
  list: { needs: [], takes: ['path', 'recursive'], writes: false, does: "a directory's entries, one a line, directories ending in '/' (recursive: every entry under it, by its path)" },
  mkdir: { needs: ['path'], takes: ['recursive'], writes: true, does: 'makes the directory (recursive: its parents too, and no error when it exists)' },
  delete: { needs: ['path'], takes: ['recursive'], writes: true, does: 'deletes a file, a link or an empty directory (recursive: a directory and everything under it)' },
  move: { needs: ['src', 'dst'], takes: [], writes: true, does: 'renames src to dst (its parents made); dst must not exist' },
  copy: { needs: ['src', 'dst'], takes: ['recursive'], writes: true, does: 'copies a file (recursive: a directory) to dst; dst must not exist' },
  view: { needs: ['path'], takes: ['view_range'], writes: false, does: "the editor's view: the file with line numbers, or a directory two levels deep" },
  create: { needs: ['path', 'content'], takes: [], writes: true, does: "the editor's create: the file with content as its text" },
  replace: { needs: ['path', 'old_str'], takes: ['new_str', 'all_occurrences'], writes: true, does: 'replaces old_str, which must occur exactly once (all_occurrences: every occurrence, at least one)' },
  insert: { needs: ['path', 'line', 'text'], takes: [], writes: true, does: 'inserts text after line (0: at the top)' },
  delete_lines: { needs: ['path', 'lines'], takes: [], writes: true, does: 'deletes the lines numbered in lines (from 1)' },
  grep: { needs: ['pattern'], takes: ['path', 'recursive', 'case_sensitive', 'line_numbers'], writes: false, does: "the lines matching pattern (a regular expression run in linear time: no backreferences or lookaround) in a file, or in a directory's files (recursive: and below), as path:line:text" },
} as const satisfies Record<string, CommandSpec>

export type FileCommandName = keyof typeof FILE_COMMANDS

/** The request as the SDKs send it: snake_case, every field optional but the command. */
export const FileRequest = Type.Object({
  command: Type.String({ description: `One of ${Object.keys(FILE_COMMANDS).join(', ')}.` }),
  path: Type.Optional(Type.String({ description: "Under the desktop's home: relative to it, or absolute inside it." })),
  content: Type.Optional(Type.String({ description: 'write, append, create: the text, or its bytes in base64 (encoding).' })),
  mode: Type.Optional(Type.String({ description: "write: 'w' (replace, the default) or 'a' (append)." })),
  encoding: Type.Optional(Type.String({ description: "read, write, append: 'utf-8' (the default) or 'base64'." })),
  view_range: Type.Optional(Type.Array(Type.Integer(), { description: 'view: [first, last] lines, last -1 for the end.' })),
  recursive: Type.Optional(Type.Boolean()),
  src: Type.Optional(Type.String()),
  dst: Type.Optional(Type.String()),
  old_str: Type.Optional(Type.String()),
  new_str: Type.Optional(Type.String()),
  line: Type.Optional(Type.Integer({ description: 'insert: the line after which text goes (0: the top).' })),
  text: Type.Optional(Type.String()),
  lines: Type.Optional(Type.Array(Type.Integer(), { description: 'delete_lines: the line numbers (from 1) to delete.' })),
  all_occurrences: Type.Optional(Type.Boolean()),
  pattern: Type.Optional(Type.String()),
  case_sensitive: Type.Optional(Type.Boolean({ description: 'grep: default true.' })),
  line_numbers: Type.Optional(Type.Boolean({ description: 'grep: default true.' })),
}, { additionalProperties: false })
export type FileRequest = Static<typeof FileRequest>

/** Scrapybara's FileResponse: what the command answered, and notes (`system`: what was cut). */
export const FileResponse = Type.Object({
  output: Type.String(),
  error: Type.Optional(Type.String()),
  base64_image: Type.Optional(Type.String()),
  system: Type.Optional(Type.String()),
})
export type FileResponse = Static<typeof FileResponse>

/** A command's fields in the words a 400 uses. */
export function fieldsOf (name: FileCommandName): string {
  const spec: CommandSpec = FILE_COMMANDS[name]
  return `${name} needs ${spec.needs.length ? spec.needs.join(', ') : 'nothing more'}${spec.takes.length ? ` and takes ${spec.takes.join(', ')}` : ''}`
}
