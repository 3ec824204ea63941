// The GPU proof's CUDA program where torch is absent (run.sh builds it with
// nvcc). holder MIB SECONDS READYFILE: holds MIB MiB of GPU memory, writes a
// line to READYFILE once it does, then keeps the GPU busy for SECONDS seconds.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

__global__ void spin(float *x, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) {
    float v = x[i];
    for (int k = 0; k < 4096; k++) v = v * 0.999f + 0.001f;
    x[i] = v;
  }
}

static int fail(const char *what, cudaError_t e) {
  fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: holder MIB SECONDS READYFILE\n");
    return 2;
  }
  size_t bytes = strtoull(argv[1], nullptr, 10) << 20;
  time_t end = time(nullptr) + static_cast<time_t>(atof(argv[2]));
  void *held;
  cudaError_t e = cudaMalloc(&held, bytes);
  if (e != cudaSuccess) return fail("cudaMalloc", e);
  if ((e = cudaMemset(held, 1, bytes)) != cudaSuccess) return fail("cudaMemset", e);
  const size_t n = 1 << 24;
  float *x;
  if ((e = cudaMalloc(&x, n * sizeof(float))) != cudaSuccess) return fail("cudaMalloc", e);
  cudaMemset(x, 0, n * sizeof(float));
  if ((e = cudaDeviceSynchronize()) != cudaSuccess) return fail("synchronize", e);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  FILE *f = fopen(argv[3], "w");
  if (f == nullptr) return 1;
  fprintf(f, "nvcc program on %s\n", p.name);
  fclose(f);
  while (time(nullptr) < end) {
    spin<<<(n + 255) / 256, 256>>>(x, n);
    if ((e = cudaDeviceSynchronize()) != cudaSuccess) return fail("kernel", e);
  }
  return 0;
}
