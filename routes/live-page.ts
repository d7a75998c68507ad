/**
 * The live view's one page: the desktop (noVNC's RFB client, served from the @novnc/novnc
 * package under live/novnc/) beside the server's state, or — without a session — a form
 * that asks for the token once and trades it for the session cookie. Every URL in it is
 * relative, so it works behind a reverse proxy's path prefix. The token goes in a POST header,
 * never into a URL, and is not kept.
 */
import { signInPage as signIn } from './sign-in-page.ts'
const STYLE = `
  html, body { margin: 0; height: 100%; background: #111; color: #ddd; font: 13px/1.4 system-ui, sans-serif }
  body { display: flex }
  #screen { flex: 1; min-width: 0; height: 100%; overflow: hidden }
  #panel { width: 280px; flex: none; box-sizing: border-box; padding: 12px; border-left: 1px solid #333; overflow: auto }
  #panel h1 { font-size: 15px; margin: 0 0 8px }
  #panel dt { color: #888; margin-top: 6px }
  #panel dd { margin: 0; word-break: break-word }
  form { margin: auto; padding: 24px; background: #1c1c1c; border: 1px solid #333; max-width: 360px }
  input { width: 100%; box-sizing: border-box; margin: 8px 0; padding: 6px }
  .error { color: #f77 }
  #takeover, #handback { margin: 8px 0; padding: 6px 10px }
  #requests { color: #fc6 }
  textarea { width: 100%; box-sizing: border-box; min-height: 48px }`

export function viewerPage (control: boolean): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Live view</title>
<meta name="referrer" content="no-referrer"><style>${STYLE}</style></head>
<body data-control="${control}">
<main id="screen"></main>
<aside id="panel">
  <h1>Live view</h1>
  <dl>
    <dt>connection</dt><dd id="connection">connecting…</dd>
    <dt>mode</dt><dd id="mode">${control ? 'watching: take over to use the mouse and keyboard' : 'view only'}</dd>
    <dt>control</dt><dd id="lease">…</dd>
    <dt>an agent asks for a person</dt><dd id="requests">…</dd>
    <dt>desktop</dt><dd id="ready">…</dd>
    <dt>queue</dt><dd id="queue">…</dd>
    <dt>held keys and buttons</dt><dd id="held">…</dd>
    <dt>last action</dt><dd id="last">…</dd>
  </dl>
  ${control
    ? `<div id="controls"><button id="takeover" type="button">Take over</button>
  <div id="handing" hidden><label for="message">message for the agent</label><textarea id="message" maxlength="2000"></textarea>
  <button id="handback" type="button">Hand back</button></div></div>`
    : ''}
  <button id="signout" type="button">sign out</button>
</aside>
<script type="module">
import RFB from './live/novnc/core/rfb.js'
const control = document.body.dataset.control === 'true'
const screen = document.getElementById('screen')
const show = (id, text) => { document.getElementById(id).textContent = text }
// This tab's own id: the lease it takes is its own, and its socket closing hands it back.
const viewer = crypto.randomUUID()
const socketUrl = () => { const url = new URL('live/websockify', location.href); url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'; url.searchParams.set('viewer', viewer); return url.href }
let rfb
let retry = 0
let holding = false

async function state () {
  const response = await fetch('live/state?viewer=' + viewer, { cache: 'no-store' })
  if (response.status === 401) { location.reload(); return undefined }
  if (!response.ok) throw new Error('state: HTTP ' + response.status)
  return response.json()
}

function render (s) {
  show('ready', s.ready ? 'ready' + (s.screen ? ' (' + s.screen.width + '×' + s.screen.height + ')' : '') : 'not ready')
  show('queue', String(s.queue))
  const held = [...s.held.keys, ...s.held.buttons]
  show('held', held.length ? held.join(', ') : 'nothing')
  const a = s.last_action
  show('last', a ? (a.action ?? a.route) + ' → ' + a.status + ' in ' + a.ms + ' ms' : 'none yet')
  show('lease', s.lease ? (s.yours ? 'you hold the desktop' : s.lease.holder + ' holds the desktop') + ' since ' + s.lease.since : 'the agent has the desktop')
  show('requests', s.requests.length ? s.requests.map((r) => r.message + ' (since ' + r.since + ')').join(' · ') : 'none')
  setHolding(s.yours)
}

/** Input reaches the desktop only while this tab holds the lease (the server checks too). */
function setHolding (yours) {
  holding = yours
  if (rfb) rfb.viewOnly = !(control && yours)
  if (!control) return
  document.getElementById('takeover').hidden = yours
  document.getElementById('handing').hidden = !yours
  show('mode', yours ? 'control: mouse and keyboard reach the desktop' : 'watching: take over to use the mouse and keyboard')
}

async function post (path, body) {
  const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ viewer, ...body }), cache: 'no-store' })
  const answer = await response.json().catch(() => ({}))
  if (!response.ok) throw new Error(answer.message ?? 'HTTP ' + response.status)
  return answer
}

if (control) {
  document.getElementById('takeover').addEventListener('click', async () => {
    try { await post('live/takeover', {}); setHolding(true) } catch (error) { show('lease', String(error.message ?? error)) }
  })
  document.getElementById('handback').addEventListener('click', async () => {
    const message = document.getElementById('message').value
    try { await post('live/release', message ? { message } : {}); document.getElementById('message').value = ''; setHolding(false) } catch (error) { show('lease', String(error.message ?? error)) }
  })
}

function connect () {
  show('connection', 'connecting…')
  rfb = new RFB(screen, socketUrl(), { shared: true })
  rfb.viewOnly = !(control && holding)
  rfb.scaleViewport = true
  rfb.background = '#111'
  rfb.addEventListener('connect', () => { retry = 0; show('connection', 'connected') })
  rfb.addEventListener('disconnect', () => {
    show('connection', 'disconnected; reconnecting…')
    // A restarting desktop comes back on its own; so does this view.
    setTimeout(connect, Math.min(2000, 250 * 2 ** retry++))
  })
}

document.getElementById('signout').addEventListener('click', async () => {
  await fetch('live/session', { method: 'DELETE' })
  location.reload()
})

async function poll () {
  try { const s = await state(); if (s) render(s) } catch (error) { show('ready', String(error.message ?? error)) }
  setTimeout(poll, 1000)
}
connect()
poll()
</script>
</body></html>`
}

export const signInPage = (): string => signIn({ name: 'Live view', button: 'open the live view', session: 'live/session', style: STYLE })
