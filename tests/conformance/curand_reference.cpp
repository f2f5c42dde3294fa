/*
 * curand_reference.cpp: what curand_device.cu and curand_host.cu must print,
 * computed by NVIDIA's libcurand on the CPU (curandCreateGeneratorHost), so
 * that the simulator's cuRAND is checked against NVIDIA's own code wherever
 * the toolkit is installed (curand_reference.sh builds and runs this; no
 * GPU needed). A third mode compares the simulator's XORWOW jumps
 * (lib/cudasim/libs/curand_xorwow.cpp, linked in) with the toolkit's tables of
 * the same matrix powers (curand_precalc.h).
 *
 * The device API's numbers come from the host generator by its layout:
 * XORWOW's host number 4096 p + t is number p of curand_init(seed, t, 0)'s
 * sequence (t < 4096), and host normal pair 4096 i + t is made of its
 * numbers 2i and 2i + 1; Philox's host number 4 (65536 c + t) + e is number
 * 4c + e of subsequence t, and host normal g is made of host numbers
 * 2 floor(g / 2) and the next.
 *
 *   curand_reference device|host [--exact]    print what the program prints
 *   curand_reference tables                   check the jumps
 */
#define __device__
#include <curand.h>
#include <curand_precalc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" void cudasim_curand_xorwow_skip(unsigned int v[5], unsigned long long n,
                                           int subsequences);

