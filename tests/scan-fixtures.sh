#!/bin/sh
# scan-fixtures.sh - (being written)
exit 1
