/**
 * launch_app's target and maximising above the driver (the fake one): what the target becomes
 * on the command line or as the working directory, which targets are refused before anything
 * starts, and whether the new window is maximised. The real desktop's run of the same is
 * test/e2e-desktop-full.test.ts.
 */
import t from 'tap'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build, post } from './helpers/build.ts'
import { DESKTOP_APPS } from '../src/runtime/desktop-apps.ts'

const home = mkdtempSync(join(tmpdir(), 'launch-home-'))
mkdirSync(join(home, 'docs'))
symlinkSync('/etc', join(home, 'escape'))
t.teardown(() => rmSync(home, { recursive: true, force: true }))

const apps = Object.fromEntries(Object.entries(DESKTOP_APPS).map(([name, app]) => [name, app.argv]))
const targets = Object.fromEntries(Object.entries(DESKTOP_APPS).map(([name, app]) => [name, app.target]))

t.test('a target is one argument after the program\'s options, or the terminal\'s directory; programs start in the home; windows maximised unless asked otherwise', async (t) => {
  const cases: Array<[object, object[]]> = [
    [{ app: 'browser', target: 'https://example.com/a b' }, [{ call: 'launch', argv: ['firefox-esr', '--new-window', 'https://example.com/a%20b'], cwd: home }]],
    [{ app: 'browser', target: `file://${home}/docs/page.html` }, [{ call: 'launch', argv: ['firefox-esr', '--new-window', `file://${home}/docs/page.html`], cwd: home }]],
    [{ app: 'browser', target: `file://localhost${home}/docs/page.html` }, [{ call: 'launch', argv: ['firefox-esr', '--new-window', `file://${home}/docs/page.html`], cwd: home }]],
    [{ app: 'editor', target: 'docs/new file.txt' }, [{ call: 'launch', argv: ['mousepad', join(home, 'docs/new file.txt')], cwd: home }]],
    [{ app: 'spreadsheet', target: `${home}/docs/sheet.csv` }, [{ call: 'launch', argv: ['libreoffice', '--nologo', '--calc', join(home, 'docs/sheet.csv')], cwd: home }]],
    [{ app: 'terminal', target: 'docs' }, [{ call: 'launch', argv: ['xfce4-terminal'], cwd: join(home, 'docs') }]],
    [{ app: 'calculator' }, [{ call: 'launch', argv: ['galculator'], cwd: home }]],
  ]
  for (const [fields, launched] of cases) {
    const { app, driver } = await build(t, { apps, launchRules: { targets, home, maximized: true } })
    const response = await post(app, '/computer', { action: 'launch_app', ...fields })
    t.equal(response.status, 200, JSON.stringify(response.body))
    t.strictSame(driver.calls, [...launched, { call: 'maximizeWindow', id: 0x800001 }, { call: 'activateWindow', id: 0x800001 }], JSON.stringify(fields))
    t.match(response.body.window, { x: 0, y: 0, width: 1280, height: 800 })
  }
  const { app, driver } = await build(t, { apps, launchRules: { targets, home, maximized: true } })
  await post(app, '/computer', { action: 'launch_app', app: 'editor', maximized: false })
  t.strictSame(driver.calls, [{ call: 'launch', argv: ['mousepad'], cwd: home }, { call: 'activateWindow', id: 0x800001 }], 'maximized: false leaves the window as it opens')
  const minimal = await build(t, { apps: { term: ['xterm'] } })
  await post(minimal.app, '/computer', { action: 'launch_app', app: 'term' })
  t.strictSame(minimal.driver.calls, [{ call: 'launch', argv: ['xterm'] }, { call: 'activateWindow', id: 0x800001 }], 'without the full desktop\'s rules: not maximised, and where the server runs')
})

