/**
 * The Scrapybara v1 routes this fleet does not serve, each answering 501 ERR_NOT_IMPLEMENTED with
 * what is missing and what to use instead, rather than a bare 404 a program could take for a
 * wrong base URL.
 */
export const UNSERVED: ReadonlyArray<{ method: 'GET' | 'POST', url: string, missing: string }> = [
  { method: 'POST', url: '/v1/instance/:instance_id/file', missing: 'the file tool is not served (its commands are not part of the SDK\'s contract): view and edit files with /v1/instance/{id}/edit, upload with /v1/instance/{id}/upload, and read, write, list and delete files with /desktops/{id}/files' },
  { method: 'POST', url: '/v1/instance/:instance_id/browser/*', missing: 'saved browser auth states (save_auth, modify_auth, authenticate) are not served: the browser\'s own profile in the instance\'s home keeps its sign-ins; browser start, cdp_url, current_url and stop are served' },
  { method: 'POST', url: '/v1/instance/:instance_id/code/*', missing: 'code execution is not served (it runs in a notebook kernel, and the SDK leaves its answer unspecified): write the code with /v1/instance/{id}/edit and run it with /v1/instance/{id}/bash (python3 is in the desktop; the fleet\'s --shell)' },
  { method: 'GET', url: '/v1/instance/:instance_id/notebook/*', missing: 'notebooks are not served: they need a kernel on the desktop' },
  { method: 'POST', url: '/v1/instance/:instance_id/notebook/*', missing: 'notebooks are not served: they need a kernel on the desktop' },
  { method: 'GET', url: '/v1/auth_states', missing: 'saved browser auth states are not served' },
]
