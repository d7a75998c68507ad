/**
 * A persistent python3, kept as a bash session is (session.ts): its variables, imports and
 * definitions last from one call to the next, as a notebook kernel's do. The driver below is
 * the process' program: it takes its commands from a private copy of stdin (stdin itself is
 * /dev/null for the code and what it starts, so `input()` meets end of file instead of the
 * framing), runs each in one namespace, shows the last expression's value as a notebook does,
 * prints a traceback of the code's own frames on an exception, then writes the end marker with
 * the status (0, or 1 after an exception) on stdout and stderr. `exit()` ends the kernel.
 */
import type { SessionDialect } from './session.ts'

const DRIVER = String.raw`
import ast, base64, os, sys, traceback
channel = os.fdopen(os.dup(0), 'rb', buffering=0)
devnull = os.open(os.devnull, os.O_RDONLY)
os.dup2(devnull, 0)
os.close(devnull)
sys.stdin = open(os.devnull)
namespace = {'__name__': '__main__', '__builtins__': __builtins__}
def run(code):
    tree = ast.parse(code, '<cell>', 'exec')
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, '<cell>', 'exec'), namespace)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), '<cell>', 'eval'), namespace)
        if value is not None:
            print(repr(value))
for line in iter(channel.readline, b''):
    nonce, _, data = line.strip().partition(b' ')
    status = 0
    try:
        run(base64.b64decode(data).decode('utf-8', 'replace'))
    except SystemExit:
        raise
    except BaseException as error:
        frames = error.__traceback__
        while frames is not None and frames.tb_frame.f_code.co_filename != '<cell>':
            frames = frames.tb_next
        traceback.print_exception(type(error), error, frames)
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    end = b'\n__cg_end_' + nonce + b' ' + str(status).encode() + b'\n'
    os.write(1, end)
    os.write(2, end)
`

export const PYTHON_KERNEL: SessionDialect = {
  argv: ['/usr/bin/python3', '-u', '-c', DRIVER],
  frame: (command, nonce) => `${nonce} ${Buffer.from(command).toString('base64')}\n`,
  noun: 'python3 kernel',
}
