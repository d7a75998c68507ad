import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { request } from 'node:http'
const port = await new Promise((r) => { const s = createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => r(p)) }) })
const env = { ...process.env, LOG_LEVEL: 'debug' }; delete env.DISPLAY
const t0 = Date.now()
const child = spawn(process.execPath, [...process.argv.slice(2), 'dist/src/server.js', '--port', String(port)], { env, stdio: ['ignore', 'pipe', 'inherit'] })
const lines = []
child.stdout.setEncoding('utf8').on('data', (d) => { for (const l of d.split('\n').filter(Boolean)) { try { const j = JSON.parse(l); lines.push(`${j.time - t0} ${j.msg}`) } catch { lines.push(l) } } })
const post = () => new Promise((resolve) => { const req = request({ host: '127.0.0.1', port, path: '/computer', method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)) }); req.on('error', () => resolve(0)); req.end('{"action":"move_mouse","coordinates":[1,1]}') })
while (await post() !== 200) await new Promise((r) => setTimeout(r, 10))
console.log('cold start', Date.now() - t0, 'ms')
child.kill('SIGTERM')
await new Promise((r) => child.once('exit', r))
console.log(lines.filter((l) => !/incoming|completed|output/.test(l)).join('\n'))
