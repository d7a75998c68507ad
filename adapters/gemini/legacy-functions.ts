/**
 * The predefined Computer Use functions of gemini-2.5-computer-use-preview-10-2025,
 * gemini-3-flash-preview and gemini-3.1-pro-preview (google-gemini/computer-use-preview
 * `agent.py` LEGACY_PREDEFINED_COMPUTER_USE_FUNCTIONS, args and defaults as its handlers read them).
 */
import { Type } from '@sinclair/typebox'
import { Direction, functionCall, GridCoordinate, Magnitude, point } from './args.ts'

export const LEGACY_FUNCTIONS = [
  functionCall('open_web_browser', {}, 'Opens the web browser. The desktop is expected to show one already: this only returns the screen.', true),
  functionCall('click_at', point, 'Left click at a grid point.'),
  functionCall('hover_at', point, 'Moves the pointer to a grid point.'),
  functionCall('type_text_at', {
    ...point,
    text: Type.String(),
    press_enter: Type.Optional(Type.Boolean({ default: false, description: 'Press Enter after typing.' })),
    clear_before_typing: Type.Optional(Type.Boolean({ default: true, description: 'Select all (ctrl+a) and Delete before typing.' })),
  }, 'Clicks a grid point, then types.'),
  functionCall('scroll_document', { direction: Direction }, 'Scrolls the page: Page Up/Down, or half a screen sideways with the wheel.'),
  functionCall('scroll_at', { ...point, direction: Direction, magnitude: Type.Optional(Magnitude) }, 'Turns the wheel at a grid point.'),
  functionCall('wait_5_seconds', {}, 'Waits five seconds.', true),
  functionCall('go_back', {}, 'Browser back: alt+Left.', true),
  functionCall('go_forward', {}, 'Browser forward: alt+Right.', true),
  functionCall('search', {}, 'Opens the search page: ctrl+l, its address, Enter.', true),
  functionCall('navigate', { url: Type.String({ minLength: 1 }) }, 'Opens an address: ctrl+l, the address, Enter.'),
  functionCall('key_combination', { keys: Type.String({ minLength: 1, description: 'Keys joined by "+", e.g. "Control+C".' }) }, 'Presses keys together.'),
  functionCall('drag_and_drop', {
    ...point,
    destination_x: GridCoordinate('x', 'the drop point'),
    destination_y: GridCoordinate('y', 'the drop point'),
  }, 'Drags with the left button from a grid point to another.'),
] as const
