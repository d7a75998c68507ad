/**
 * The page a browser gets without a session (the live view's, the replay's): a form that asks
 * for the API token once and trades it, in a POST header, for the session cookie at `session`
 * (a relative URL, so it works behind a proxy's path prefix). The token is never kept or put
 * in a URL; `style` is the page's own sheet, which styles the form.
 */
export interface SignIn {
  /** What is being opened, e.g. "Live view". */
  name: string
  /** The button's words. */
  button: string
  session: string
  style: string
}

export function signInPage ({ name, button, session, style }: SignIn): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${name} — sign in</title>
<meta name="referrer" content="no-referrer"><style>${style}</style></head>
<body>
<form id="signin">
  <strong>${name}</strong>
  <p>This server needs its API token. It is sent once, in a header, and exchanged for a session cookie; it is not kept.</p>
  <label>API token <input id="token" type="password" autocomplete="off" required autofocus></label>
  <button type="submit">${button}</button>
  <p id="error" class="error"></p>
</form>
<script>
document.getElementById('signin').addEventListener('submit', async (event) => {
  event.preventDefault()
  const input = document.getElementById('token')
  const response = await fetch('${session}', { method: 'POST', headers: { authorization: 'Bearer ' + input.value } })
  input.value = ''
  if (response.ok) { location.reload(); return }
  const body = await response.json().catch(() => ({}))
  document.getElementById('error').textContent = body.message ?? 'HTTP ' + response.status
})
</script>
</body></html>`
}
