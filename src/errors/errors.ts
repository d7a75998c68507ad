/**
 * The one catalogue of error codes. Every error the server answers with is built here, so a
 * client can switch on `code` and docs/ARCHITECTURE.md can list them. Messages are written
 * for the person reading the response: they say what was wrong and what would be right.
 */
import createError from '@fastify/error'

/** An action that does not fit the unified action space (schema or seed validator). */
export const InvalidAction = createError<'ERR_INVALID_ACTION', 400, [string]>(
  'ERR_INVALID_ACTION', '%s', 400)

/** A body that is not text: bytes that are not UTF-8, or a lone UTF-16 surrogate (`"\ud800"`) in a string. */
export const InvalidEncoding = createError<'ERR_INVALID_ENCODING', 400, [string]>(
  'ERR_INVALID_ENCODING', '%s', 400)

/** A query string that does not fit the route's parameters. */
export const InvalidQuery = createError<'ERR_INVALID_QUERY', 400, [string]>(
  'ERR_INVALID_QUERY', '%s', 400)

/** A path parameter that does not fit the route (a recording's name, a file path with a NUL byte or over the length limits). */
export const InvalidPath = createError<'ERR_INVALID_PATH', 400, [string]>(
  'ERR_INVALID_PATH', '%s', 400)

/** No such route. */
export const RouteNotFound = createError<'ERR_NOT_FOUND', 404, [string]>(
  'ERR_NOT_FOUND', '%s', 404)

/** No adapter of that name; the message lists the known ones. */
export const UnknownAdapter = createError<'ERR_UNKNOWN_ADAPTER', 404, [string]>(
  'ERR_UNKNOWN_ADAPTER', '%s', 404)

/** A native payload that does not fit its adapter's schema or version. */
export const InvalidNativePayload = createError<'ERR_INVALID_PAYLOAD', 400, [string]>(
  'ERR_INVALID_PAYLOAD', '%s', 400)

/** Model text (UI-TARS, Qwen) that does not parse; the message quotes the part that failed. */
export const UnparseableModelOutput = createError<'ERR_UNPARSEABLE_OUTPUT', 400, [string]>(
  'ERR_UNPARSEABLE_OUTPUT', '%s', 400)

/** A call the model flagged for human confirmation, sent without acknowledging it. */
export const SafetyCheckPending = createError<'ERR_SAFETY_CHECK_PENDING', 409, [string]>(
  'ERR_SAFETY_CHECK_PENDING', '%s', 409)

/** A body over the configured size limit. */
export const BodyTooLarge = createError<'ERR_BODY_TOO_LARGE', 413, [string]>(
  'ERR_BODY_TOO_LARGE', '%s', 413)

/** A point outside the coordinate space the request declared. */
export const PointOutOfBounds = createError<'ERR_POINT_OUT_OF_BOUNDS', 400, [string]>(
  'ERR_POINT_OUT_OF_BOUNDS', '%s', 400)

/** A key name that no alias folds into the canonical vocabulary. */
export const UnknownKey = createError<'ERR_UNKNOWN_KEY', 400, [string]>(
  'ERR_UNKNOWN_KEY', '%s', 400)

/** A well-formed request the selected driver or desktop cannot carry out (e.g. a button it lacks). */
export const UnsupportedAction = createError<'ERR_UNSUPPORTED_ACTION', 400, [string]>(
  'ERR_UNSUPPORTED_ACTION', '%s', 400)

/** No open window matches a selector; the message lists the open windows. */
export const WindowNotFound = createError<'ERR_WINDOW_NOT_FOUND', 404, [string]>(
  'ERR_WINDOW_NOT_FOUND', '%s', 404)

/** An element id that the last accessibility snapshot did not issue, or whose element is gone; take a new snapshot. */
export const StaleElement = createError<'ERR_STALE_ELEMENT', 409, [string]>(
  'ERR_STALE_ELEMENT', '%s', 409)

/** launch_app named an application that is not in the server's allow-list; the message lists the allowed ones. */
export const AppNotAllowed = createError<'ERR_APP_NOT_ALLOWED', 403, [string]>(
  'ERR_APP_NOT_ALLOWED', '%s', 403)

