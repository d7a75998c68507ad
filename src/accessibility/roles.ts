/**
 * AT-SPI roles to CUP roles. Keys are the role names AT-SPI reports (GetRoleName: 'push button',
 * 'document web', …); values are always one of CUP's 59 roles. Based on CUP's mappings.json
 * (Linux column) and the W3C Core-AAM; where CUP has no such role (article, figure, math, …) the
 * nearest structural one is used. Web content refines the role by its ARIA role (xml-roles).
 */
import { CUP_ROLES, type CupRole } from './schema.ts'

export const ATSPI_ROLES: Readonly<Record<string, CupRole>> = {
  // Interactive
  'push button': 'button',
  'push button menu': 'button',
  'toggle button': 'button',
  'check box': 'checkbox',
  'radio button': 'radio',
  'combo box': 'combobox',
  autocomplete: 'combobox',
  text: 'textbox',
  entry: 'textbox',
  'password text': 'textbox',
  terminal: 'textbox',
  'spin button': 'spinbutton',
  slider: 'slider',
  dial: 'slider',
  'scroll bar': 'scrollbar',
  'progress bar': 'progressbar',
  'level bar': 'progressbar',
  link: 'link',
  menu: 'menu',
  'menu bar': 'menubar',
  'menu item': 'menuitem',
  'tearoff menu item': 'menuitem',
  'check menu item': 'menuitemcheckbox',
  'radio menu item': 'menuitemradio',
  separator: 'separator',
  // Windows and containers
  frame: 'window',
  window: 'window',
  'input method window': 'window',
  dialog: 'dialog',
  'file chooser': 'dialog',
  'color chooser': 'dialog',
  'font chooser': 'dialog',
  alert: 'alert',
  notification: 'alert',
  application: 'application',
  panel: 'group',
  grouping: 'group',
  'split pane': 'group',
  viewport: 'group',
  'scroll pane': 'group',
  'layered pane': 'group',
  'glass pane': 'group',
  'internal frame': 'group',
  'desktop frame': 'group',
  'root pane': 'group',
  'option pane': 'group',
  'directory pane': 'group',
  'date editor': 'group',
  figure: 'group',
  filler: 'generic',
  section: 'generic',
  paragraph: 'generic',
  'block quote': 'generic',
  embedded: 'generic',
  'html container': 'generic',
  'redundant object': 'generic',
  'content deletion': 'generic',
  'content insertion': 'generic',
  mark: 'generic',
  suggestion: 'generic',
  footnote: 'generic',
  subscript: 'generic',
  superscript: 'generic',
  math: 'generic',
  'math fraction': 'generic',
  'math root': 'generic',
  ruler: 'generic',
  comment: 'generic',
  unknown: 'generic',
  invalid: 'generic',
  extended: 'generic',
  // Tables, lists, trees, tabs
  table: 'table',
  'tree table': 'grid',
  calendar: 'grid',
  'table cell': 'cell',
  'table row': 'row',
  'table column header': 'columnheader',
  'column header': 'columnheader',
  'table row header': 'rowheader',
  'row header': 'rowheader',
  list: 'list',
  'list box': 'list',
  'description list': 'list',
  'list item': 'listitem',
  'description term': 'listitem',
  tree: 'tree',
  'tree item': 'treeitem',
  'page tab list': 'tablist',
  'page tab': 'tab',
  // Text and images
  label: 'text',
  static: 'text',
  caption: 'text',
  'accelerator label': 'text',
  'description value': 'text',
  heading: 'heading',
  image: 'img',
  icon: 'img',
  'image map': 'img',
  animation: 'img',
  canvas: 'img',
  chart: 'img',
  arrow: 'img',
  // Documents and landmarks
  'document frame': 'document',
  'document web': 'document',
  'document text': 'document',
  'document email': 'document',
  'document spreadsheet': 'document',
  'document presentation': 'document',
  article: 'region',
  page: 'region',
  landmark: 'region',
  header: 'banner',
  footer: 'contentinfo',
  form: 'form',
  log: 'log',
  marquee: 'marquee',
  timer: 'timer',
  // Bars
  'tool bar': 'toolbar',
  editbar: 'toolbar',
  'tool tip': 'tooltip',
  'status bar': 'status',
  'info bar': 'status',
  'title bar': 'titlebar',
}

const CUP_ROLE_SET: ReadonlySet<string> = new Set(CUP_ROLES)

/** ARIA roles that say nothing more than the AT-SPI role (or say "ignore me"). */
const UNREFINING = new Set(['generic', 'none', 'presentation'])

export interface RoleContext {
  /** AT-SPI's role name. */
  atspiRole: string
  /** Object attribute 'xml-roles' (web content's ARIA role(s), space-separated). */
  xmlRoles?: string | undefined
  /** AT-SPI role name of the parent, for context-dependent roles. */
  parentRole?: string | undefined
  hasChildren: boolean
}

export function cupRole ({ atspiRole, xmlRoles, parentRole, hasChildren }: RoleContext): CupRole {
  const aria = xmlRoles?.trim().split(/\s+/)[0]?.toLowerCase()
  if (aria && CUP_ROLE_SET.has(aria) && !UNREFINING.has(aria)) return aria as CupRole
  const role = ATSPI_ROLES[atspiRole] ?? 'generic'
  // An item of a list box or combo box is what ARIA calls an option.
  if (role === 'listitem' && (parentRole === 'list box' || parentRole === 'combo box')) return 'option'
  // A label that wraps controls (<label><input> …</label>) is structure, not text: as 'text'
  // it would be pruned as an empty text node, controls and all.
  if (role === 'text' && hasChildren) return 'generic'
  return role
}

/** 'push button' → 'ROLE_PUSH_BUTTON', the name CUP's platform.linux.atspiRole carries. */
export const atspiRoleConstant = (atspiRole: string) => `ROLE_${atspiRole.trim().toUpperCase().replace(/[\s-]+/g, '_')}`
