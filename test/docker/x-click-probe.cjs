// Run inside a container (`node -` in /app, DISPLAY and XAUTHORITY set): a real X client with
// a 200x200 override-redirect window at (400, 300) that prints "ready" once it is mapped, then
// the first button press it receives as JSON {button, x, y} (root coordinates), and exits.
const x11 = require('x11')

x11.createClient((error, display) => {
  if (error) { console.error(String(error)); process.exit(1) }
  const X = display.client
  const screen = display.screen[0]
  const id = X.AllocID()
  X.CreateWindow(id, screen.root, 400, 300, 200, 200, 0, 0, 0, 0, {
    overrideRedirect: true,
    backgroundPixel: screen.white_pixel,
    eventMask: x11.eventMask.ButtonPress,
  })
  X.MapWindow(id)
  X.RaiseWindow(id)
  // A round trip: the window is mapped once the server has answered.
  X.GetGeometry(id, () => console.log('ready'))
  X.on('event', (event) => {
    if (event.name !== 'ButtonPress') return
    console.log(JSON.stringify({ button: event.keycode, x: event.rootx, y: event.rooty }))
    process.exit(0)
  })
  X.on('error', (e) => { console.error(String(e)); process.exit(1) })
})
setTimeout(() => { console.error('no button press within 30 s'); process.exit(2) }, 30_000)
