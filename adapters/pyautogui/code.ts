/**
 * The code of a reply: the contents of its fenced blocks (```python, ```py or a bare ```), in
 * order; a reply without a fence is all code. OpenCUA writes its reasoning around one block;
 * the OSWorld baselines send the block alone or the code bare.
 */
const FENCE = /```[ \t]*(?:python3?|py)?[ \t]*\r?\n([\s\S]*?)```/g

export function codeOf (reply: string): string {
  const blocks = [...reply.matchAll(FENCE)].map((match) => match[1]!)
  return blocks.length > 0 ? blocks.join('\n') : reply
}
