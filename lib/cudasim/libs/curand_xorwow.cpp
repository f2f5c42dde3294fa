/*
 * curand_xorwow.cpp: jumps of cuRAND's XORWOW generator, for skipahead,
 * skipahead_sequence and curand_init with a subsequence or an offset.
 *
 * The xorshift part of XORWOW is 160 bits that one step maps linearly over
 * GF(2): one step is a 160 x 160 bit matrix M, and n steps are M^n. The
 * simulator computes M from the step itself (the image of each single bit)
 * and then M^(2^k) for k = 0 ... 130 by squaring, once, the first time a
 * program jumps (about 130 squarings: milliseconds); a jump of n steps
 * applies M^(2^k) for each bit k of n, and a jump of n subsequences (2^67
 * steps each) those of n << 67. NVIDIA's toolkit ships the same powers as
 * tables (curand_precalc.h, in base 4); computing them keeps the simulator
 * independent of an installed toolkit and of NVIDIA's files, and
 * tests/sim/check_curand_tables.sh compares the two where the toolkit is
 * installed.
 */
#include <cstring>
#include <vector>

namespace {

typedef unsigned int Word;
const int kBits = 160, kWords = 5;
const int kPowers = 64 + 67; /* M^(2^k): offsets use k < 64, subsequences 67 <= k < 131 */

/* Row i is the image of bit i (bit i % 32 of word i / 32). */
struct Matrix {
    Word row[kBits][kWords];
};

void step(Word v[kWords])
{
    Word t = v[0] ^ (v[0] >> 2);
    v[0] = v[1];
    v[1] = v[2];
    v[2] = v[3];
    v[3] = v[4];
    v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
}

/* v = m v */
void apply(const Matrix &m, Word v[kWords])
{
    Word out[kWords] = {0, 0, 0, 0, 0};
    for (int w = 0; w < kWords; w++)
        for (Word bits = v[w]; bits; bits &= bits - 1) {
            const Word *r = m.row[w * 32 + __builtin_ctz(bits)];
            for (int k = 0; k < kWords; k++) out[k] ^= r[k];
        }
    memcpy(v, out, sizeof out);
}

const std::vector<Matrix> &powers()
{
    static const auto &table = *new std::vector<Matrix>([] { /* (never destroyed) */
        std::vector<Matrix> p(kPowers);
        for (int i = 0; i < kBits; i++) {
            Word v[kWords] = {0, 0, 0, 0, 0};
            v[i / 32] = 1u << (i % 32);
            step(v);
            memcpy(p[0].row[i], v, sizeof v);
        }
        for (int k = 1; k < kPowers; k++)
            for (int i = 0; i < kBits; i++) {
                memcpy(p[k].row[i], p[k - 1].row[i], sizeof p[k].row[i]);
                apply(p[k - 1], p[k].row[i]);
            }
        return p;
    }());
    return table;
}

} // namespace

extern "C" void cudasim_curand_xorwow_skip(unsigned int v[5], unsigned long long n,
                                           int subsequences)
{
    const std::vector<Matrix> &p = powers();
    const int base = subsequences ? 67 : 0;
    for (int k = 0; k < 64; k++)
        if (n >> k & 1) apply(p[base + k], v);
}
