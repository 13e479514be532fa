"""Runs a command in a real pseudo-terminal and relays it over pipes, for tests.

Usage: pty_bridge.py COLUMNS ROWS COMMAND [ARGS...]

Bytes written to this process's stdin go to the terminal (keys, as typed); everything the
command writes to the terminal comes out on stdout. The terminal has the given size, so the
command sees isTTY, columns and rows as on a user's screen. Exits with the command's code.
"""
import fcntl
import os
import select
import signal
import struct
import sys
import termios


def main() -> int:
    columns, rows = int(sys.argv[1]), int(sys.argv[2])
    command = sys.argv[3:]
    pid, master = os.forkpty()
    if pid == 0:
        os.execvp(command[0], command)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack('HHHH', rows, columns, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    stdin_open = True
    while True:
        readers = [master] + ([sys.stdin.fileno()] if stdin_open else [])
        ready, _, _ = select.select(readers, [], [], 0.5)
        if master in ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b''
            if not data:
                break
            os.write(sys.stdout.fileno(), data)
        if sys.stdin.fileno() in ready:
            data = os.read(sys.stdin.fileno(), 65536)
            if data:
                os.write(master, data)
            else:
                stdin_open = False
        finished, status = os.waitpid(pid, os.WNOHANG)
        if finished:
            # What the command wrote last is still in the terminal: drain it.
            while True:
                ready, _, _ = select.select([master], [], [], 0.2)
                if not ready:
                    break
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                if not data:
                    break
                os.write(sys.stdout.fileno(), data)
            return os.waitstatus_to_exitcode(status)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


if __name__ == '__main__':
    sys.exit(main())
