"""Runs ParaDrop's `pdtools` CLI from a source folder and reports every answer it got.

Usage: pdtools-run.py SOURCE_DIR --list | pdtools-run.py SOURCE_DIR ARG...
`--list` prints the names of the `pdtools node` commands, one a line. Otherwise it runs
`pdtools ARG...` and writes `pdtools-answer STATUS METHOD URL` to stderr for each HTTP answer and
each websocket handshake (101 when taken), since pdtools itself prints a refusal and still exits 0.
"""
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

from pdtools import node  # noqa: E402
from pdtools.__main__ import root  # noqa: E402

if sys.argv[2:] == ["--list"]:
    print("\n".join(sorted(node.root.commands)))
else:
    root(args=sys.argv[2:], prog_name="pdtools")