t.test('targets refused before anything starts', async (t) => {
  const refused = (status: number, code: string, message: string) => ({ statusCode: status, code, error: status === 400 ? 'Bad Request' : 'Forbidden', message })
  const cases: Array<[object, object]> = [
    [{ app: 'browser', target: '-P' }, refused(400, 'ERR_INVALID_ACTION', 'target "-P" of app \'browser\' begins with \'-\', which the program would read as an option; give a path or URL')],
    [{ app: 'browser', target: 'javascript:alert(1)' }, refused(403, 'ERR_TARGET_NOT_ALLOWED', "target of app 'browser' must be an http, https or file URL; javascript URLs are not opened")],
    [{ app: 'browser', target: 'example.com' }, refused(400, 'ERR_INVALID_ACTION', 'target of app \'browser\' must be an http, https or file URL (got "example.com")')],
    [{ app: 'browser', target: 'file:///etc/passwd' }, refused(403, 'ERR_TARGET_NOT_ALLOWED', `target "/etc/passwd" of app 'browser' is outside the desktop's home ${home}; only paths under it are opened`)],
    [{ app: 'editor', target: '../x' }, refused(403, 'ERR_TARGET_NOT_ALLOWED', `target "../x" of app 'editor' is outside the desktop's home ${home}; only paths under it are opened`)],
    [{ app: 'editor', target: 'escape/passwd' }, refused(403, 'ERR_TARGET_NOT_ALLOWED', `target "escape/passwd" of app 'editor' is outside the desktop's home ${home}; only paths under it are opened`)],
    [{ app: 'terminal', target: '/' }, refused(403, 'ERR_TARGET_NOT_ALLOWED', `target "/" of app 'terminal' is outside the desktop's home ${home}; only paths under it are opened`)],
    [{ app: 'browser', target: `file://host${home}/docs/page.html` }, refused(400, 'ERR_INVALID_ACTION', `target of app 'browser' is a file URL on host 'host'; only files on this machine are opened: file:///path (got "file://host${home}/docs/page.html")`)],
    [{ app: 'browser', target: `file://${home}/docs%2f..%2f..%2f..%2fetc/passwd` }, refused(400, 'ERR_INVALID_ACTION', `target of app 'browser' encodes '/' as %2F, which hides the path's real parts; write the path's slashes as they are (got "file://${home}/docs%2f..%2f..%2f..%2fetc/passwd")`)],
    [{ app: 'browser', target: `file://${home}/docs%2Fpage.html` }, refused(400, 'ERR_INVALID_ACTION', `target of app 'browser' encodes '/' as %2F, which hides the path's real parts; write the path's slashes as they are (got "file://${home}/docs%2Fpage.html")`)],
    [{ app: 'browser', target: `file://${home}/docs/a%00.html` }, refused(400, 'ERR_INVALID_ACTION', `target of app 'browser' encodes a NUL character (%00), which no path may contain (got "file://${home}/docs/a%00.html")`)],
    [{ app: 'browser', target: `file://${home}/%2e%2e/x` }, refused(403, 'ERR_TARGET_NOT_ALLOWED', `target "${join(home, '..', 'x')}" of app 'browser' is outside the desktop's home ${home}; only paths under it are opened`)],
    [{ app: 'editor', target: 'docs/a\u0000b' }, refused(400, 'ERR_INVALID_ACTION', "target of app 'editor' holds a NUL character, which no path or URL may contain")],
    [{ app: 'editor', target: '' }, refused(400, 'ERR_INVALID_ACTION', 'target must be a non-empty string (a URL or a path), at most 4096 characters')],
  ]
  const { app, driver } = await build(t, { apps, launchRules: { targets, home, maximized: true } })
  for (const [fields, body] of cases) {
    const response = await post(app, '/computer', { action: 'launch_app', ...fields })
    t.strictSame(response.body, body, JSON.stringify(fields))
  }
  const homeless = await build(t, { apps: { viewer: ['xpdf'] } })
  const response = await post(homeless.app, '/computer', { action: 'launch_app', app: 'viewer', target: 'a.pdf' })
  t.strictSame(response.body, refused(403, 'ERR_TARGET_NOT_ALLOWED', "app 'viewer' takes no target: the desktop has no home directory (set --home or HOME)"))
  t.strictSame([...driver.calls, ...homeless.driver.calls], [], 'nothing was launched')
})
