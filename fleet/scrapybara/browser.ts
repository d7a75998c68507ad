/**
 * Scrapybara's browser routes on the fleet (`instance.browser.start()`, `get_cdp_url()`,
 * `get_current_url()`, `stop()`), served by a desktop that runs Chromium: an instance started
 * as `instance_type: browser` (start_browser) does, and every one when the fleet runs
 * `--browser chromium`. The CDP URL is the desktop's DevTools through the fleet
 * (fleet/routes/browser.ts), which takes the fleet's key as a header (x-api-key, as the SDK
 * sends it, or Authorization) — a CDP client passes it with its connect options; nothing secret
 * is put in the URL. Auth states (save_auth, modify_auth, authenticate) stay 501 (unserved.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { BrowserNoDevtools } from '../../src/errors/errors.ts'
import { ErrorBody } from '../../src/schemas/error-body.ts'
import { cdpCall } from '../cdp-call.ts'
import type { Fleet } from '../fleet.ts'
import { fleetCdpUrl, relay } from '../routes/browser.ts'
import { InstanceParams } from './schemas.ts'

const config = { acceptsApiKeyHeader: true }
const tags = ['scrapybara']
const errors = { 401: ErrorBody, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody, 422: ErrorBody, 503: ErrorBody }
const CdpUrl = Type.Object({ cdp_url: Type.String({ description: 'the DevTools WebSocket through the fleet; send the fleet key as a header (x-api-key) when connecting' }) })
const CurrentUrl = Type.Object({ current_url: Type.String() })
const Stopped = Type.Object({ status: Type.String() })

const resumeRoute = (id: string) => `POST /v1/instance/${id}/resume`

/** The instance's desktop, when it runs Chromium (its DevTools); else the 409 saying how to get one. */
function chromium (fleet: Fleet, id: string) {
  if (fleet.get(id).browser !== 'chromium') {
    throw new BrowserNoDevtools(`instance ${id} runs Firefox, whose DevTools this fleet does not serve: start one with instance_type 'browser' (start_browser), or run the fleet with --browser chromium`)
  }
  return fleet.target(id, resumeRoute(id))
}

export const scrapybaraBrowserRoutes: FastifyPluginAsyncTypebox<{ fleet: Fleet }> = async (app, { fleet }) => {
  app.post('/v1/instance/:instance_id/browser/start', {
    config,
    schema: { summary: "Start the instance's Chromium (if it does not run) and answer its CDP URL through the fleet", tags, params: InstanceParams, response: { 200: CdpUrl, ...errors } },
  }, async (request, reply) => {
    const id = request.params.instance_id
    const { url, token } = chromium(fleet, id)
    // The desktop's discovery starts the browser when it does not run.
    const response = await fetch(`${url}/browser/cdp/json/version`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(60_000) })
    if (!response.ok) return relay(response, reply)
    await response.body?.cancel()
    return { cdp_url: fleetCdpUrl(request, id) }
  })

  app.get('/v1/instance/:instance_id/browser/cdp_url', {
    config,
    schema: { summary: "The instance's CDP URL through the fleet (the browser starts when a client connects)", tags, params: InstanceParams, response: { 200: CdpUrl, ...errors } },
  }, async (request) => {
    chromium(fleet, request.params.instance_id)
    return { cdp_url: fleetCdpUrl(request, request.params.instance_id) }
  })

  app.get('/v1/instance/:instance_id/browser/current_url', {
    config,
    schema: { summary: 'The URL of the page the browser shows (its most recently used tab); 409 while a CDP client holds the browser', tags, params: InstanceParams, response: { 200: CurrentUrl, ...errors } },
  }, async (request) => {
    const { url, token } = chromium(fleet, request.params.instance_id)
    const { targetInfos = [] } = await cdpCall(url, token, 'Target.getTargets') as { targetInfos?: Array<{ type: string, url: string }> }
    // Chromium lists the most recently used page first; a browser with no page shows none.
    const page = targetInfos.find((target) => target.type === 'page')
    return { current_url: page?.url ?? '' }
  })

  app.post('/v1/instance/:instance_id/browser/stop', {
    config,
    schema: { summary: "Close the instance's Chromium (Browser.close); the next client or launch_app starts it again", tags, params: InstanceParams, response: { 200: Stopped, ...errors } },
  }, async (request) => {
    const { url, token } = chromium(fleet, request.params.instance_id)
    await cdpCall(url, token, 'Browser.close', {}, { closeAnswers: true })
    return { status: 'stopped' }
  })
}
