/**
 * What `kubectl kustomize DIR` renders, for the subset deploy/kubernetes uses — resources
 * (files and bases), `labels` (metadata only) and JSON 6902 `patches` with a kind/name
 * target — so the manifests are checked offline, without kubectl. Anything else in a
 * kustomization fails loudly rather than being ignored.
 */
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import fastJsonPatch, { type Operation } from 'fast-json-patch'
import { parseAllDocuments, parse } from 'yaml'

export interface Manifest {
  apiVersion: string
  kind: string
  metadata: { name: string, labels?: Record<string, string>, [key: string]: unknown }
  [key: string]: unknown
}

interface Kustomization {
  resources?: string[]
  labels?: Array<{ pairs: Record<string, string>, includeSelectors?: boolean }>
  patches?: Array<{ target: { kind: string, name: string }, patch: string }>
}

const KNOWN = new Set(['apiVersion', 'kind', 'resources', 'labels', 'patches'])

export async function readManifests (file: string): Promise<Manifest[]> {
  const documents = parseAllDocuments(await readFile(file, 'utf8'))
  return documents.map((document) => {
    if (document.errors.length) throw new Error(`${file}: ${document.errors[0]!.message}`)
    return document.toJS() as Manifest
  })
}

export async function kustomize (dir: string): Promise<Manifest[]> {
  const file = join(dir, 'kustomization.yaml')
  const kustomization = parse(await readFile(file, 'utf8')) as Kustomization
  for (const key of Object.keys(kustomization)) if (!KNOWN.has(key)) throw new Error(`${file}: '${key}' is not rendered by this test's kustomize`)
  const manifests: Manifest[] = []
  for (const resource of kustomization.resources ?? []) {
    const path = join(dir, resource)
    manifests.push(...(/\.ya?ml$/.test(resource) ? await readManifests(path) : await kustomize(path)))
  }
  for (const { pairs, includeSelectors } of kustomization.labels ?? []) {
    if (includeSelectors) throw new Error(`${file}: labels with includeSelectors are not rendered by this test's kustomize`)
    for (const manifest of manifests) manifest.metadata.labels = { ...manifest.metadata.labels, ...pairs }
  }
  for (const { target, patch } of kustomization.patches ?? []) {
    const matches = manifests.filter((m) => m.kind === target.kind && m.metadata.name === target.name)
    if (matches.length !== 1) throw new Error(`${file}: patch target ${target.kind}/${target.name} matches ${matches.length} resources`)
    const operations = parse(patch) as Operation[]
    const index = manifests.indexOf(matches[0]!)
    // validateOperation: a path that does not exist is an error, as it is for kustomize.
    manifests[index] = fastJsonPatch.applyPatch(matches[0]!, operations, true, false).newDocument
  }
  return manifests
}

export const deployDir = (path: string) => join(dirname(new URL(import.meta.url).pathname), '..', '..', 'deploy', path)
