#!/bin/sh
# templates.sh - placeholder, written in this change
exit 77
