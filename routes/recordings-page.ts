/**
 * The replay page of one episode: a timeline of its steps beside the screenshots they took and
 * the video, the selected step's native payload, unified actions and results below. Choosing a
 * step shows its screenshot and moves the video to it; playing the video follows the timeline.
 * Every URL is relative (it works behind a proxy's path prefix), and nothing from the
 * recording is ever put into the page as HTML: text goes in through textContent only.
 */
import { signInPage as signIn } from './sign-in-page.ts'

const STYLE = `
  html, body { margin: 0; height: 100%; background: #111; color: #ddd; font: 13px/1.4 system-ui, sans-serif }
  body { display: flex }
  #timeline { width: 300px; flex: none; overflow: auto; border-right: 1px solid #333; margin: 0; padding: 0; list-style: none }
  #timeline h1 { font-size: 15px; margin: 12px }
  #timeline li { padding: 6px 12px; border-bottom: 1px solid #222; cursor: pointer }
  #timeline li.current { background: #243a5e }
  #timeline .status-error { color: #f77 }
  main { flex: 1; min-width: 0; display: flex; flex-direction: column; overflow: auto }
  #media { display: flex; gap: 8px; padding: 8px }
  #media > figure { flex: 1; min-width: 0; margin: 0 }
  #media video, #media img { width: 100%; background: #000 }
  figcaption { color: #888 }
  #detail { padding: 0 8px 8px; white-space: pre-wrap; word-break: break-word; font: 12px/1.35 ui-monospace, monospace }
  form { margin: auto; padding: 24px; background: #1c1c1c; border: 1px solid #333; max-width: 360px }
  input { width: 100%; box-sizing: border-box; margin: 8px 0; padding: 6px }
  .error { color: #f77 }`

export function replayPage (id: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Replay</title>
<meta name="referrer" content="no-referrer"><style>${STYLE}</style></head>
<body data-id="${id}">
<nav id="timeline"><h1 id="title">Replay</h1><p id="summary" style="margin:0 12px 8px;color:#888"></p><ol id="steps" style="margin:0;padding:0"></ol></nav>
<main>
  <div id="media">
    <figure><video id="video" controls muted preload="metadata"></video><figcaption id="video-caption">video</figcaption></figure>
    <figure><img id="frame" alt="the step's screenshot"><figcaption id="frame-caption">no step chosen</figcaption></figure>
  </div>
  <div id="detail"></div>
</main>
<script>
const id = document.body.dataset.id
const video = document.getElementById('video')
const frame = document.getElementById('frame')
const show = (elementId, text) => { document.getElementById(elementId).textContent = text }
let steps = []
let current = -1

const actionsOf = (step) => step.runs.flatMap((run) => run.actions.map((a) => a.action))
const pretty = (value) => JSON.stringify(value, null, 2)

function select (index, seek) {
  const step = steps[index]
  if (!step) return
  current = index
  document.querySelectorAll('#steps li').forEach((li, i) => li.classList.toggle('current', i === index))
  const image = step.images.at(-1)
  if (image) { frame.src = 'images/' + encodeURIComponent(image); show('frame-caption', 'step ' + index + ': ' + image) }
  else show('frame-caption', 'step ' + index + ' took no screenshot')
  if (seek && step.video_offset_ms !== null && video.src) video.currentTime = step.video_offset_ms / 1000
  const runs = step.runs.map((run) => ({ actions: run.actions, results: run.results, failed_index: run.failed_index, error: run.error, ms: run.ms }))
  show('detail', step.method + ' ' + step.url + ' → ' + step.status + ' in ' + step.ms + ' ms at ' + step.started_at +
    '\\n\\nnative payload:\\n' + (typeof step.payload === 'string' ? step.payload : pretty(step.payload)) +
    '\\n\\nunified actions and results:\\n' + pretty(runs) + (step.error ? '\\n\\nerror:\\n' + pretty(step.error) : ''))
}

async function load () {
  const response = await fetch('../' + encodeURIComponent(id), { cache: 'no-store' })
  if (response.status === 401) { location.reload(); return }
  const recording = await response.json()
  if (!response.ok) { show('summary', recording.message ?? 'HTTP ' + response.status); return }
  steps = recording.steps
  show('title', recording.id)
  show('summary', recording.state + ', ' + steps.length + ' steps, started ' + recording.started_at + (recording.stop_reason ? ', ended: ' + recording.stop_reason : ''))
  const list = document.getElementById('steps')
  list.replaceChildren(...steps.map((step, index) => {
    const li = document.createElement('li')
    const names = actionsOf(step)
    li.textContent = index + '. ' + step.route + (names.length ? ' — ' + names.join(', ') : '') + ' → ' + step.status + ' (' + Math.round(step.ms) + ' ms)'
    if (step.status >= 400) li.classList.add('status-error')
    li.addEventListener('click', () => select(index, true))
    return li
  }))
  if (recording.video) { video.src = 'video'; show('video-caption', 'video from ' + recording.video_started_at) }
  else show('video-caption', 'no video' + (recording.video_error ? ': ' + recording.video_error : ''))
  if (steps.length) select(0, false)
}

// Playing the video moves the timeline along with it.
video.addEventListener('timeupdate', () => {
  const ms = video.currentTime * 1000
  let index = -1
  steps.forEach((step, i) => { if (step.video_offset_ms !== null && step.video_offset_ms <= ms) index = i })
  if (index >= 0 && index !== current && !video.paused) select(index, false)
})
load()
</script>
</body></html>`
}

export const replaySignInPage = (): string => signIn({ name: 'Replay', button: 'open the replay', session: '../session', style: STYLE })