/** A launched application opened no window within the launch timeout (it keeps running). */
export const AppLaunchTimeout = createError<'ERR_APP_LAUNCH_TIMEOUT', 504, [string]>(
  'ERR_APP_LAUNCH_TIMEOUT', '%s', 504)

/**
 * get_clipboard: the application that owns the selection did not answer within the wait (it is
 * hung or stopped). Not "empty": the selection has an owner, whose content could not be had.
 */
export const ClipboardTimeout = createError<'ERR_CLIPBOARD_TIMEOUT', 504, [string]>(
  'ERR_CLIPBOARD_TIMEOUT', '%s', 504)

/** A launched application could not be started, or exited before opening a window. */
export const AppLaunchFailed = createError<'ERR_APP_LAUNCH_FAILED', 500, [string]>(
  'ERR_APP_LAUNCH_FAILED', '%s', 500)

/** A path that leads out of the home directory (`..`, an absolute path, a symbolic link pointing out), or the home itself where a file is meant. */
export const PathForbidden = createError<'ERR_PATH_FORBIDDEN', 403, [string]>(
  'ERR_PATH_FORBIDDEN', '%s', 403)

/** Nothing at that path under the home directory. */
export const FileNotFound = createError<'ERR_FILE_NOT_FOUND', 404, [string]>(
  'ERR_FILE_NOT_FOUND', '%s', 404)

/** A directory where a file is expected, a file where a directory is, a directory that is not empty, something that is neither a file nor a directory (a FIFO, a socket), a loop of symbolic links, or a path that changed while it was being opened. */
export const PathConflict = createError<'ERR_PATH_CONFLICT', 409, [string]>(
  'ERR_PATH_CONFLICT', '%s', 409)

/** An upload over --max-file-size, uploads over --max-files-total together, or a clipboard over --max-clipboard-bytes. */
export const TooLarge = createError<'ERR_TOO_LARGE', 413, [string]>(
  'ERR_TOO_LARGE', '%s', 413)

/** An upload the disk holding the desktop's home directory has no room for (ENOSPC, or the user's quota): the file it would replace is kept. */
export const DiskFull = createError<'ERR_DISK_FULL', 507, [string]>(
  'ERR_DISK_FULL', '%s', 507)

/** A method the route does not answer (GET or DELETE on the stateless /mcp); Allow names the one it does. */
export const MethodNotAllowed = createError<'ERR_METHOD_NOT_ALLOWED', 405, [string]>(
  'ERR_METHOD_NOT_ALLOWED', '%s', 405)

/** An X-Recording-Id that is not a recording name (letters, digits, '.', '_', '-'; at most 64). */
export const InvalidRecordingId = createError<'ERR_INVALID_RECORDING_ID', 400, [string]>(
  'ERR_INVALID_RECORDING_ID', '%s', 400)

/** No recording of that name in the store (never made, deleted, or dropped by the size/age limits). */
export const RecordingNotFound = createError<'ERR_RECORDING_NOT_FOUND', 404, [string]>(
  'ERR_RECORDING_NOT_FOUND', '%s', 404)

/** A request for a recording that has ended (stopped, idle, or its limit hit): a new episode needs a new name. */
export const RecordingEnded = createError<'ERR_RECORDING_ENDED', 409, [string]>(
  'ERR_RECORDING_ENDED', '%s', 409)

/** A new recording refused because the store's disk has too little free space (--record-min-free-mb). */
export const RecordingStoreFull = createError<'ERR_RECORDING_STORE_FULL', 507, [string]>(
  'ERR_RECORDING_STORE_FULL', '%s', 507)

/**
 * A new recording refused: as many episodes record as --record-max-active allows, or the
 * client started --record-max-per-minute in the last minute. Answered with Retry-After; nothing
 * of the request has run.
 */
export const RecordingLimit = createError<'ERR_RECORDING_LIMIT', 429, [string]>(
  'ERR_RECORDING_LIMIT', '%s', 429)

/** A Range header outside the file (a recording's video or image). */
export const RangeNotSatisfiable = createError<'ERR_RANGE_NOT_SATISFIABLE', 416, [string]>(
  'ERR_RANGE_NOT_SATISFIABLE', '%s', 416)

/** Missing or wrong API token. */
export const Unauthorized = createError<'ERR_UNAUTHORIZED', 401, [string]>(
  'ERR_UNAUTHORIZED', '%s', 401)

