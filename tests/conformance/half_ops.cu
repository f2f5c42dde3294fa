// Every __half and __nv_bfloat16 operation, bit for bit: each case of
// tests/fixtures/half_ops.txt (made by tests/gen_fixtures_half_ops.py, with
// exact arithmetic) goes through every form of its operation in a kernel:
// the intrinsic, the operator, the compound assignment, the _rn form and
// each lane of the pair forms (__half2, __nv_bfloat162). Run from the
// repository's root (or give the table's path). (On a GPU below compute
// capability 8.0, which has no bfloat16 fma, those forms show as differing.)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "check.h"

enum Op { ADD, SUB, MUL, DIV, FMA, ADD_SAT, SUB_SAT, MUL_SAT, FMA_SAT, NEG, ABS, MAXMIN, CMP,
          H2F, F2H, D2H, I2H, H2I, NOPS };
static const char *const kOpName[NOPS] = {"add", "sub", "mul", "div", "fma", "add_sat", "sub_sat",
                                          "mul_sat", "fma_sat", "neg", "abs", "maxmin", "cmp",
                                          "h2f", "f2h", "d2h", "i2h", "h2i"};
static const int kOperands[NOPS] = {2, 2, 2, 2, 3, 2, 2, 2, 3, 1, 1, 2, 2, 1, 1, 1, 1, 1};
static const int kResults[NOPS] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 1, 1, 4, 1, 4, 4};

// The forms of the operations. ARG: a comparison (its bit in cmp's 12),
// a rounding mode (rn rz rd ru), or which of maxmin's results; LANES: a pair
// form, checked in its low and its high lane.
enum Form {
    HADD, ADD_OP, ADD_SET, HADD_RN, HADD2, HADD2_RN, ADD2_OP, ADD2_SET,
    HSUB, SUB_OP, SUB_SET, HSUB_RN, HSUB2, HSUB2_RN, SUB2_OP, SUB2_SET,
    HMUL, MUL_OP, MUL_SET, HMUL_RN, HMUL2, HMUL2_RN, MUL2_OP, MUL2_SET,
    HDIV, DIV_OP, DIV_SET, H2DIV, DIV2_OP, DIV2_SET,
    HFMA, HFMA2, HADD_SAT, HADD2_SAT, HSUB_SAT, HSUB2_SAT, HMUL_SAT, HMUL2_SAT, HFMA_SAT, HFMA2_SAT,
    HNEG, NEG_OP, HNEG2, NEG2_OP, HABS, HABS2,
    HMAXMIN, HMAXMIN2,          // ARG: max min max_nan min_nan
    HCMP, CMP_OP, HCMP2, HBCMP2, // ARG: the comparison
    TO_FLOAT, TO_FLOAT_CAST, LOW_HIGH_FLOAT, PAIR_TO_FLOAT2,
    FROM_FLOAT, FROM_FLOAT_PLAIN, FROM_FLOAT_CTOR, FROM_FLOAT_SET, FLOAT2PAIR, FLOATS2PAIR,
    FLOAT22PAIR, FROM_DOUBLE, FROM_DOUBLE_CTOR, FROM_INT, FROM_INT_CTOR, TO_INT, TO_INT_CAST
};

struct Input {
    int type; // 0: __half, 1: __nv_bfloat16
    unsigned long long in[3];
};
struct Job {
    int c, p, form, arg, lane; // case, its partner (the other lane), form, its argument, lane
};

