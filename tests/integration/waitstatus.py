#!/usr/bin/env python3
"""Runs a command and prints how it ended, as wait(2) says: "exit N" or
"signal N" plus " core" when the kernel dumped core. Used to compare runs
with and without tdprobe (bash's $? cannot tell a core dump apart).
Usage: waitstatus.py [--core] CMD...   (--core raises RLIMIT_CORE first)"""
import os
import resource
import sys

args = sys.argv[1:]
if args and args[0] == "--core":
    args = args[1:]
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
pid = os.fork()
if pid == 0:
    try:
        os.execvp(args[0], args)
    finally:
        os._exit(127)
_, st = os.waitpid(pid, 0)
if os.WIFSIGNALED(st):
    print(f"signal {os.WTERMSIG(st)}{' core' if os.WCOREDUMP(st) else ''}")
else:
    print(f"exit {os.WEXITSTATUS(st)}")
