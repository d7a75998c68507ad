/** A node-x11 request as a promise: `send` makes the request with the callback node-x11 answers. */
export function reply<T> (send: (callback: (error: Error | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => send((error, value) => error ? reject(error) : resolve(value)))
}
