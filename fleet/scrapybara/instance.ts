/**
 * A fleet desktop as a Scrapybara instance. Every desktop is a full Ubuntu desktop; the instance
 * type a client started it as is kept in one of its claim's labels, so GET answers it back, and
 * a desktop created through POST /desktops is an `ubuntu` instance.
 */
import type { DesktopView } from '../schemas.ts'
import type { InstanceResponse } from './schemas.ts'

/** The claim label that holds the instance type asked of POST /v1/start. */
export const INSTANCE_TYPE_LABEL = 'scrapybara.instance-type'

const STATUS = { starting: 'deploying', running: 'running', paused: 'paused', terminated: 'terminated' } as const

export function toInstance (view: DesktopView): InstanceResponse {
  const [width, height] = view.screen.split('x').map(Number)
  return {
    id: view.id,
    launch_time: view.created_at,
    instance_type: view.labels[INSTANCE_TYPE_LABEL] === 'browser' ? 'browser' : 'ubuntu',
    status: STATUS[view.status],
    resolution: [width!, height!],
  }
}