/** A request carrying an Origin that is not allowed: a web page must not drive the desktop (--allow-origin). */
export const ForbiddenOrigin = createError<'ERR_FORBIDDEN_ORIGIN', 403, [string]>(
  'ERR_FORBIDDEN_ORIGIN', '%s', 403)

/** A Host header that is not a name of this server (DNS rebinding); --allow-host adds names. */
export const ForbiddenHost = createError<'ERR_FORBIDDEN_HOST', 403, [string]>(
  'ERR_FORBIDDEN_HOST', '%s', 403)

/** Headers or body that did not arrive within the configured time (a slow or stalled client). */
export const RequestTimeout = createError<'ERR_REQUEST_TIMEOUT', 408, [string]>(
  'ERR_REQUEST_TIMEOUT', '%s', 408)

/** The client went away before its action finished; whatever it held was released. */
export const ActionAborted = createError<'ERR_ACTION_ABORTED', 499, [string]>(
  'ERR_ACTION_ABORTED', '%s', 499)

/** The desktop is starting, restarting or gone. Answered with Retry-After. */
export const DesktopUnavailable = createError<'ERR_DESKTOP_UNAVAILABLE', 503, [string]>(
  'ERR_DESKTOP_UNAVAILABLE', '%s', 503)

/** The driver failed while carrying out a valid action. The message names the cause. */
export const DriverFailure = createError<'ERR_DRIVER_FAILURE', 500, [string, { cause?: unknown }?]>(
  'ERR_DRIVER_FAILURE', '%s', 500)

/** A launch_app target the server will not hand to an application: outside the desktop's home, or a scheme the browser may not open. */
export const TargetNotAllowed = createError<'ERR_TARGET_NOT_ALLOWED', 403, [string]>(
  'ERR_TARGET_NOT_ALLOWED', '%s', 403)

/** The shell or the text editor asked for on a server that did not turn it on (--shell, --files): the message names the flag. */
export const ToolOff = createError<'ERR_TOOL_OFF', 403, [string]>(
  'ERR_TOOL_OFF', '%s', 403)

/** A shell command the server will not run as asked: the desktop's user would be root, or its home is missing. */
export const ShellForbidden = createError<'ERR_SHELL_FORBIDDEN', 403, [string]>(
  'ERR_SHELL_FORBIDDEN', '%s', 403)

/** A new bash session past --shell-max-sessions: restart (end) one first. */
export const ShellSessionLimit = createError<'ERR_SHELL_SESSION_LIMIT', 429, [string]>(
  'ERR_SHELL_SESSION_LIMIT', '%s', 429)

/** A configuration that cannot work (bad flag, unsafe listen address, dead DISPLAY). */
export const InvalidConfig = createError<'ERR_INVALID_CONFIG', 500, [string]>(
  'ERR_INVALID_CONFIG', '%s', 500)

/** An error that names the action of a batch at fault: its index, in the message and on the error. */
export interface AtAction { failedIndex: number }

/**
 * The refusal `error` of the batch's action `index`, as the same kind of error (same code and
 * status) whose message starts `actions[index]: `. Anything without a status passes through.
 */
export function atAction (error: unknown, index: number): unknown {
  const { statusCode, code } = error as { statusCode?: unknown, code?: unknown }
  if (!(error instanceof Error) || typeof statusCode !== 'number' || typeof code !== 'string') return error
  const indexed = Object.assign(new Error(`actions[${index}]: ${error.message}`, { cause: error }), {
    name: error.name, statusCode, code, failedIndex: index,
  })
  return indexed
}

/** The index an error names, if it names one. */
export function failedIndexOf (error: unknown): number | undefined {
  const index = (error as Partial<AtAction> | undefined)?.failedIndex
  return typeof index === 'number' ? index : undefined
}

/** A fleet create or desktop id that does not fit the lifecycle API (fleet/schemas.ts). */
export const InvalidDesktopRequest = createError<'ERR_INVALID_DESKTOP_REQUEST', 400, [string]>(
  'ERR_INVALID_DESKTOP_REQUEST', '%s', 400)

/** A Scrapybara v1 request on the fleet that does not fit: 422, as Scrapybara answers one (fleet/scrapybara/invalid.ts adds its `detail`). */
export const InvalidInstanceRequest = createError<'ERR_INVALID_INSTANCE_REQUEST', 422, [string]>(
  'ERR_INVALID_INSTANCE_REQUEST', '%s', 422)

