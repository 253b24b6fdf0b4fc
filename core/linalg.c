/* core/linalg.c: the small linear systems of core/gs.h. */
#include "core/gs.h"

#include <math.h>

int gs_solve(double *A, int stride, int n, double *x, double tiny)
{
#define E(r, k) A[(size_t)(r) * (size_t)stride + (size_t)(k)]
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(E(r, c)) > fabs(E(piv, c))) piv = r;
        if (fabs(E(piv, c)) < tiny) return -1;
        if (piv != c)
            for (int k = 0; k <= n; k++) { double t = E(c, k); E(c, k) = E(piv, k); E(piv, k) = t; }
        for (int r = 0; r < n; r++) {
            if (r == c) continue;
            double f = E(r, c) / E(c, c);
            for (int k = c; k <= n; k++) E(r, k) -= f * E(c, k);
        }
    }
    for (int i = 0; i < n; i++) x[i] = E(i, n) / E(i, i);
    return 0;
#undef E
}

int gs_cholesky(double *A, int n)
{
    for (int j = 0; j < n; j++) {
        double d = A[j * n + j];
        for (int k = 0; k < j; k++) d -= A[j * n + k] * A[j * n + k];
        if (d <= 0) return -1;
        d = sqrt(d);
        A[j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            double s = A[i * n + j];
            for (int k = 0; k < j; k++) s -= A[i * n + k] * A[j * n + k];
            A[i * n + j] = s / d;
        }
    }
    return 0;
}

void gs_cholesky_solve(const double *L, int n, double *b)
{
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < i; k++) b[i] -= L[i * n + k] * b[k];
        b[i] /= L[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int k = i + 1; k < n; k++) b[i] -= L[k * n + i] * b[k];
        b[i] /= L[i * n + i];
    }
}
