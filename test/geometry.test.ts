import t from 'tap'
import { toRegion, toXY } from '../src/screen/geometry.ts'
import { Unreachable, unreachable } from '../src/errors/unreachable.ts'

t.test('an array a schema held to a point or a region becomes its tuple, and nothing else does', async (t) => {
  t.strictSame(toXY([3, 4]), [3, 4])
  t.strictSame(toRegion([0, 0, 10, 20]), [0, 0, 10, 20])
  t.throws(() => toXY([1]), { name: 'TypeError', message: 'not a point [x, y]: [1]' })
  t.throws(() => toXY([1, 2, 3]), TypeError)
  t.throws(() => toRegion([0, 0, 10]), { name: 'TypeError', message: 'not a region [x0, y0, x1, y1]: [0,0,10]' })
})

t.test('the default branch of an exhaustive switch throws one error type, naming the value', async (t) => {
  const kind = 'circle' as 'square'
  const area = () => {
    switch (kind) {
      case 'square': throw new Error('the cast above lied, so this branch is not taken')
      default: return unreachable(kind, 'shape')
    }
  }
  t.throws(area, new Unreachable('unhandled shape "circle"'))
})
