/**
 * The predefined Computer Use functions of gemini-3.5-flash and later models
 * (google-gemini/computer-use-preview `agent.py` PREDEFINED_COMPUTER_USE_FUNCTIONS, args as its
 * dispatcher reads them). `drag_and_drop`, `go_back`, `go_forward` and `navigate` are shared
 * with the legacy set and defined there.
 */
import { Type } from '@sinclair/typebox'
import { Direction, functionCall, Magnitude, point } from './args.ts'

const Key = Type.String({ minLength: 1, description: 'A key name, e.g. "Enter", "Control", "a".' })

export const FUNCTIONS = [
  functionCall('click', point, 'Left click at a grid point.'),
  functionCall('double_click', point, 'Double click at a grid point.'),
  functionCall('triple_click', point, 'Triple click at a grid point.'),
  functionCall('middle_click', point, 'Middle click at a grid point.'),
  functionCall('right_click', point, 'Right click at a grid point.'),
  functionCall('mouse_down', point, 'Presses the left button at a grid point.'),
  functionCall('mouse_up', point, 'Releases the left button at a grid point.'),
  functionCall('move', point, 'Moves the pointer to a grid point.'),
  functionCall('type', {
    text: Type.String(),
    press_enter: Type.Optional(Type.Boolean({ default: false, description: 'Press Enter after typing.' })),
  }, 'Types where the focus is.'),
  functionCall('wait', {
    seconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, default: 1, description: 'Seconds to wait (1 when absent).' })),
  }, 'Waits.', true),
  functionCall('press_key', { key: Key }, 'Presses one key (or a "+" combo).'),
  functionCall('key_down', { key: Key }, 'Holds a key down until key_up.'),
  functionCall('key_up', { key: Key }, 'Releases a held key.'),
  functionCall('hotkey', { keys: Type.Array(Key, { minItems: 1, description: 'Keys pressed together, in order.' }) }, 'Presses keys together.'),
  functionCall('take_screenshot', {}, 'Returns the screen.', true),
  functionCall('scroll', { ...point, direction: Direction, magnitude: Type.Optional(Magnitude) }, 'Turns the wheel at a grid point.'),
] as const