// Each type's functions whose names name the type (__float2half_rz,
// __float2bfloat16_rz, ...): T the type, T2 its pair, N and P their names.
template <typename T>
struct Ty;
#define TYPE_FUNCTIONS(T_, T2_, N, P)                                                           \
    template <>                                                                                 \
    struct Ty<T_> {                                                                             \
        typedef T2_ T2;                                                                         \
        static __device__ T_ of(unsigned long long u) { return __ushort_as_##N((unsigned short)u); } \
        static __device__ unsigned long long bits(T_ h) { return __##N##_as_ushort(h); }       \
        static __device__ T2_ pair(T_ a, T_ b) { return __halves2##P(a, b); }                  \
        static __device__ T_ low(T2_ p) { return __low2##N(p); }                               \
        static __device__ T_ high(T2_ p) { return __high2##N(p); }                             \
        static __device__ float to_float(T_ h) { return __##N##2float(h); }                    \
        static __device__ float2 to_float2(T2_ p) { return __##P##2float2(p); }                \
        static __device__ T_ from_float(float f, int mode)                                     \
        {                                                                                       \
            return mode == 0 ? __float2##N##_rn(f) : mode == 1 ? __float2##N##_rz(f)           \
                 : mode == 2 ? __float2##N##_rd(f) : __float2##N##_ru(f);                       \
        }                                                                                       \
        static __device__ T_ from_float_plain(float f) { return __float2##N(f); }              \
        static __device__ T2_ float2pair(float f) { return __float2##P##_rn(f); }              \
        static __device__ T2_ floats2pair(float a, float b) { return __floats2##P##_rn(a, b); } \
        static __device__ T2_ float22pair(float2 f) { return __float22##P##_rn(f); }           \
        static __device__ T_ from_double(double d) { return __double2##N(d); }                 \
        static __device__ T_ from_int(int i, int mode)                                         \
        {                                                                                       \
            return mode == 0 ? __int2##N##_rn(i) : mode == 1 ? __int2##N##_rz(i)               \
                 : mode == 2 ? __int2##N##_rd(i) : __int2##N##_ru(i);                           \
        }                                                                                       \
        static __device__ int to_int(T_ h, int mode)                                           \
        {                                                                                       \
            return mode == 0 ? __##N##2int_rn(h) : mode == 1 ? __##N##2int_rz(h)               \
                 : mode == 2 ? __##N##2int_rd(h) : __##N##2int_ru(h);                           \
        }                                                                                       \
    };
TYPE_FUNCTIONS(__half, __half2, half, half2)
TYPE_FUNCTIONS(__nv_bfloat16, __nv_bfloat162, bfloat16, bfloat162)
#undef TYPE_FUNCTIONS

template <typename T>
__device__ bool compare(T a, T b, int k)
{
    switch (k) {
    case 0: return __heq(a, b);
    case 1: return __hne(a, b);
    case 2: return __hlt(a, b);
    case 3: return __hle(a, b);
    case 4: return __hgt(a, b);
    case 5: return __hge(a, b);
    case 6: return __hequ(a, b);
    case 7: return __hneu(a, b);
    case 8: return __hltu(a, b);
    case 9: return __hleu(a, b);
    case 10: return __hgtu(a, b);
    default: return __hgeu(a, b);
    }
}

template <typename T>
__device__ bool compare_op(T a, T b, int k) // the operators: == is __heq, != is __hneu
{
    switch (k) {
    case 0: return a == b;
    case 7: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
    }
}

template <typename T2>
__device__ T2 compare2(T2 a, T2 b, int k)
{
    switch (k) {
    case 0: return __heq2(a, b);
    case 1: return __hne2(a, b);
    case 2: return __hlt2(a, b);
    case 3: return __hle2(a, b);
    case 4: return __hgt2(a, b);
    case 5: return __hge2(a, b);
    case 6: return __hequ2(a, b);
    case 7: return __hneu2(a, b);
    case 8: return __hltu2(a, b);
    case 9: return __hleu2(a, b);
    case 10: return __hgtu2(a, b);
    default: return __hgeu2(a, b);
    }
}

template <typename T2>
__device__ bool compare2_both(T2 a, T2 b, int k)
{
    switch (k) {
    case 0: return __hbeq2(a, b);
    case 1: return __hbne2(a, b);
    case 2: return __hblt2(a, b);
    case 3: return __hble2(a, b);
    case 4: return __hbgt2(a, b);
    case 5: return __hbge2(a, b);
    case 6: return __hbequ2(a, b);
    case 7: return __hbneu2(a, b);
    case 8: return __hbltu2(a, b);
    case 9: return __hbleu2(a, b);
    case 10: return __hbgtu2(a, b);
    default: return __hbgeu2(a, b);
    }
}

template <typename T>
__device__ T maxmin(T a, T b, int k)
{
    return k == 0 ? __hmax(a, b) : k == 1 ? __hmin(a, b) : k == 2 ? __hmax_nan(a, b) : __hmin_nan(a, b);
}

template <typename T2>
__device__ T2 maxmin2(T2 a, T2 b, int k)
{
    return k == 0 ? __hmax2(a, b) : k == 1 ? __hmin2(a, b) : k == 2 ? __hmax2_nan(a, b) : __hmin2_nan(a, b);
}

// bfloat16's fused multiply-add needs compute capability 8.0.
template <typename T>
__device__ bool fma_form(int form, T a, T b, T c, typename Ty<T>::T2 pa, typename Ty<T>::T2 pb,
                         typename Ty<T>::T2 pc, int lane, unsigned long long *out)
{
    typedef Ty<T> Y;
    switch (form) {
    case HFMA: *out = Y::bits(__hfma(a, b, c)); return true;
    case HFMA_SAT: *out = Y::bits(__hfma_sat(a, b, c)); return true;
    case HFMA2: *out = Y::bits(lane ? Y::high(__hfma2(pa, pb, pc)) : Y::low(__hfma2(pa, pb, pc))); return true;
    case HFMA2_SAT:
        *out = Y::bits(lane ? Y::high(__hfma2_sat(pa, pb, pc)) : Y::low(__hfma2_sat(pa, pb, pc)));
        return true;
    }
    return false;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
template <>
__device__ bool fma_form<__nv_bfloat16>(int, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16,
                                        __nv_bfloat162, __nv_bfloat162, __nv_bfloat162, int,
                                        unsigned long long *)
{
    return false; /* not run: the fma forms of bfloat16 show as differing */
}
#endif

// The result of one job: its form applied to case x, the other lane from case y.
template <typename T>
__device__ unsigned long long eval(const Job &j, const Input &x, const Input &y)
{
    typedef Ty<T> Y;
    typedef typename Y::T2 T2;
    T a = Y::of(x.in[0]), b = Y::of(x.in[1]), c = Y::of(x.in[2]);
    T a2 = Y::of(y.in[0]), b2 = Y::of(y.in[1]), c2 = Y::of(y.in[2]);
    int l = j.lane;
    T2 pa = l ? Y::pair(a2, a) : Y::pair(a, a2), pb = l ? Y::pair(b2, b) : Y::pair(b, b2);
    T2 pc = l ? Y::pair(c2, c) : Y::pair(c, c2);
#define LANE(p) Y::bits(l ? Y::high(p) : Y::low(p))
    T t;
    T2 t2;
    unsigned long long out = 0;
    switch (j.form) {
    case HADD: return Y::bits(__hadd(a, b));
    case ADD_OP: return Y::bits(a + b);
    case ADD_SET: t = a; t += b; return Y::bits(t);
    case HADD_RN: return Y::bits(__hadd_rn(a, b));
    case HADD2: return LANE(__hadd2(pa, pb));
    case HADD2_RN: return LANE(__hadd2_rn(pa, pb));
    case ADD2_OP: return LANE(pa + pb);
    case ADD2_SET: t2 = pa; t2 += pb; return LANE(t2);
    case HSUB: return Y::bits(__hsub(a, b));
    case SUB_OP: return Y::bits(a - b);
    case SUB_SET: t = a; t -= b; return Y::bits(t);
    case HSUB_RN: return Y::bits(__hsub_rn(a, b));
    case HSUB2: return LANE(__hsub2(pa, pb));
    case HSUB2_RN: return LANE(__hsub2_rn(pa, pb));
    case SUB2_OP: return LANE(pa - pb);
    case SUB2_SET: t2 = pa; t2 -= pb; return LANE(t2);
    case HMUL: return Y::bits(__hmul(a, b));
    case MUL_OP: return Y::bits(a * b);
    case MUL_SET: t = a; t *= b; return Y::bits(t);
    case HMUL_RN: return Y::bits(__hmul_rn(a, b));
    case HMUL2: return LANE(__hmul2(pa, pb));
    case HMUL2_RN: return LANE(__hmul2_rn(pa, pb));
    case MUL2_OP: return LANE(pa * pb);
    case MUL2_SET: t2 = pa; t2 *= pb; return LANE(t2);
    case HDIV: return Y::bits(__hdiv(a, b));
    case DIV_OP: return Y::bits(a / b);
    case DIV_SET: t = a; t /= b; return Y::bits(t);
    case H2DIV: return LANE(__h2div(pa, pb));
    case DIV2_OP: return LANE(pa / pb);
    case DIV2_SET: t2 = pa; t2 /= pb; return LANE(t2);
    case HADD_SAT: return Y::bits(__hadd_sat(a, b));
    case HADD2_SAT: return LANE(__hadd2_sat(pa, pb));
    case HSUB_SAT: return Y::bits(__hsub_sat(a, b));
    case HSUB2_SAT: return LANE(__hsub2_sat(pa, pb));
    case HMUL_SAT: return Y::bits(__hmul_sat(a, b));
    case HMUL2_SAT: return LANE(__hmul2_sat(pa, pb));
    case HNEG: return Y::bits(__hneg(a));
    case NEG_OP: return Y::bits(-a);
    case HNEG2: return LANE(__hneg2(pa));
    case NEG2_OP: return LANE(-pa);
    case HABS: return Y::bits(__habs(a));
    case HABS2: return LANE(__habs2(pa));
    case HMAXMIN: return Y::bits(maxmin(a, b, j.arg));
    case HMAXMIN2: return LANE(maxmin2(pa, pb, j.arg));
    case HCMP: return compare(a, b, j.arg);
    case CMP_OP: return compare_op(a, b, j.arg);
    case HCMP2: return Y::to_float(l ? Y::high(compare2(pa, pb, j.arg)) : Y::low(compare2(pa, pb, j.arg))) == 1.0f;
    case HBCMP2: return compare2_both(Y::pair(a, a), Y::pair(b, b), j.arg);
    case TO_FLOAT: { float f = Y::to_float(a); unsigned u; memcpy(&u, &f, 4); return u; }
    case TO_FLOAT_CAST: { float f = a; unsigned u; memcpy(&u, &f, 4); return u; }
    case LOW_HIGH_FLOAT: { float f = l ? __high2float(pa) : __low2float(pa); unsigned u; memcpy(&u, &f, 4); return u; }
    case PAIR_TO_FLOAT2: { float2 v = Y::to_float2(pa); float f = l ? v.y : v.x; unsigned u; memcpy(&u, &f, 4); return u; }
    }
    float fx, fy;
    unsigned ux = (unsigned)x.in[0], uy = (unsigned)y.in[0];
    memcpy(&fx, &ux, 4);
    memcpy(&fy, &uy, 4);
    double dx;
    memcpy(&dx, &x.in[0], 8);
    switch (j.form) {
    case FROM_FLOAT: return Y::bits(Y::from_float(fx, j.arg));
    case FROM_FLOAT_PLAIN: return Y::bits(Y::from_float_plain(fx));
    case FROM_FLOAT_CTOR: return Y::bits(T(fx));
    case FROM_FLOAT_SET: t = fx; return Y::bits(t);
    case FLOAT2PAIR: return LANE(Y::float2pair(fx));
    case FLOATS2PAIR: return LANE(l ? Y::floats2pair(fy, fx) : Y::floats2pair(fx, fy));
    case FLOAT22PAIR: return LANE(Y::float22pair(l ? make_float2(fy, fx) : make_float2(fx, fy)));
    case FROM_DOUBLE: return Y::bits(Y::from_double(dx));
    case FROM_DOUBLE_CTOR: return Y::bits(T(dx));
    case FROM_INT: return Y::bits(Y::from_int((int)ux, j.arg));
    case FROM_INT_CTOR: return Y::bits(T((int)ux));
    case TO_INT: return (unsigned)Y::to_int(a, j.arg);
    case TO_INT_CAST: return (unsigned)(int)a;
    }
    if (fma_form(j.form, a, b, c, pa, pb, pc, l, &out)) return out;
#undef LANE
    return ~0ull;
}

__global__ void run_jobs(const Job *jobs, int n, const Input *in, unsigned long long *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Job &j = jobs[i];
    out[i] = in[j.c].type ? eval<__nv_bfloat16>(j, in[j.c], in[j.p]) : eval<__half>(j, in[j.c], in[j.p]);
}

// ---- host: the table, the jobs, the verdict ---------------------------------

struct Case {
    int type, op;
    unsigned long long in[3], want[4];
    bool any_nan[4]; // "nan" in the table: any NaN will do
};
struct FormInfo {
    int form, op, lanes, nargs; // nargs: ARG takes 0..nargs-1 (0: no argument)
    const char *name;
};
static const FormInfo kForms[] = {
    {HADD, ADD, 0, 0, "__hadd"}, {ADD_OP, ADD, 0, 0, "a + b"}, {ADD_SET, ADD, 0, 0, "a += b"},
    {HADD_RN, ADD, 0, 0, "__hadd_rn"}, {HADD2, ADD, 1, 0, "__hadd2"}, {HADD2_RN, ADD, 1, 0, "__hadd2_rn"},
    {ADD2_OP, ADD, 1, 0, "pair +"}, {ADD2_SET, ADD, 1, 0, "pair +="},
    {HSUB, SUB, 0, 0, "__hsub"}, {SUB_OP, SUB, 0, 0, "a - b"}, {SUB_SET, SUB, 0, 0, "a -= b"},
    {HSUB_RN, SUB, 0, 0, "__hsub_rn"}, {HSUB2, SUB, 1, 0, "__hsub2"}, {HSUB2_RN, SUB, 1, 0, "__hsub2_rn"},
    {SUB2_OP, SUB, 1, 0, "pair -"}, {SUB2_SET, SUB, 1, 0, "pair -="},
    {HMUL, MUL, 0, 0, "__hmul"}, {MUL_OP, MUL, 0, 0, "a * b"}, {MUL_SET, MUL, 0, 0, "a *= b"},
    {HMUL_RN, MUL, 0, 0, "__hmul_rn"}, {HMUL2, MUL, 1, 0, "__hmul2"}, {HMUL2_RN, MUL, 1, 0, "__hmul2_rn"},
    {MUL2_OP, MUL, 1, 0, "pair *"}, {MUL2_SET, MUL, 1, 0, "pair *="},
    {HDIV, DIV, 0, 0, "__hdiv"}, {DIV_OP, DIV, 0, 0, "a / b"}, {DIV_SET, DIV, 0, 0, "a /= b"},
    {H2DIV, DIV, 1, 0, "__h2div"}, {DIV2_OP, DIV, 1, 0, "pair /"}, {DIV2_SET, DIV, 1, 0, "pair /="},
    {HFMA, FMA, 0, 0, "__hfma"}, {HFMA2, FMA, 1, 0, "__hfma2"},
    {HADD_SAT, ADD_SAT, 0, 0, "__hadd_sat"}, {HADD2_SAT, ADD_SAT, 1, 0, "__hadd2_sat"},
    {HSUB_SAT, SUB_SAT, 0, 0, "__hsub_sat"}, {HSUB2_SAT, SUB_SAT, 1, 0, "__hsub2_sat"},
    {HMUL_SAT, MUL_SAT, 0, 0, "__hmul_sat"}, {HMUL2_SAT, MUL_SAT, 1, 0, "__hmul2_sat"},
    {HFMA_SAT, FMA_SAT, 0, 0, "__hfma_sat"}, {HFMA2_SAT, FMA_SAT, 1, 0, "__hfma2_sat"},
    {HNEG, NEG, 0, 0, "__hneg"}, {NEG_OP, NEG, 0, 0, "-a"}, {HNEG2, NEG, 1, 0, "__hneg2"},
    {NEG2_OP, NEG, 1, 0, "pair -"}, {HABS, ABS, 0, 0, "__habs"}, {HABS2, ABS, 1, 0, "__habs2"},
    {HMAXMIN, MAXMIN, 0, 4, "__hmax, __hmin, __hmax_nan, __hmin_nan"},
    {HMAXMIN2, MAXMIN, 1, 4, "their pair forms"},
    {HCMP, CMP, 0, 12, "__heq ... __hgeu (12)"}, {CMP_OP, CMP, 0, -6, "== != < <= > >="},
    {HCMP2, CMP, 1, 12, "__heq2 ... __hgeu2"}, {HBCMP2, CMP, 0, 12, "__hbeq2 ... __hbgeu2"},
    {TO_FLOAT, H2F, 0, 0, "to float"}, {TO_FLOAT_CAST, H2F, 0, 0, "float f = h"},
    {LOW_HIGH_FLOAT, H2F, 1, 0, "__low2float, __high2float"}, {PAIR_TO_FLOAT2, H2F, 1, 0, "pair to float2"},
    {FROM_FLOAT, F2H, 0, 4, "_rn _rz _rd _ru"}, {FROM_FLOAT_PLAIN, F2H, 0, 0, "__float2half"},
    {FROM_FLOAT_CTOR, F2H, 0, 0, "T(f)"}, {FROM_FLOAT_SET, F2H, 0, 0, "h = f"},
    {FLOAT2PAIR, F2H, 1, 0, "to both lanes"}, {FLOATS2PAIR, F2H, 1, 0, "two floats"},
    {FLOAT22PAIR, F2H, 1, 0, "a float2"},
    {FROM_DOUBLE, D2H, 0, 0, "__double2..."}, {FROM_DOUBLE_CTOR, D2H, 0, 0, "T(d)"},
    {FROM_INT, I2H, 0, 4, "_rn _rz _rd _ru"}, {FROM_INT_CTOR, I2H, 0, 0, "T(i)"},
    {TO_INT, H2I, 0, 4, "_rn _rz _rd _ru"}, {TO_INT_CAST, H2I, 0, 0, "(int)h"},
};
static const int kCmpOps[6] = {0, 7, 2, 3, 4, 5}; // == != < <= > >=: __heq __hneu __hlt ...

// The result a job should give, from its case's entry in the table.
static unsigned long long wanted(const Case &k, const FormInfo &f, int arg, bool *any_nan)
{
    *any_nan = false;
    if (k.op == CMP) return (k.want[0] >> arg) & 1;
    int r = f.nargs > 0 ? arg : 0;
    if (f.form == FROM_FLOAT_PLAIN || f.form == FROM_FLOAT_CTOR || f.form == FROM_FLOAT_SET ||
        f.form == FLOAT2PAIR || f.form == FLOATS2PAIR || f.form == FLOAT22PAIR ||
        f.form == FROM_INT_CTOR)
        r = 0; // to nearest even
    if (f.form == TO_INT_CAST) r = 1; // towards zero
    *any_nan = k.any_nan[r];
    return k.want[r];
}

static bool is_nan(int type, int op, unsigned long long v)
{
    if (op == H2F) return (v & 0x7fffffffu) > 0x7f800000u;
    return (v & 0x7fff) > (type ? 0x7f80u : 0x7c00u);
}

static bool parse(const char *path, std::vector<Case> *cases)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("%s: cannot open it (run from the repository's root, or give its path)\n", path);
        return false;
    }
    char line[256];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n') continue;
        char *save = nullptr, *tok[12];
        int n = 0;
        for (char *t = strtok_r(line, " \n", &save); t && n < 12; t = strtok_r(nullptr, " \n", &save))
            tok[n++] = t;
        Case k = {};
        k.op = -1;
        if (n < 2) n = 0; /* (refused below) */
        else k.type = tok[0][0] == 'b';
        for (int o = 0; o < NOPS; o++)
            if (n > 1 && strcmp(tok[1], kOpName[o]) == 0) k.op = o;
        if (k.op < 0 || n != 2 + kOperands[k.op] + kResults[k.op]) {
            printf("%s:%d: not a case of this table's format\n", path, lineno);
            fclose(f);
            return false;
        }
        for (int i = 0; i < kOperands[k.op]; i++) k.in[i] = strtoull(tok[2 + i], nullptr, 16);
        for (int i = 0; i < kResults[k.op]; i++) {
            const char *r = tok[2 + kOperands[k.op] + i];
            k.any_nan[i] = strcmp(r, "nan") == 0;
            k.want[i] = k.any_nan[i] ? 0 : strtoull(r, nullptr, 16);
        }
        cases->push_back(k);
    }
    fclose(f);
    return true;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "tests/fixtures/half_ops.txt";
    std::vector<Case> cases;
    if (!parse(path, &cases)) return 1;
    int n = (int)cases.size();
    // Each case's partner: the next case of its type and operation (the other lane).
    std::vector<int> partner(n);
    for (int i = 0; i < n; i++) {
        int j = i + 1 < n && cases[i + 1].type == cases[i].type && cases[i + 1].op == cases[i].op ? i + 1 : i;
        if (j == i)
            for (j = i; j > 0 && cases[j - 1].type == cases[i].type && cases[j - 1].op == cases[i].op; j--) {}
        partner[i] = j;
    }
    std::vector<Job> jobs;
    std::vector<Input> in(n);
    for (int i = 0; i < n; i++) {
        in[i].type = cases[i].type;
        memcpy(in[i].in, cases[i].in, sizeof in[i].in);
        for (const FormInfo &f : kForms) {
            if (f.op != cases[i].op) continue;
            int nargs = f.nargs < 0 ? -f.nargs : f.nargs > 0 ? f.nargs : 1;
            for (int a = 0; a < nargs; a++)
                for (int lane = 0; lane <= f.lanes; lane++)
                    jobs.push_back(Job{i, partner[i], f.form, f.nargs < 0 ? kCmpOps[a] : a, lane});
        }
    }
    int m = (int)jobs.size();
    Job *d_jobs;
    Input *d_in;
    unsigned long long *d_out;
    CHECK(cudaMalloc(&d_jobs, m * sizeof(Job)));
    CHECK(cudaMalloc(&d_in, n * sizeof(Input)));
    CHECK(cudaMalloc(&d_out, m * sizeof(unsigned long long)));
    CHECK(cudaMemcpy(d_jobs, jobs.data(), m * sizeof(Job), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(Input), cudaMemcpyHostToDevice));
    run_jobs<<<(m + 255) / 256, 256>>>(d_jobs, m, d_in, d_out);
    CHECK(cudaGetLastError());
    std::vector<unsigned long long> out(m);
    CHECK(cudaMemcpy(out.data(), d_out, m * sizeof(unsigned long long), cudaMemcpyDeviceToHost));

    // Per type and operation: cases, results checked, results that differ.
    int count[2][NOPS] = {}, checked[2][NOPS] = {}, wrong[2][NOPS] = {}, shown = 0;
    for (const Case &k : cases) count[k.type][k.op]++;
    for (int i = 0; i < m; i++) {
        const Job &j = jobs[i];
        const Case &k = cases[j.c];
        const FormInfo *f = nullptr;
        for (const FormInfo &g : kForms)
            if (g.form == j.form) f = &g;
        bool any_nan;
        unsigned long long want = wanted(k, *f, j.arg, &any_nan);
        bool ok = any_nan ? is_nan(k.type, k.op, out[i]) : out[i] == want;
        checked[k.type][k.op]++;
        if (ok) continue;
        wrong[k.type][k.op]++;
        if (shown++ < 20)
            printf("differs: %s %s, %s (arg %d, lane %d) of %llx %llx %llx: %llx, the table has %s%llx\n",
                   k.type ? "__nv_bfloat16" : "__half", kOpName[k.op], f->name, j.arg, j.lane,
                   k.in[0], k.in[1], k.in[2], out[i], any_nan ? "a NaN, not " : "", want);
    }
    for (int t = 0; t < 2; t++)
        for (int o = 0; o < NOPS; o++) {
            if (!count[t][o]) continue;
            printf("%-14s %-8s %4d cases, %5d results: ", t ? "__nv_bfloat16" : "__half", kOpName[o],
                   count[t][o], checked[t][o]);
            if (wrong[t][o]) printf("%d differ from the table\n", wrong[t][o]);
            else printf("bit-exact\n");
        }
    CHECK(cudaFree(d_jobs));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return 0;
}
