"""Swap two directory entries atomically, over and over: renameat2(RENAME_EXCHANGE).

Usage: swap-dirs.py A B STOPFILE MAX_SWAPS PAUSE_SECONDS

The attacker of the directory-swap race (test/reliability/swap-race.test.ts):
A is a workspace directory, B a symlink to a directory outside, and each
swap puts the other one at A's name. Stops after MAX_SWAPS swaps or once
STOPFILE exists (checked every 256 swaps), and always leaves A and B as
they started. Prints the number of swaps done.
"""
import ctypes
import ctypes.util
import os
import platform
import sys
import time

AT_FDCWD = -100
RENAME_EXCHANGE = 2
SYS_RENAMEAT2 = {"x86_64": 316, "aarch64": 276}

libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def exchange(a: bytes, b: bytes) -> None:
    if hasattr(libc, "renameat2"):
        result = libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
    else:
        number = SYS_RENAMEAT2[platform.machine()]
        result = libc.syscall(number, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


def main() -> None:
    a, b, stop = (os.fsencode(p) for p in sys.argv[1:4])
    max_swaps = int(sys.argv[4])
    pause = float(sys.argv[5])
    swaps = 0
    for _ in range(max_swaps):
        exchange(a, b)
        swaps += 1
        if pause > 0:
            time.sleep(pause)
        if swaps % 256 == 0 and os.path.exists(stop):
            break
    if swaps % 2 == 1:
        exchange(a, b)
        swaps += 1
    print(swaps, flush=True)


main()
