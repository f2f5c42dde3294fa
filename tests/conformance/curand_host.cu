// cuRAND's host API on device memory: a generator of each common kind
// (XORWOW, the default, and Philox4_32_10) fills cudaMalloc'd buffers with
// 32-bit numbers, uniforms, normals and log-normals, continues where the
// last call ended, starts again at an offset, and runs on a stream. What it
// prints is NVIDIA's sequence: tests/conformance/curand_reference.sh makes
// the same calls on libcurand's host generator where the toolkit is
// installed. Normals are printed to 4 decimals (--exact: in hex).
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <curand.h>

#define CURAND_CHECK(call)                                                         \
    do {                                                                           \
        curandStatus_t s_ = (call);                                                \
        if (s_ != CURAND_STATUS_SUCCESS) {                                         \
            printf("%s failed: status %d\n", #call, (int)s_);                      \
            return 1;                                                              \
        }                                                                          \
    } while (0)

static bool exact;
static unsigned bits[100000];
static float f[100000];

static void show_bits(const char *what, unsigned *d, int n)
{
    cudaMemcpy(bits, d, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
    printf("%s:", what);
    for (int i = 0; i < n; i++) printf(" %u", bits[i]);
    printf("\n");
}

static void show_floats(const char *what, float *d, int n)
{
    cudaMemcpy(f, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%s:", what);
    for (int i = 0; i < n; i++) printf(exact ? " %a" : " %.4f", f[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    exact = argc > 1 && !strcmp(argv[1], "--exact");
    unsigned *dbits;
    float *df;
    cudaMalloc(&dbits, sizeof bits);
    cudaMalloc(&df, sizeof f);

    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
    CURAND_CHECK(curandGenerate(gen, dbits, 6));
    show_bits("xorwow bits", dbits, 6);
    CURAND_CHECK(curandGenerateUniform(gen, df, 4));
    show_floats("xorwow uniform", df, 4);
    CURAND_CHECK(curandGenerateNormal(gen, df, 6, 1.0f, 2.0f));
    show_floats("xorwow normal (1, 2)", df, 6);
    CURAND_CHECK(curandGenerateLogNormal(gen, df, 4, 0.5f, 2.0f));
    show_floats("xorwow log-normal (0.5, 2)", df, 4);
    CURAND_CHECK(curandSetGeneratorOffset(gen, 10000));
    CURAND_CHECK(curandGenerate(gen, dbits, 3));
    show_bits("xorwow bits from offset 10000", dbits, 3);
    CURAND_CHECK(curandGenerateUniform(gen, df, 100000));
    cudaMemcpy(f, df, sizeof f, cudaMemcpyDeviceToHost);
    double sum = 0;
    for (int i = 0; i < 100000; i++) sum += f[i];
    printf("xorwow: 100000 uniforms, mean %.6f, last %.7f\n", sum / 100000, f[99999]);
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 99ULL));
    CURAND_CHECK(curandGenerate(gen, dbits, 3));
    show_bits("xorwow bits, seed 99, where the generators were", dbits, 3);
    CURAND_CHECK(curandDestroyGenerator(gen));

    cudaStream_t stream;
    cudaStreamCreate(&stream);
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CURAND_CHECK(curandSetStream(gen, stream));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 42ULL));
    CURAND_CHECK(curandGenerate(gen, dbits, 5));
    show_bits("philox bits", dbits, 5);
    CURAND_CHECK(curandGenerateUniform(gen, df, 3));
    show_floats("philox uniform", df, 3);
    CURAND_CHECK(curandGenerateNormal(gen, df, 5, 0.0f, 1.0f));
    show_floats("philox normal", df, 5);
    CURAND_CHECK(curandSetGeneratorOffset(gen, 3));
    CURAND_CHECK(curandGenerate(gen, dbits, 2));
    show_bits("philox bits from offset 3", dbits, 2);
    CURAND_CHECK(curandGenerateUniform(gen, df, 100000));
    cudaStreamSynchronize(stream);
    cudaMemcpy(f, df, sizeof f, cudaMemcpyDeviceToHost);
    sum = 0;
    for (int i = 0; i < 100000; i++) sum += f[i];
    printf("philox: 100000 uniforms, mean %.6f, last %.7f\n", sum / 100000, f[99999]);

    /* Captured into a graph, a call gives the same numbers at every launch,
     * and the generator moves on when it is captured. */
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    CURAND_CHECK(curandGenerate(gen, dbits, 4));
    cudaStreamEndCapture(stream, &graph);
    cudaGraphInstantiate(&exec, graph, 0);
    for (int launch = 0; launch < 2; launch++) {
        cudaGraphLaunch(exec, stream);
        cudaStreamSynchronize(stream);
        show_bits("philox bits from a graph", dbits, 4);
    }
    CURAND_CHECK(curandGenerate(gen, dbits, 2));
    cudaStreamSynchronize(stream);
    show_bits("philox bits after the capture", dbits, 2);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    CURAND_CHECK(curandDestroyGenerator(gen));
    cudaStreamDestroy(stream);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return 0;
}
