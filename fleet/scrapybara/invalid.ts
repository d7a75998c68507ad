/**
 * A Scrapybara v1 request that does not fit, answered as Scrapybara (a FastAPI service) answers
 * one: 422 with `detail: [{loc, msg, type}]`, which its SDKs parse into UnprocessableEntityError
 * (TypeScript: `scrapybara`'s HttpValidationError; Python: the same model). Our own fields
 * (statusCode, code, error, message) stay beside it, so one body reads both ways.
 */
import { InvalidInstanceRequest as CatalogueError } from '../../src/errors/errors.ts'

export class InvalidInstanceRequest extends CatalogueError {
  readonly detail: Array<{ loc: Array<string | number>, msg: string, type: string }>
  /** `loc`: where the value is, as FastAPI says it: 'body' | 'path' | 'query', then the field. */
  constructor (message: string, loc: Array<string | number>) {
    super(message)
    this.detail = [{ loc, msg: message, type: 'value_error' }]
  }
}
