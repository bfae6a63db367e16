"""Runs ParaDrop's `pdtools` CLI from a source folder and reports every answer it got.

Usage: pdtools-run.py SOURCE_DIR --list | pdtools-run.py SOURCE_DIR [--terminal] ARG...
`--list` prints the names of the `pdtools node` commands, one a line. Otherwise it runs
`pdtools ARG...` and writes `pdtools-answer STATUS METHOD URL` to stderr for each HTTP answer and
each websocket handshake (101 when taken), since pdtools itself prints a refusal and still exits 0.
With `--terminal`, pdtools runs on a pseudo-terminal (its stdin and stdout), as at a user's terminal,
and each line of this runner's stdin is typed there once pdtools prompts for it.
"""
import os
import pty
import sys

# The source sits in the checkout: leave no __pycache__ there.
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])

import requests  # noqa: E402
import websocket  # noqa: E402


def report(status, method, url):
    sys.stderr.write("pdtools-answer {} {} {}\n".format(status, method, url))
    sys.stderr.flush()


send = requests.Session.send


def reporting_send(self, request, **kwargs):
    response = send(self, request, **kwargs)
    report(response.status_code, request.method, request.url)
    return response


run_forever = websocket.WebSocketApp.run_forever


def reporting_run_forever(self, *args, **kwargs):
    on_open = self.on_open

    def reporting_on_open(ws, *rest):
        report(101, "WS", self.url)
        if on_open is not None:
            on_open(ws, *rest)

    self.on_open = reporting_on_open
    result = run_forever(self, *args, **kwargs)
    error = getattr(self, "error", None)
    if error is not None and not isinstance(error, KeyboardInterrupt):
        report(getattr(error, "status_code", "error"), "WS", self.url)
    return result


requests.Session.send = reporting_send
websocket.WebSocketApp.run_forever = reporting_run_forever


def run_on_terminal():
    """Forks pdtools onto a new pseudo-terminal and types each line of stdin at its next prompt.

    Answers in the parent, with pdtools' exit code; returns in the child, which runs pdtools. A line
    is typed only once its prompt is shown: getpass flushes what was typed before it asks.
    """
    answers = sys.stdin.read().splitlines()
    stderr = os.dup(2)
    pid, terminal = pty.fork()
    if pid == 0:
        # The runner's answer lines and pdtools' errors go where they went: only stdin and stdout are the terminal.
        os.dup2(stderr, 2)
        return
    shown = b""
    while True:
        try:
            chunk = os.read(terminal, 4096)
        except OSError:  # EIO: pdtools closed the terminal
            break
        if not chunk:
            break
        sys.stdout.buffer.write(chunk)
        sys.stdout.flush()
        shown += chunk
        if answers and shown.endswith(b": "):
            os.write(terminal, (answers.pop(0) + "\n").encode())
            shown = b""
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))


from pdtools import node  # noqa: E402
from pdtools.__main__ import root  # noqa: E402

args = sys.argv[2:]
if args == ["--list"]:
    print("\n".join(sorted(node.root.commands)))
else:
    if args[:1] == ["--terminal"]:
        args = args[1:]
        run_on_terminal()
    root(args=args, prog_name="pdtools")
