/* cccl.cpp - a host C++ program using CCCL (libcu++, Thrust, CUB headers),
 * which CUDA 13 keeps under include/cccl: c++ finds them only through the
 * module's CPATH or the .pc's Cflags.
 * SPDX-License-Identifier: MIT */
#include <cub/version.cuh>
#include <cuda/std/cstdint>
#include <thrust/version.h>

#include <cstdio>

int main()
{
    cuda::std::uint32_t v = THRUST_VERSION;
    std::printf("cccl %u %d\n", static_cast<unsigned>(v), CUB_VERSION);
    return 0;
}
