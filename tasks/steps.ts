/**
 * Steps several tasks take the same way on the desktop, through the agent alone: what a person
 * would do in the editor and the terminal the panel opens.
 */
import { Agent } from './agent/agent.ts'

/** Writes `text` into the open editor (Mousepad) and saves it as `path` through its Save As dialog. */
export async function saveFromEditor (agent: Agent, text: string, path: string) {
  await agent.clickOn({ window: /Mousepad$/, role: 'textbox', where: (node) => node.states?.includes('editable') === true })
  await agent.type(text)
  await agent.key('ctrl', 's')
  await agent.clickOn({ window: /^Save As$/, role: 'textbox', name: 'Name:' })
  await agent.key('ctrl', 'a')
  await agent.type(path)
  await agent.keyUntilGone(/^Save As$/, ['enter'])
}

/** Opens a terminal from the panel's launcher and runs `command` in it. */
export async function runInPanelTerminal (agent: Agent, command: string) {
  await agent.clickOn({ window: /^$/, role: 'button', name: 'Xfce Terminal' })
  const shell = await agent.find({ window: /^Terminal/, role: 'textbox', name: 'Terminal', where: (node) => node.states?.includes('focused') === true })
  await agent.click(Agent.centre(shell))
  await agent.type(command)
  await agent.key('enter')
}
