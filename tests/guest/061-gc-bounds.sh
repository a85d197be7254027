#!/bin/sh
# Log GC keeps a hot file's log bounded (copy-on-write and in place): a
# short run of tests/guest/_gc-bounds.sh; make gc-test runs the full one.
GC_WRITES=100000
GC_OPS=20000
. "$NOVA_TESTS/_gc-bounds.sh"
