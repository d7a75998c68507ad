/**
 * The bodies and answers of OSWorld's guest protocol, as `desktop_env`'s PythonController and
 * SetupController send and read them (desktop_env/controllers/python.py, setup.py).
 */
import { Type, type Static } from '@sinclair/typebox'

const Command = Type.Union([
  Type.String({ minLength: 1, maxLength: 1_000_000 }),
  Type.Array(Type.String({ maxLength: 1_000_000 }), { minItems: 1, maxItems: 10_000 }),
], {
  description: 'argv, e.g. ["python", "-c", "import pyautogui; pyautogui.click(10, 20)"], or one line (split as shlex does unless shell is true).',
  errorMessage: 'command must be a non-empty string or a non-empty list of strings',
})

const Shell = Type.Optional(Type.Boolean({ default: false, description: 'A shell line (true) or argv (false).', errorMessage: 'shell must be true or false' }))

export const GuestExecuteBody = Type.Object({ command: Command, shell: Shell }, {
  $id: 'GuestExecuteBody', title: 'GuestExecuteBody', additionalProperties: false,
})
export type GuestExecuteBody = Static<typeof GuestExecuteBody>

export const GuestExecuteResult = Type.Object({
  status: Type.Literal('success', { description: 'The command was carried out (its returncode says how it went), as OSWorld answers.' }),
  output: Type.String({ description: 'What it printed (stdout).' }),
  error: Type.String({ description: 'Why it failed (stderr): for pyautogui code, the refusal or failure of the call at fault.' }),
  returncode: Type.Integer({ description: '0 when every call ran, 1 when one was refused or failed.' }),
}, { $id: 'GuestExecuteResult', title: 'GuestExecuteResult' })
export type GuestExecuteResult = Static<typeof GuestExecuteResult>

export const GuestRunPythonBody = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 1_000_000, errorMessage: 'code must be the Python script, a non-empty string' }),
}, { $id: 'GuestRunPythonBody', title: 'GuestRunPythonBody', additionalProperties: false })

export const GuestRunPythonResult = Type.Object({
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  message: Type.String({ description: 'output and error together.' }),
  need_more: Type.Boolean(),
  output: Type.String(),
  error: Type.String(),
  return_code: Type.Integer(),
}, { $id: 'GuestRunPythonResult', title: 'GuestRunPythonResult' })
export type GuestRunPythonResult = Static<typeof GuestRunPythonResult>

export const GuestBashBody = Type.Object({
  script: Type.String({ minLength: 1, maxLength: 1_000_000, errorMessage: 'script must be the bash script, a non-empty string' }),
  timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600, errorMessage: 'timeout must be seconds, up to 3600' })),
  working_dir: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Null()])),
}, { $id: 'GuestBashBody', title: 'GuestBashBody', additionalProperties: false })

export const GuestAccessibility = Type.Object({
  AT: Type.String({ description: "The desktop's accessibility tree in OSWorld's XML (desktop-frame, its namespaces)." }),
}, { $id: 'GuestAccessibility', title: 'GuestAccessibility' })

export const GuestTerminal = Type.Object({
  output: Type.Union([Type.String(), Type.Null()], { description: 'The text of the focused terminal of the active window; null when there is none.' }),
  status: Type.Literal('success'),
}, { $id: 'GuestTerminal', title: 'GuestTerminal' })

export const GuestSize = Type.Object({ width: Type.Integer(), height: Type.Integer() }, { $id: 'GuestSize', title: 'GuestSize' })

const Path = Type.String({ minLength: 1, maxLength: 4096, errorMessage: 'a path must be a non-empty string, at most 4096 characters' })

export const GuestFileForm = Type.Object({ file_path: Path }, { $id: 'GuestFileForm', title: 'GuestFileForm', additionalProperties: false })
export const GuestWindowSizeForm = Type.Object({
  app_class_name: Type.String({ minLength: 1, maxLength: 256, errorMessage: 'app_class_name must be a window class, e.g. xterm' }),
}, { $id: 'GuestWindowSizeForm', title: 'GuestWindowSizeForm', additionalProperties: false })

