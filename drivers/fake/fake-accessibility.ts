/** The fake desktop's accessibility: none, refused with a message that says why. */
import { noAccessibility, type AccessibilitySource } from '../../src/accessibility/source.ts'

export const FAKE_ACCESSIBILITY_REASON = 'this desktop has no X display, so it has no accessibility tree (the fake driver)'

export const fakeAccessibility = (): AccessibilitySource => noAccessibility(FAKE_ACCESSIBILITY_REASON)
