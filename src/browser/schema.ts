/** GET /browser and GET /browser/cdp/json/version: the desktop's browser, its DevTools sessions, and what CDP clients discover. */
import { Type } from '@sinclair/typebox'
import { BROWSER_KINDS } from '../runtime/desktop-apps.ts'

export const CdpSession = Type.Object({
  id: Type.Integer({ description: 'The session\'s number since the server started.' }),
  client: Type.String({ description: 'The client\'s address.' }),
  opened_at: Type.String({ format: 'date-time' }),
  closed_at: Type.Optional(Type.String({ format: 'date-time' })),
  close_reason: Type.Optional(Type.String({ description: 'Why it ended: the client left, the browser exited, the server stopped.' })),
  messages_in: Type.Integer({ description: 'CDP calls the client sent.' }),
  messages_out: Type.Integer({ description: 'Answers and events sent to the client.' }),
  bytes_in: Type.Integer(),
  bytes_out: Type.Integer(),
}, { $id: 'CdpSession', title: 'CdpSession' })

export const BrowserStatus = Type.Object({
  browser: Type.Union(BROWSER_KINDS.map((kind) => Type.Literal(kind)), { description: 'The desktop\'s browser (--browser).' }),
  devtools: Type.Boolean({ description: 'Whether /browser/cdp serves its DevTools (chromium on an X desktop).' }),
  current: Type.Union([Type.Ref(CdpSession), Type.Null()], { description: 'The DevTools session open now (one at a time).' }),
  recent: Type.Array(Type.Ref(CdpSession), { description: 'The last sessions ended, newest first (at most 20).' }),
}, { $id: 'BrowserStatus', title: 'BrowserStatus' })

export const CdpVersion = Type.Object({
  'Browser': Type.String({ examples: ['Chrome/156.0.8078.108'] }),
  'Protocol-Version': Type.String(),
  'User-Agent': Type.String(),
  'V8-Version': Type.String(),
  'WebKit-Version': Type.String(),
  webSocketDebuggerUrl: Type.String({ description: 'The WebSocket to connect to: this server\'s /browser/cdp (send the token with it).' }),
}, { $id: 'CdpVersion', title: 'CdpVersion' })

export const BROWSER_SCHEMAS = [CdpSession, BrowserStatus, CdpVersion]