export const GuestPathBody = Type.Object({ path: Path }, { $id: 'GuestPathBody', title: 'GuestPathBody', additionalProperties: false })

export const GuestDesktopPath = Type.Object({ desktop_path: Type.String() }, { $id: 'GuestDesktopPath', title: 'GuestDesktopPath' })

/** A node of /list_directory's tree, as OSWorld nests it. */
export const GuestDirectoryNode = Type.Recursive((Self) => Type.Object({
  type: Type.Union([Type.Literal('directory'), Type.Literal('file')]),
  name: Type.String(),
  children: Type.Optional(Type.Array(Self)),
}), { $id: 'GuestDirectoryNode', title: 'GuestDirectoryNode' })
export type GuestDirectoryNode = Static<typeof GuestDirectoryNode>

export const GuestDirectoryTree = Type.Object({ directory_tree: Type.Ref(GuestDirectoryNode) }, { $id: 'GuestDirectoryTree', title: 'GuestDirectoryTree' })

export const GuestOpenFileBody = Type.Object({
  path: Path,
  window_name: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  timeout_seconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1800 })),
}, { $id: 'GuestOpenFileBody', title: 'GuestOpenFileBody', additionalProperties: false })

export const GuestWindowBody = Type.Object({
  window_name: Type.String({ minLength: 1, maxLength: 1024, errorMessage: 'window_name must be a window title (or class, with by_class)' }),
  strict: Type.Optional(Type.Boolean({ description: 'The whole title, case-sensitively.' })),
  by_class: Type.Optional(Type.Boolean({ description: 'Match the window class instead of the title.' })),
}, { $id: 'GuestWindowBody', title: 'GuestWindowBody', additionalProperties: false })

export const GuestDownloadBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 8192, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', description: 'What to fetch: http or https only.', errorMessage: 'url must be an http:// or https:// URL' }),
  path: Path,
}, { $id: 'GuestDownloadBody', title: 'GuestDownloadBody', additionalProperties: false })

export const GuestVerifyBody = Type.Object({
  command: Command,
  shell: Shell,
  verification: Type.Optional(Type.Object({
    window_exists: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'A window whose title contains this, case-insensitively (as wmctrl -l is searched).' })),
    command_success: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000, description: 'A shell line that must exit 0 (needs --shell).' })),
  }, { additionalProperties: false, errorMessage: 'verification may hold window_exists (a title) and command_success (a shell line), nothing else' })),
  max_wait_time: Type.Optional(Type.Number({ minimum: 0, maximum: 600, default: 10, errorMessage: 'max_wait_time must be seconds, 0 to 600' })),
  check_interval: Type.Optional(Type.Number({ minimum: 0.05, maximum: 60, default: 1, errorMessage: 'check_interval must be seconds, 0.05 to 60' })),
}, { $id: 'GuestVerifyBody', title: 'GuestVerifyBody', additionalProperties: false })

export const GuestVerifyResult = Type.Object({
  status: Type.Literal('success'),
  output: Type.String(),
  error: Type.String(),
  returncode: Type.Integer(),
  verification: Type.Union([Type.Literal('passed'), Type.Literal('none')], { description: "'none' when the body asked for no verification." }),
  wait_time: Type.Number({ description: 'Seconds from the end of the command until the verification held.' }),
}, { $id: 'GuestVerifyResult', title: 'GuestVerifyResult' })

export const GUEST_SCHEMAS = [
  GuestExecuteBody, GuestExecuteResult, GuestRunPythonBody, GuestRunPythonResult, GuestBashBody, GuestAccessibility, GuestTerminal, GuestSize,
  GuestFileForm, GuestWindowSizeForm, GuestPathBody, GuestDesktopPath, GuestDirectoryNode, GuestDirectoryTree, GuestOpenFileBody, GuestWindowBody,
  GuestVerifyBody, GuestVerifyResult, GuestDownloadBody,
]
