/**
 * The model families the adapter speaks, named by the `version` query: what each one calls,
 * and the space its coordinates live in. Qwen2.5-VL and Fara-7B (built on it) answer in pixels
 * of the screenshot as their processor resized it (smart_resize of the display the client
 * shows them); Qwen3-VL on a relative 0–999 grid; Qwen3.5 and Kimi K2.5 on a relative grid
 * their tools call 1000x1000 ("The screen's resolution is 1000x1000", trycua/cua moonshot.py).
 */
import type { TObject } from '@sinclair/typebox'
import type { CoordinateSpace } from '../../src/pipeline/adapter.ts'
import type { Size } from '../../src/screen/geometry.ts'
import { smartResize, type SmartResizeOptions } from '../shared/smart-resize.ts'
import { QwenArguments25, QwenArguments3, QwenArgumentsFara, QwenArgumentsKimi } from './arguments.ts'

export const FAMILIES = ['2.5', '3', '3.5', 'kimi', 'fara'] as const
export type Family = (typeof FAMILIES)[number]

/** Qwen2.5-VL's processor constants (shared/research/model-formats.md §1e); Fara-7B's are Qwen2.5-VL's. */
export const QWEN25_RESIZE: SmartResizeOptions = { factor: 28, minPixels: 3136, maxPixels: 12845056 }

const grid = (name: string): CoordinateSpace => ({ size: { width: 1000, height: 1000 }, name })

export const QWEN3_GRID = grid("Qwen3-VL's 0–999 relative grid")

interface FamilyRules {
  model: string
  args: TObject
  /** The relative grid's edge, read as its last unit (1000 → 999); absent: smart-resized pixels. */
  grid?: CoordinateSpace
}

export const FAMILY: Record<Family, FamilyRules> = {
  '2.5': { model: 'Qwen2.5-VL', args: QwenArguments25 },
  3: { model: 'Qwen3-VL', args: QwenArguments3, grid: QWEN3_GRID },
  3.5: { model: 'Qwen3.5', args: QwenArguments3, grid: grid("Qwen3.5's 0–1000 relative grid") },
  kimi: { model: 'Kimi K2.5', args: QwenArgumentsKimi, grid: grid("Kimi K2.5's 0–1000 relative grid") },
  fara: { model: 'Fara-7B', args: QwenArgumentsFara },
}

export function spaceOf (family: string, display: Size): CoordinateSpace {
  const rules = FAMILY[family as Family]
  if (rules.grid) return rules.grid
  const size = smartResize(display, QWEN25_RESIZE)
  return { size, name: `${rules.model}'s ${size.width}x${size.height} smart-resized screenshot` }
}
