/** The error body every route answers with, whole: the status, its reason phrase, the catalogue's code and the message. */
import { STATUS_CODES } from 'node:http'

export const errorBody = (statusCode: number, code: string, message: string) => ({ statusCode, code, error: STATUS_CODES[statusCode]!, message })

export const badRequest = (code: string, message: string) => errorBody(400, code, message)
