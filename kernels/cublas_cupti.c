/* cublas_cupti.c - uses cuBLAS and CUPTI headers and libraries: compiles and
 * links only when the math_libs and CUPTI dirs of a split layout are found.
 * SPDX-License-Identifier: MIT
 */
#include <cublas_v2.h>
#include <cupti.h>
#include <stdio.h>

int main(void)
{
    int blas = 0;
    uint32_t cupti = 0;

    cublasGetProperty(MAJOR_VERSION, &blas);
    cuptiGetVersion(&cupti);
    printf("{\"probe\":\"cublas_cupti\",\"cublas_major\":%d,\"cupti_api\":%u}\n", blas,
           (unsigned)cupti);
    return 0;
}
