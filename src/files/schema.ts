/** The files API's answers and query (GET /files, PUT and DELETE /files/{path}). */
import { Type, type Static } from '@sinclair/typebox'

export const FileEntry = Type.Object({
  name: Type.String({ description: 'The entry\'s name in its directory.' }),
  kind: Type.Union([Type.Literal('file'), Type.Literal('directory'), Type.Literal('symlink'), Type.Literal('other')], {
    description: 'What it is; a symbolic link is reported as one, not followed.',
  }),
  size: Type.Integer({ description: 'Bytes (of the link itself, for a symlink).' }),
  modified: Type.String({ format: 'date-time', description: 'Last modification time (ISO 8601, UTC).' }),
}, { $id: 'FileEntry', title: 'FileEntry' })

export const FileListing = Type.Object({
  path: Type.String({ description: 'The directory listed, relative to the home directory ("" for the home itself).' }),
  entries: Type.Array(Type.Ref(FileEntry), { description: 'Its entries, sorted by name.' }),
  truncated: Type.Boolean({ description: 'True when the directory holds more entries than one listing returns (10000).' }),
}, { $id: 'FileListing', title: 'FileListing' })

export const FileWritten = Type.Object({
  path: Type.String({ description: 'The file written, relative to the home directory.' }),
  size: Type.Integer({ description: 'Bytes written.' }),
}, { $id: 'FileWritten', title: 'FileWritten' })

export const FileDeleted = Type.Object({
  path: Type.String({ description: 'What was deleted, relative to the home directory.' }),
  kind: Type.Union([Type.Literal('file'), Type.Literal('directory'), Type.Literal('symlink'), Type.Literal('other')]),
}, { $id: 'FileDeleted', title: 'FileDeleted' })

export const FilesQuery = Type.Object({
  path: Type.Optional(Type.String({ description: 'The directory to list, relative to the home directory; default the home itself.' })),
}, { $id: 'FilesQuery', title: 'FilesQuery', additionalProperties: false })
export type FilesQuery = Static<typeof FilesQuery>

export const FILES_SCHEMAS = [FileEntry, FileListing, FileWritten, FileDeleted, FilesQuery]
