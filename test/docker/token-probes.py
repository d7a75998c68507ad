# Run by a --shell command inside the image (test/docker/token-jail.ts), as the desktop's user:
# every way that user has to the server's token, tried. NEEDLE is a part of the token, written
# reversed in this text so that no command line carrying the script holds it.
import errno, json, os, subprocess, time

NEEDLE = '@REVERSED@'[::-1].encode()


def fault(error):
    return {'read': False, 'error': errno.errorcode.get(error.errno, str(error.errno))}


def environ(pid):
    try:
        with open(f'/proc/{pid}/environ', 'rb') as f:
            return {'read': True, 'token': NEEDLE in f.read()}
    except OSError as error:
        return fault(error)


def memory(pid):
    # /proc/PID/stat's env_start and env_end (fields 50, 51): where its environment lies in memory.
    fields = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    start, end = int(fields[47]), int(fields[48])
    try:
        with open(f'/proc/{pid}/mem', 'rb') as f:
            f.seek(start)
            return {'read': True, 'token': NEEDLE in f.read(end - start)}
    except OSError as error:
        return fault(error)


def server():
    for name in os.listdir('/proc'):
        if name.isdigit():
            try:
                args = open(f'/proc/{name}/cmdline', 'rb').read().split(b'\0')
            except OSError:
                continue
            if args[0].endswith(b'node') and b'bin/computer-gateway.js' in args:
                return int(name)


def files(roots, deadline):
    found = []
    for root in roots:
        for directory, _, names in os.walk(root):
            for name in names:
                path = os.path.join(directory, name)
                if time.monotonic() > deadline:
                    return found + ['(deadline reached)']
                try:
                    if os.path.isfile(path) and not os.path.islink(path) and os.path.getsize(path) < 64 << 20:
                        with open(path, 'rb') as f:
                            if NEEDLE in f.read():
                                found.append(path)
                except OSError:
                    pass
    return found


# A process of the desktop's own user with the needle in its environment: what the probes see
# where nothing stands in their way.
control = subprocess.Popen(['sleep', '60'], env={'CG_PROBE': NEEDLE.decode()})
time.sleep(0.2)
try:
    pid = server()
    result = {
        'server found': pid is not None,
        'targets': {name: {'environ': environ(p), 'mem': memory(p)} for name, p in [('init', 1), ('server', pid), ('control', control.pid)]},
        'ps shows it': NEEDLE in subprocess.run(['ps', '-eo', 'args='], capture_output=True).stdout,
        'env shows it': any(NEEDLE in value.encode() for value in os.environ.values()) or 'API_TOKEN' in os.environ or 'API_TOKEN_FILE' in os.environ,
        'files holding it': files(['/tmp', '/home', '/run', '/var', '/etc', '/app'], time.monotonic() + 60),
    }
finally:
    control.kill()
    control.wait()
print(json.dumps(result))