/** No desktop of that id in the fleet. */
export const DesktopNotFound = createError<'ERR_DESKTOP_NOT_FOUND', 404, [string]>(
  'ERR_DESKTOP_NOT_FOUND', '%s', 404)

/** The desktop ended (its TTL, its container exited); it is never served again. */
export const DesktopEnded = createError<'ERR_DESKTOP_ENDED', 410, [string]>(
  'ERR_DESKTOP_ENDED', '%s', 410)

/** The fleet holds --max desktops; sent with Retry-After. */
export const FleetFull = createError<'ERR_FLEET_FULL', 429, [string]>(
  'ERR_FLEET_FULL', '%s', 429)

/** A paused desktop (POST /desktops/{id}/pause): nothing reaches it until it is resumed; the message names the resume route. */
export const DesktopPaused = createError<'ERR_DESKTOP_PAUSED', 409, [string]>(
  'ERR_DESKTOP_PAUSED', '%s', 409)

/** A route or a value of a compatible API (the fleet's Scrapybara v1 routes) that this product cannot serve; the message names what is missing. */
export const NotImplemented = createError<'ERR_NOT_IMPLEMENTED', 501, [string]>(
  'ERR_NOT_IMPLEMENTED', '%s', 501)

/** /browser/cdp on a server whose browser has no DevTools endpoint here (--browser firefox): the message names --browser chromium. */
export const BrowserNoDevtools = createError<'ERR_BROWSER_NO_DEVTOOLS', 409, [string]>(
  'ERR_BROWSER_NO_DEVTOOLS', '%s', 409)

/** /browser/cdp while another client holds the browser's one DevTools connection. */
export const BrowserBusy = createError<'ERR_BROWSER_BUSY', 409, [string]>(
  'ERR_BROWSER_BUSY', '%s', 409)

/** The browser could not be started, or its DevTools pipe closed (it exited, or another Chromium holds its profile). */
export const BrowserUnavailable = createError<'ERR_BROWSER_UNAVAILABLE', 503, [string]>(
  'ERR_BROWSER_UNAVAILABLE', '%s', 503)

/** An OSWorld guest command that is not pyautogui code, on a server without --shell: the message names the flag. */
export const ShellOff = createError<'ERR_SHELL_OFF', 403, [string]>(
  'ERR_SHELL_OFF', '%s', 403)

/** OSWorld's /start_recording while its recording runs, or /end_recording with none running. */
export const RecordingState = createError<'ERR_RECORDING_STATE', 409, [string]>(
  'ERR_RECORDING_STATE', '%s', 409)

/** OSWorld's /setup/execute_with_verification: the command ran, but what it was to bring about did not hold within max_wait_time. */
export const VerificationFailed = createError<'ERR_VERIFICATION_FAILED', 504, [string]>(
  'ERR_VERIFICATION_FAILED', '%s', 504)

/** OSWorld's /setup/download_file: the URL could not be fetched (refused, unresolvable, a non-2xx answer, a redirect elsewhere than http(s)). */
export const DownloadFailed = createError<'ERR_DOWNLOAD_FAILED', 502, [string]>(
  'ERR_DOWNLOAD_FAILED', '%s', 502)

/** OSWorld's /setup/download_file: the URL did not answer, or its body did not arrive, within the download's time limit. */
export const DownloadTimeout = createError<'ERR_DOWNLOAD_TIMEOUT', 504, [string]>(
  'ERR_DOWNLOAD_TIMEOUT', '%s', 504)

/**
 * An agent's action while a person holds the desktop's control lease (POST /control/takeover,
 * the live view's "Take over"): nothing of the request ran. The message names who holds it
 * since when; Retry-After says when to ask again.
 */
export const DesktopTakenOver = createError<'ERR_DESKTOP_TAKEN_OVER', 423, [string]>(
  'ERR_DESKTOP_TAKEN_OVER', '%s', 423)

/** A takeover while someone else holds the control lease, or a release when nobody (or not this viewer) holds it. */
export const ControlConflict = createError<'ERR_CONTROL_CONFLICT', 409, [string]>(
  'ERR_CONTROL_CONFLICT', '%s', 409)
