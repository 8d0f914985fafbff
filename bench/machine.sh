# machine.sh - sourced by the benchmarks: GPU=yes|no, and machine_header,
# which prints the "# machine" block every benchmark starts its output with
# (cores, CPU, RAM, OS, gcc, nvcc), and cpu_ticks (/proc/stat's total, idle
# and steal ticks).  Needs NPROC and CUDA set.
# SPDX-License-Identifier: MIT
if [ -e /proc/driver/nvidia/version ]; then GPU=yes; else GPU=no; fi
machine_header() {
    echo "# machine"
    echo "  cores (nproc)  $NPROC"
    echo "  CPU            $(sed -n 's/^model name[ 	]*: //p' /proc/cpuinfo | head -n 1)"
    echo "  RAM            $(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "  OS             $(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-?}"), Linux $(uname -r)"
    echo "  gcc            $(gcc --version | head -n 1)"
    echo "  nvcc           $("$CUDA/bin/nvcc" --version | sed -n 's/^Cuda compilation tools, //p')"
}
cpu_ticks() { awk '/^cpu / { t = 0; for (f = 2; f <= NF; f++) t += $f; print t, $5 + $6, $9 }' /proc/stat; }