namespace {

bool exact;

#define CHECK(call)                                                                \
    do {                                                                           \
        curandStatus_t s_ = (call);                                                \
        if (s_ != CURAND_STATUS_SUCCESS) {                                         \
            fprintf(stderr, "%s: status %d\n", #call, (int)s_);                    \
            exit(2);                                                               \
        }                                                                          \
    } while (0)

/* A host generator's first n outputs of one kind, offset 0. */
std::vector<unsigned> host_bits(curandRngType_t type, unsigned long long seed, size_t n)
{
    curandGenerator_t g;
    CHECK(curandCreateGeneratorHost(&g, type));
    CHECK(curandSetPseudoRandomGeneratorSeed(g, seed));
    std::vector<unsigned> v(n);
    CHECK(curandGenerate(g, v.data(), n));
    curandDestroyGenerator(g);
    return v;
}

std::vector<float> host_floats(curandRngType_t type, unsigned long long seed, size_t n, int kind,
                               float mean, float stddev)
{
    curandGenerator_t g;
    CHECK(curandCreateGeneratorHost(&g, type));
    CHECK(curandSetPseudoRandomGeneratorSeed(g, seed));
    std::vector<float> v(n);
    if (kind == 0) CHECK(curandGenerateUniform(g, v.data(), n));
    if (kind == 1) CHECK(curandGenerateNormal(g, v.data(), n, mean, stddev));
    if (kind == 2) CHECK(curandGenerateLogNormal(g, v.data(), n, mean, stddev));
    curandDestroyGenerator(g);
    return v;
}

void show_bits(const char *what, unsigned u) { printf(" %s %u", what, u); }
void show(const char *what, float v)
{
    if (exact) printf(" %s %a", what, v);
    else printf(" %s %.4f", what, v);
}

int device()
{
    const curandRngType_t X = CURAND_RNG_PSEUDO_XORWOW, P = CURAND_RNG_PSEUDO_PHILOX4_32_10;
    const size_t T = 4096;
    std::vector<unsigned> xb = host_bits(X, 1234, 301 * T);
    std::vector<float> xu = host_floats(X, 1234, 3 * T, 0, 0, 1);
    std::vector<float> xn = host_floats(X, 1234, 2 * 6 * T, 1, 0, 1);
    std::vector<float> xl = host_floats(X, 1234, 2 * 7 * T, 2, 0.5f, 0.25f);
    auto xorwow = [&](size_t t, size_t p) { return xb[p * T + t]; };
    const int shown[] = {0, 1, 31, 63};
    for (int t : shown) {
        printf("xorwow %2d:", t);
        show_bits("bits", xorwow(t, 0)), show_bits("", xorwow(t, 1));
        show("uniform", xu[2 * T + t]);
        show_bits("after skipahead", xorwow(t, 8));
        show("normal", xn[2 * (5 * T + t)]), show("", xn[2 * (5 * T + t) + 1]);
        show("log-normal", xl[2 * (6 * T + t)]);
        show_bits("bits", xorwow(t, 14));
        printf("\n");
    }
    const size_t PT = 65536;
    std::vector<unsigned> pb = host_bits(P, 42, 4 * (6 * PT));
    std::vector<float> pu = host_floats(P, 42, 4 * (5 * PT), 0, 0, 1);
    std::vector<float> pn = host_floats(P, 42, 4 * (5 * PT), 1, 0, 1);
    auto at = [&](size_t t, size_t p) { return 4 * ((p / 4) * PT + t) + p % 4; };
    for (int t : shown) {
        printf("philox %2d:", t);
        show_bits("curand4", pb[at(t, 0)]), show_bits("", pb[at(t, 3)]);
        show("uniform4", pu[at(t, 4)]), show("", pu[at(t, 7)]);
        show_bits("bits", pb[at(t, 8)]);
        show("normal4", pn[at(t, 12)]), show("", pn[at(t, 13)]), show("", pn[at(t, 14)]);
        show("", pn[at(t, 15)]);
        show("normal", pn[at(t, 16)]), show("", pn[at(t, 17)]);
        show_bits("bits", pb[at(t, 18)]), show("uniform", pu[at(t, 19)]);
        show_bits("bits", pb[at(t, 20)]);
        printf("\n");
    }
    printf("jumps: %u %u %u %u %u %u\n", xorwow(3, 100), xorwow(4000, 250), xorwow(4095, 300),
           pb[at(60000, 21)], pb[at(17, 0)], pb[at(1, 7)]);
    return 0;
}

/* The same calls as curand_host.cu, on host generators. */
int host()
{
    static unsigned bits[100000];
    static float f[100000];
    auto show_all = [](const char *what, int n, bool integers) {
        printf("%s:", what);
        for (int i = 0; i < n; i++) {
            if (integers) printf(" %u", bits[i]);
            else printf(exact ? " %a" : " %.4f", f[i]);
        }
        printf("\n");
    };
    curandGenerator_t gen;
    CHECK(curandCreateGeneratorHost(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
    CHECK(curandGenerate(gen, bits, 6));
    show_all("xorwow bits", 6, true);
    CHECK(curandGenerateUniform(gen, f, 4));
    show_all("xorwow uniform", 4, false);
    CHECK(curandGenerateNormal(gen, f, 6, 1.0f, 2.0f));
    show_all("xorwow normal (1, 2)", 6, false);
    CHECK(curandGenerateLogNormal(gen, f, 4, 0.5f, 2.0f));
    show_all("xorwow log-normal (0.5, 2)", 4, false);
    CHECK(curandSetGeneratorOffset(gen, 10000));
    CHECK(curandGenerate(gen, bits, 3));
    show_all("xorwow bits from offset 10000", 3, true);
    CHECK(curandGenerateUniform(gen, f, 100000));
    double sum = 0;
    for (int i = 0; i < 100000; i++) sum += f[i];
    printf("xorwow: 100000 uniforms, mean %.6f, last %.7f\n", sum / 100000, f[99999]);
    CHECK(curandSetPseudoRandomGeneratorSeed(gen, 99ULL));
    CHECK(curandGenerate(gen, bits, 3));
    show_all("xorwow bits, seed 99, where the generators were", 3, true);
    CHECK(curandDestroyGenerator(gen));

    CHECK(curandCreateGeneratorHost(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CHECK(curandSetPseudoRandomGeneratorSeed(gen, 42ULL));
    CHECK(curandGenerate(gen, bits, 5));
    show_all("philox bits", 5, true);
    CHECK(curandGenerateUniform(gen, f, 3));
    show_all("philox uniform", 3, false);
    CHECK(curandGenerateNormal(gen, f, 5, 0.0f, 1.0f));
    show_all("philox normal", 5, false);
    CHECK(curandSetGeneratorOffset(gen, 3));
    CHECK(curandGenerate(gen, bits, 2));
    show_all("philox bits from offset 3", 2, true);
    CHECK(curandGenerateUniform(gen, f, 100000));
    sum = 0;
    for (int i = 0; i < 100000; i++) sum += f[i];
    printf("philox: 100000 uniforms, mean %.6f, last %.7f\n", sum / 100000, f[99999]);
    CHECK(curandGenerate(gen, bits, 4)); /* what the graph gives, at each launch */
    show_all("philox bits from a graph", 4, true);
    show_all("philox bits from a graph", 4, true);
    CHECK(curandGenerate(gen, bits, 2));
    show_all("philox bits after the capture", 2, true);
    CHECK(curandDestroyGenerator(gen));
    return 0;
}

/* NVIDIA's matrix (row i: the image of bit i) applied to v. */
void apply(const unsigned *m, unsigned v[5])
{
    unsigned out[5] = {0, 0, 0, 0, 0};
    for (int i = 0; i < 160; i++)
        if (v[i / 32] >> (i % 32) & 1)
            for (int k = 0; k < 5; k++) out[k] ^= m[i * 5 + k];
    memcpy(v, out, sizeof out);
}

int tables()
{
    int bad = 0;
    srand(7);
    for (int i = 0; i < PRECALC_NUM_MATRICES; i++)
        for (int sequences = 0; sequences < 2; sequences++)
            for (int trial = 0; trial < 4; trial++) {
                unsigned want[5], got[5];
                for (int k = 0; k < 5; k++) want[k] = got[k] = (unsigned)rand() * 2654435761u;
                apply(sequences ? precalc_xorwow_matrix_host[i] : precalc_xorwow_offset_matrix_host[i],
                      want);
                cudasim_curand_xorwow_skip(got, 1ull << (PRECALC_BLOCK_SIZE * i), sequences);
                if (memcmp(want, got, sizeof want)) bad++;
            }
    printf("XORWOW jumps: %d of %d differ from the toolkit's curand_precalc.h\n", bad,
           PRECALC_NUM_MATRICES * 2 * 4);
    return bad != 0;
}

} // namespace

int main(int argc, char **argv)
{
    exact = argc > 2 && !strcmp(argv[2], "--exact");
    if (argc > 1 && !strcmp(argv[1], "device")) return device();
    if (argc > 1 && !strcmp(argv[1], "host")) return host();
    if (argc > 1 && !strcmp(argv[1], "tables")) return tables();
    fprintf(stderr, "usage: curand_reference device|host [--exact] | tables\n");
    return 2;
}
