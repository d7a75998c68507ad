/** The OpenAPI document's head; the paths and schemas come from the routes' TypeBox schemas. */
export const openapiInfo = {
  openapi: '3.0.3',
  info: {
    title: 'computer-gateway',
    version: '0.1.0',
    description: 'One HTTP endpoint onto a real desktop for every computer-use model: the unified action space on POST /computer, executed on an X11 (Xvfb) desktop.',
  },
  servers: [{ url: 'http://127.0.0.1:8000' }],
  tags: [
    { name: 'computer', description: 'Unified actions' },
    { name: 'compatibility', description: 'The seed system\'s paths, for its SDKs' },
    { name: 'server', description: 'Health' },
  ],
  components: {
    securitySchemes: {
      bearer: { type: 'http' as const, scheme: 'bearer', description: 'API_TOKEN, when the server has one' },
      apiKey: { type: 'apiKey' as const, in: 'header' as const, name: 'x-api-key', description: 'The same token, on the seed-compatible route' },
    },
  },
  security: [{ bearer: [] }],
}

/** ajv-errors' `errorMessage` is for our validator, not part of OpenAPI: keep it out of the document. */
export function withoutErrorMessages<T> (document: T): T {
  return JSON.parse(JSON.stringify(document, (key, value) => (key === 'errorMessage' ? undefined : value)))
}
