#!/usr/bin/python3
"""evict.py FILE... -- drops FILEs' pages from the page cache (POSIX_FADV_DONTNEED), so
that the next read of them comes from the disk: the cold runs of bench/otlp.sh.  Pages a
running process has mapped stay."""
import os
import sys

for path in sys.argv[1:]:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        continue
    try:
        os.fdatasync(fd)
    except OSError:
        pass
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
