/**
 * Ajv's code generation options for every Ajv instance of the server: the optimiser is off.
 * It keeps, for each piece of generated code, an object keyed by the variables it names
 * (`valid55`, `_errs238`, …), built from `{}` one key at a time: thousands of distinct first
 * keys, one V8 map transition each from the plain object's map, until that map's transitions
 * are full (1 536). From then on, until a full garbage collection clears the dead ones (rare in
 * a server that allocates little, with --single-threaded-gc), every object built from `{}` key
 * by key gets a new hidden class each time: node-x11's reply to a move's QueryPointer took
 * ~20 µs to unpack instead of ~1. The optimiser only drops assignments nothing reads and
 * inlines constants; what validates and what it answers are the same.
 */
export const AJV_CODE = { optimize: false } as const
