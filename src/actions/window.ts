/**
 * Extension: window control. Listing, focusing, launching from the configured allow-list
 * and moving/resizing top-level windows. Geometry is in the request's coordinate space,
 * scaled like every other coordinate.
 */
import { Type, type Static } from '@sinclair/typebox'
import { ScreenshotFlag } from './common.ts'

export const WINDOW_ID_PATTERN = '^0x[0-9a-fA-F]{1,8}$'
export const SELECTOR_MESSAGE = 'window must be an object with at least one of id ("0x…" hex), title, class'

/** Which window an action means. Several fields must all match. */
export const WindowSelector = Type.Object({
  id: Type.Optional(Type.String({
    pattern: WINDOW_ID_PATTERN,
    description: 'The X window id in hex, as list_windows reports it (e.g. "0x400007").',
    errorMessage: 'window.id must be an X window id in hex, e.g. "0x400007"',
  })),
  title: Type.Optional(Type.String({
    minLength: 1,
    description: 'A case-insensitive substring of the title (_NET_WM_NAME, else WM_NAME).',
    errorMessage: 'window.title must be a non-empty string',
  })),
  class: Type.Optional(Type.String({
    minLength: 1,
    description: 'Case-insensitively equal to the WM_CLASS instance or class name (e.g. "xterm" or "XTerm").',
    errorMessage: 'window.class must be a non-empty string',
  })),
}, {
  $id: 'WindowSelector',
  title: 'WindowSelector',
  additionalProperties: false,
  minProperties: 1,
  description: 'Selects a top-level window. When several windows match, the one highest in the stacking order (the most recently active) is meant.',
  errorMessage: { minProperties: SELECTOR_MESSAGE, additionalProperties: SELECTOR_MESSAGE, type: SELECTOR_MESSAGE },
})
export type WindowSelector = Static<typeof WindowSelector>

/** A top-level window as the window manager knows it. */
export const WindowInfo = Type.Object({
  id: Type.String({ description: 'The X window id in hex ("0x…"); stable while the window exists.' }),
  title: Type.String({ description: '_NET_WM_NAME, else WM_NAME; empty when the window has none.' }),
  class: Type.String({ description: 'The WM_CLASS class name (e.g. "XTerm"), else its instance name; empty when unset.' }),
  pid: Type.Union([Type.Integer(), Type.Null()], { description: '_NET_WM_PID, or null when the application does not set it.' }),
  x: Type.Integer({ description: 'Left edge of the window\'s content (without the frame), in the request\'s coordinate space.' }),
  y: Type.Integer({ description: 'Top edge of the content, in the request\'s coordinate space.' }),
  width: Type.Integer({ description: 'Content width, in the request\'s coordinate space.' }),
  height: Type.Integer({ description: 'Content height, in the request\'s coordinate space.' }),
  focused: Type.Boolean({ description: 'True for the active window (_NET_ACTIVE_WINDOW).' }),
}, { $id: 'WindowInfo', title: 'WindowInfo' })
export type WindowInfo = Static<typeof WindowInfo>

const Selector = () => Type.Ref(WindowSelector, { description: 'Which window.' })

export const listWindowsSchema = () => Type.Object({
  action: Type.Literal('list_windows'),
  screenshot: Type.Optional(ScreenshotFlag),
}, {
  additionalProperties: false,
  title: 'ListWindowsAction',
  description: 'Extension: lists the top-level windows in `windows`, highest in the stacking order first.',
})

export const focusWindowSchema = () => Type.Object({
  action: Type.Literal('focus_window'),
  window: Selector(),
  screenshot: Type.Optional(ScreenshotFlag),
}, {
  additionalProperties: false,
  title: 'FocusWindowAction',
  description: 'Extension: raises a window and gives it the input focus; answers it in `window`.',
})

export const launchAppSchema = () => Type.Object({
  action: Type.Literal('launch_app'),
  app: Type.String({
    minLength: 1,
    description: 'The name of an application in the server\'s allow-list (--allow-app); never a command line.',
    errorMessage: 'app must be the name of an allowed application',
  }),
  target: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 4096,
    description: 'What the application opens, passed as one argument after its own options: for `browser` an http, https or file URL; ' +
      'for `terminal` the directory it starts in; for the others a file or directory path. Paths (and file URLs) must lie under the ' +
      "desktop's home (--home); a relative path is relative to it. A target beginning with '-' is refused.",
    errorMessage: 'target must be a non-empty string (a URL or a path), at most 4096 characters',
  })),
  maximized: Type.Optional(Type.Boolean({
    description: 'Maximise the new window. Default: true on the full desktop (--desktop full), false otherwise.',
    errorMessage: 'maximized must be true or false',
  })),
  screenshot: Type.Optional(ScreenshotFlag),
}, {
  additionalProperties: false,
  title: 'LaunchAppAction',
  description: 'Extension: starts an allowed application (on the full desktop also browser, terminal, editor, files, pdf, calculator, writer, spreadsheet), ' +
    'optionally on a target, waits for its first window and focuses it (maximised on the full desktop); answers it in `window`.',
})

const Position = (axis: 'x' | 'y') => Type.Optional(Type.Integer({
  description: `New ${axis === 'x' ? 'left' : 'top'} edge of the window's content, in the request's coordinate space.`,
  errorMessage: `${axis} must be an integer`,
}))

const Extent = (field: 'width' | 'height') => Type.Optional(Type.Integer({
  minimum: 1,
  description: `New content ${field}, in the request's coordinate space. Applications with size steps (terminals) round it to their step.`,
  errorMessage: `${field} must be a positive integer`,
}))

export const setWindowGeometrySchema = () => Type.Object({
  action: Type.Literal('set_window_geometry'),
  window: Selector(),
  x: Position('x'),
  y: Position('y'),
  width: Extent('width'),
  height: Extent('height'),
  screenshot: Type.Optional(ScreenshotFlag),
}, {
  additionalProperties: false,
  title: 'SetWindowGeometryAction',
  description: 'Extension: moves and/or resizes a window (at least one of x, y, width, height); answers it in `window`.',
})
