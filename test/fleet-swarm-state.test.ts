/**
 * How the swarm backend reads a desktop's one task (fleet/backends/swarm/swarm-backend.ts): which
 * tasks are a live desktop, which are a dead one the fleet must replace, and where it is reached.
 * The task and node shapes are the Engine API's (GET /tasks, GET /nodes).
 */
import t from 'tap'
import Docker from 'dockerode'
import { CannotPause } from '../fleet/backends/backend.ts'
import { SwarmBackend, taskState } from '../fleet/backends/swarm/swarm-backend.ts'

const ready = { ID: 'n1', Status: { State: 'ready', Addr: '10.213.0.12' } }
const down = { ID: 'n1', Status: { State: 'down', Addr: '10.213.0.12' } }
const ports = { Ports: [{ TargetPort: 8000, PublishedPort: 30001 }] }
const task = (state: string, desired = 'running', portStatus: object | undefined = ports) =>
  ({ ServiceID: 's', NodeID: 'n1', CreatedAt: '2026-01-01T00:00:00Z', DesiredState: desired, Status: { State: state, ...(portStatus && { PortStatus: portStatus }) } })

t.test('a task and its node as the contract state, and the address it is reached at', async (t) => {
  const cases: Array<[string, Parameters<typeof taskState>, ReturnType<typeof taskState>]> = [
    ['not scheduled yet: starting', [undefined, undefined], { state: 'running' }],
    ['running on a ready node with its port: reached on the node', [task('running'), ready], { state: 'running', url: 'http://10.213.0.12:30001' }],
    ['starting on its node: no address yet', [task('starting', 'running', undefined), ready], { state: 'running' }],
    ['on the leader, which reports 0.0.0.0: reached on its manager address', [task('running'), { ...ready, Status: { State: 'ready', Addr: '0.0.0.0' }, ManagerStatus: { Addr: '10.213.0.13:2377' } }], { state: 'running', url: 'http://10.213.0.13:30001' }],
    ['a node of 0.0.0.0 and no manager address: no address yet', [task('running'), { ...ready, Status: { State: 'ready', Addr: '0.0.0.0' } }], { state: 'running' }],
    ['running, its port not yet known', [task('running', 'running', { Ports: [] }), ready], { state: 'running' }],
    ['running on a node the swarm holds down: lost', [task('running'), down], { state: 'exited' }],
    ['the orchestrator gave it up (desired shutdown)', [task('running', 'shutdown'), ready], { state: 'exited' }],
    ['failed', [task('failed', 'shutdown'), ready], { state: 'exited' }],
    ['complete (its server exited 0)', [task('complete', 'shutdown'), ready], { state: 'exited' }],
    ['rejected (the node could not start it)', [task('rejected', 'shutdown'), ready], { state: 'exited' }],
    ['orphaned', [task('orphaned', 'running'), ready], { state: 'exited' }],
  ]
  for (const [name, args, expected] of cases) t.strictSame(taskState(...args), expected, name)
})

t.test('Swarm has no freezer: pause and resume reject with CannotPause, which the fleet answers 501', async (t) => {
  // Nothing reaches the engine: a Docker client pointed nowhere shows it.
  const backend = new SwarmBackend({ fleetId: 'f', image: 'i', cpus: 1, memoryBytes: 1 << 28, pids: 64, docker: new Docker({ host: '127.0.0.1', port: 9 }) })
  await t.rejects(backend.pause('0123456789abcdef'), new CannotPause("Docker Swarm cannot pause a service's task (desktop 0123456789abcdef); run the fleet with --backend docker to pause desktops"))
  await t.rejects(backend.unpause('0123456789abcdef'), new CannotPause("Docker Swarm cannot pause a service's task (desktop 0123456789abcdef), so there is nothing to resume"))
})
