/**
 * The code of a reply: its last fenced block (```python, ```py, ```code — OpenCUA fences
 * computer.* calls as code — or a bare ```, also inline as in ```DONE```), as the OSWorld
 * OpenCUA agent reads it; a reply without a fence is all code.
 */
const FENCE = /```(?:[ \t]*(?:python3?|py|code)(?=\s))?[ \t]*\r?\n?([\s\S]*?)```/gi

export function codeOf (reply: string): string {
  const blocks = [...reply.matchAll(FENCE)]
  return blocks.length > 0 ? blocks.at(-1)![1]! : reply
}
