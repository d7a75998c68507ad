/**
 * The Scrapybara v1 routes this fleet does not serve, each answering 501 ERR_NOT_IMPLEMENTED with
 * what is missing and what to use instead, rather than a bare 404 a program could take for a
 * wrong base URL.
 */
export const UNSERVED: ReadonlyArray<{ method: 'GET' | 'POST', url: string, missing: string }> = [
  { method: 'POST', url: '/v1/instance/:instance_id/browser/*', missing: 'saved browser auth states (save_auth, modify_auth, authenticate) are not served: the browser\'s own profile in the instance\'s home keeps its sign-ins; browser start, cdp_url, current_url and stop are served' },
  { method: 'POST', url: '/v1/instance/:instance_id/code/*', missing: 'only code/execute is served (Python in a python3 kernel kept per instance and kernel name; the fleet\'s --shell)' },
  { method: 'GET', url: '/v1/instance/:instance_id/notebook/*', missing: 'notebooks are not served: a desktop keeps python3 kernels for /v1/instance/{id}/code/execute, not notebooks (their cells, outputs and files); run code with code/execute' },
  { method: 'POST', url: '/v1/instance/:instance_id/notebook/*', missing: 'notebooks are not served: a desktop keeps python3 kernels for /v1/instance/{id}/code/execute, not notebooks (their cells, outputs and files); run code with code/execute' },
  { method: 'GET', url: '/v1/auth_states', missing: 'saved browser auth states are not served' },
]
