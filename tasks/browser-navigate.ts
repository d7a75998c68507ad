import { openSite, type Site } from './site.ts'
import { same, settle, type Task } from './task.ts'

const START = '<!doctype html><meta charset="utf-8"><title>Start page</title><h1>Start</h1>'
const CATALOGUE = '<!doctype html><meta charset="utf-8"><title>Catalogue</title><h1>Tools</h1><ul>' +
  '<li><a href="/item/hammer">Claw hammer</a></li><li><a href="/item/level-60">Spirit level 60 cm</a></li><li><a href="/item/saw">Hand saw</a></li></ul>'

/** Type an address into the browser's address bar, then follow a link on the page by its text. */
export const browserNavigate: Task = {
  name: 'browser-navigate',
  instruction: 'In the browser, go to the catalogue\'s tools section (/catalogue?section=tools) and open the 60 cm spirit level',
  fast: false,
  setup: async (ctx) => openSite(ctx, { '/start': START, '/catalogue': CATALOGUE, '/item/level-60': '<!doctype html><title>Spirit level</title>ok' }, '/start'),
  run: async (agent, _ctx, site: Site) => {
    await agent.clickOn({ window: /^Start page/, role: 'combobox', name: /enter address$/ })
    await agent.key('ctrl', 'a')
    await agent.type(`${site.origin}/catalogue?section=tools`)
    await agent.key('enter')
    await agent.clickOn({ window: /^Catalogue/, role: 'link', name: 'Spirit level 60 cm' })
  },
  check: async (_ctx, site: Site) => settle(
    () => site.arrivals.map((arrival) => `${arrival.method} ${arrival.path}`).filter((line) => !line.endsWith('favicon.ico')),
    (seen) => same('the requests the browser made', seen, ['GET /start', 'GET /catalogue?section=tools', 'GET /item/level-60'])),
}
