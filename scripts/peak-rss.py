#!/usr/bin/env python3
"""Runs a command and reports ITS OWN peak resident set size (VmHWM), not its
children's: /usr/bin/time's figure includes the largest waited-for child,
which for `mcpctl ... -- server` is the server. Linux only.

usage: scripts/peak-rss.py [--out FILE] -- COMMAND [ARGS...]
"""
import subprocess
import sys
import time


def main():
    args = sys.argv[1:]
    out = subprocess.DEVNULL
    if args[:1] == ["--out"]:
        out = open(args[1], "wb")
        args = args[2:]
    if args[:1] == ["--"]:
        args = args[1:]
    proc = subprocess.Popen(args, stdout=out)
    peak = 0
    while proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except (FileNotFoundError, ProcessLookupError):
            pass
        time.sleep(0.005)
    print(f"peak_rss_kib={peak} exit={proc.returncode}", file=sys.stderr)
    sys.exit(proc.returncode)


main()
