import { openSite, type Site } from './site.ts'
import { same, settle, type Task } from './task.ts'

const FORM = '<!doctype html><meta charset="utf-8"><title>Order form</title><h1>Order form</h1>' +
  '<form method="post" action="/submit">' +
  '<p><label>Full name <input name="fullname"></label></p>' +
  '<p><label>Country <select name="country"><option value="">Choose…</option><option>Norway</option><option>Greece</option><option>Japan</option></select></label></p>' +
  '<p><label><input type="checkbox" name="newsletter" value="yes"> Subscribe to the newsletter</label></p>' +
  '<p><button type="submit">Send order</button></p></form>'

/** Fill a web form (text, drop-down, check box) in the browser and submit it to a local server. */
export const browserForm: Task = {
  name: 'browser-form',
  instruction: 'In the browser, fill the order form: name Zoë Παπαδοπούλου, country Greece, subscribe to the newsletter; send it',
  fast: false,
  setup: async (ctx) => openSite(ctx, { '/form': FORM, '/submit': '<!doctype html><title>Thank you</title>received' }, '/form'),
  run: async (agent) => {
    const page = /^Order form/
    await agent.fill({ window: page, role: 'textbox', name: 'Full name' }, 'Zoë Παπαδοπούλου')
    // The drop-down's list, once open, is drawn over the page: its options are on the screen.
    await agent.pick({ window: page, role: 'combobox', name: 'Country' }, { window: page, name: 'Greece', where: (node) => node.role === 'option' || node.role === 'menuitem' })
    await agent.clickOn({ window: page, role: 'checkbox', name: 'Subscribe to the newsletter' })
    await agent.clickOn({ window: page, role: 'button', name: 'Send order' })
  },
  check: async (_ctx, site: Site) => settle(
    () => site.arrivals.filter((arrival) => arrival.path === '/submit'),
    (submits) => submits.length === 0
      ? 'nothing was submitted'
      : same('the form as submitted', submits.map((submit) => [submit.method, Object.fromEntries(new URLSearchParams(submit.body))]),
        [['POST', { fullname: 'Zoë Παπαδοπούλου', country: 'Greece', newsletter: 'yes' }]])),
}
