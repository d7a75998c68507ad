/**
 * openapi.yaml is valid OpenAPI 3.1 by Redocly's recommended rules (redocly.yaml): no error and
 * no warning. Offline: usage data and the update check are off.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'

const root = fileURLToPath(new URL('..', import.meta.url))
const cli = fileURLToPath(new URL('../node_modules/@redocly/cli/bin/cli.js', import.meta.url))

interface LintReport {
  totals: { errors: number, warnings: number, ignored: number }
  problems: Array<{ ruleId: string, severity: string, message: string, location: Array<{ pointer: string }> }>
}

async function lint (file: string): Promise<LintReport> {
  const { stdout } = await promisify(execFile)(process.execPath, [cli, 'lint', file, '--format=json', '--max-problems=1000'], {
    cwd: root,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', CI: 'true' },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }))
  return JSON.parse(stdout)
}

t.test('redocly lint finds nothing in openapi.yaml', async (t) => {
  const report = await lint('openapi.yaml')
  const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)
  t.strictSame(problems, [], 'no problem')
  t.equal(report.totals.errors, 0, 'errors')
  t.equal(report.totals.warnings, 0, 'warnings')
})
