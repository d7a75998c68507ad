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
import type { Test } from 'tap'

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

/** The one manifest of a kind in a rendering (anything else is an error). */
export function one (manifests: Manifest[], kind: string): Manifest & Record<string, any> {
  const found = manifests.filter((m) => m.kind === kind)
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`)
  return found[0] as Manifest & Record<string, any>
}

/** The kubernetes-models class of each API a rendering may hold, by `apiVersion/kind`. */
export type Models = Record<string, new (data: never) => { validate: () => void }>

/** Every manifest is a known API, valid against its schema, and labelled part of computer-gateway. */
export function validateAll (t: Test, manifests: Manifest[], models: Models): void {
  for (const manifest of manifests) {
    const Model = models[`${manifest.apiVersion}/${manifest.kind}`]
    t.ok(Model, `${manifest.apiVersion} ${manifest.kind} is a known API`)
    t.doesNotThrow(() => new Model!(manifest as never).validate(), `${manifest.kind}/${manifest.metadata.name} validates`)
    t.equal(manifest.metadata.labels?.['app.kubernetes.io/part-of'], 'computer-gateway')
  }
}
