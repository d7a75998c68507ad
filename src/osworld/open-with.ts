/**
 * Which of the desktop's applications (launch_app's names, src/runtime/desktop-apps.ts) opens
 * a file for `/setup/open_file`, as xdg-open would by its type: by the name's extension, a
 * directory in the file manager.
 */
const BY_EXTENSION: Record<string, string> = {
  csv: 'spreadsheet', ods: 'spreadsheet', xls: 'spreadsheet', xlsx: 'spreadsheet',
  doc: 'writer', docx: 'writer', odt: 'writer', rtf: 'writer',
  pdf: 'pdf',
  htm: 'browser', html: 'browser', svg: 'browser',
}

/** The application for `path` (relative to the home); `editor` for any other file. */
export function openWith (path: string, isDirectory: boolean): string {
  if (isDirectory) return 'files'
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase()
  return (extension !== undefined && BY_EXTENSION[extension]) || 'editor'
}
