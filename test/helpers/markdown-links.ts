/**
 * Links and headings of Markdown files as GitHub renders them: the relative links (and
 * `#anchors`) a page holds outside code, and the anchor slugs its headings get, so that a
 * test can say whether every link of the docs resolves in the tree, with no network.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

export interface Link { file: string, line: number, target: string }

const FENCE = /^\s*(`{3,}|~{3,})/

/** The lines of a Markdown file outside fenced code blocks, with their 1-based numbers. */
function proseLines (text: string): Array<[number, string]> {
  const out: Array<[number, string]> = []
  let fence: string | undefined
  for (const [index, line] of text.split('\n').entries()) {
    const open = FENCE.exec(line)
    if (open) {
      if (fence === undefined) fence = open[1]!
      else if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = undefined
      continue
    }
    if (fence === undefined) out.push([index + 1, line])
  }
  return out
}

/** Every link target of the file (inline links and images), code spans left out. */
export function links (file: string): Link[] {
  const found: Link[] = []
  for (const [line, text] of proseLines(readFileSync(file, 'utf8'))) {
    const prose = text.replace(/(`+)[^`]*?\1/g, '')
    for (const match of prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ file, line, target: match[1]! })
    }
  }
  return found
}

/** GitHub's anchor for a heading's text (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
export function slug (heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-')
}

/** The anchors a Markdown file's headings get, numbered as GitHub numbers repeated ones (-1, -2, …). */
export function anchors (file: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const [, line] of proseLines(readFileSync(file, 'utf8'))) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const base = slug(heading[1]!)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    out.add(count === 0 ? base : `${base}-${count}`)
  }
  return out
}

/** Why a relative link does not resolve (a missing file or heading), or undefined; absolute URLs are not followed. */
export function brokenLink (link: Link): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return undefined
  const [path, anchor] = link.target.split('#', 2) as [string, string | undefined]
  const target = path === '' ? link.file : resolve(dirname(link.file), decodeURIComponent(path))
  if (!existsSync(target)) return `${link.target}: no such file or directory`
  if (anchor === undefined) return undefined
  if (statSync(target).isDirectory() || !target.endsWith('.md')) return `${link.target}: an anchor into something that is not a Markdown file`
  const known = anchors(target)
  return known.has(decodeURIComponent(anchor)) ? undefined : `${link.target}: no heading with the anchor #${anchor} (it has ${[...known].slice(0, 40).join(', ')})`
}
