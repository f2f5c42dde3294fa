#!/usr/bin/env python3
"""Write tests/fixtures/half_ops.txt: what every __half and __nv_bfloat16 operation gives.

tests/conformance/half_ops.cu runs each case through every form of the
operation in cuda_fp16.h and cuda_bf16.h (the intrinsic, the operator, the
compound assignment, the __half2 lanes, ...) on the simulator, and on a GPU
under make gpu-check, and compares the bits. Run it with any Python 3:

    python3 tests/gen_fixtures_half_ops.py tests/fixtures      # or: make fixtures

The oracle is independent of the code under test and of float hardware: each
value is an exact rational (fractions.Fraction), each operation is computed
exactly, and the result is rounded by searching the sorted list of every
finite value of the type for its neighbours (ties to the even one; past the
largest finite value by half an ulp, inf). Special values follow IEEE 754 and
the rules cuda_fp16.h and cuda_bf16.h document (max/min: a NaN loses to a
number, both NaN give the canonical NaN 0x7FFF, +0 > -0; _sat: NaN and -0
give +0; conversions to int saturate, NaN gives 0). Where CUDA does not
document the bits of a NaN result the table says "nan" and any NaN passes.
Where numpy is installed its float16 is a second oracle for the half cases
(conversions from float, and + - * /, which numpy computes in float32 and
rounds once: for halves that is the correctly rounded result).

Format, one case per line:  TYPE OP OPERANDS... RESULTS...
  TYPE  h (__half) or b (__nv_bfloat16); operands and results are the hex
        bits of the type unless said otherwise
  add sub mul div add_sat sub_sat mul_sat   A B, one result
  fma fma_sat                               A B C, one result
  neg abs                                   A, one result
  maxmin    A B; 4 results: max min max_nan min_nan
  cmp       A B; 12 bits, eq ne lt le gt ge equ neu ltu leu gtu geu (bit 0 first)
  h2f       A; the float32 bits of its widening
  f2h       A is float32 bits; 4 results: rounded rn rz rd ru
  d2h       A is float64 bits; rounded to nearest even
  i2h       A is an int32 (two's complement); 4 results, rn rz rd ru
  h2i       A; 4 results: the int32 rn rz rd ru (saturated; NaN gives 0)
"""
import bisect
import os
import random
import struct
import sys
from fractions import Fraction as Q

NAN = None  # a NaN; other values are (sign, magnitude) with magnitude 'inf' or a Fraction


class Fmt:
    """A 16-bit binary format with `man` fraction bits."""

    def __init__(self, tag, man):
        self.tag, self.man, self.exp = tag, man, 15 - man
        self.bias = (1 << (self.exp - 1)) - 1
        self.inf = ((1 << self.exp) - 1) << man
        self.one = self.bias << man
        # every finite non-negative value, ascending, and one more: the value
        # the next exponent would start with (2^(emax+1)), which stands for inf
        self.values = [self.decode(b)[1] for b in range(self.inf)]
        self.values.append(Q(2) ** (self.inf // (1 << man) - self.bias))

    def decode(self, bits):
        sign, e, m = bits >> 15, (bits >> self.man) & ((1 << self.exp) - 1), bits & ((1 << self.man) - 1)
        if e == (1 << self.exp) - 1:
            return NAN if m else (sign, 'inf')
        if e == 0:
            return (sign, Q(m) * Q(2) ** (1 - self.bias - self.man))
        return (sign, Q(m + (1 << self.man)) * Q(2) ** (e - self.bias - self.man))

    def round(self, value, mode='rn'):
        """The bits of an exact value rounded in mode (rn, rz, rd, ru); 'nan' for NaN."""
        if value is NAN:
            return 'nan'
        sign, mag = value
        if mag == 'inf':
            return sign << 15 | self.inf
        # values[i-1] < mag <= values[i], the last of them standing for inf
        i = min(bisect.bisect_left(self.values, mag), len(self.values) - 1)
        if self.values[i] == mag and i < len(self.values) - 1:
            bits = i
        else:
            lo, hi = i - 1, i
            if mode == 'rn':
                dlo, dhi = mag - self.values[lo], self.values[hi] - mag
                bits = lo if dlo < dhi or (dlo == dhi and lo % 2 == 0) else hi
            else:
                away = (mode == 'ru' and sign == 0) or (mode == 'rd' and sign == 1)
                bits = hi if away else lo
        return sign << 15 | bits  # bits == self.inf: the value past the largest, inf

    def hexs(self, bits):
        return bits if isinstance(bits, str) else '%04x' % bits


HALF, BF16 = Fmt('h', 10), Fmt('b', 7)


def signed(v):
    return -v[1] if v[0] else v[1]


def num(s):
    return (1, -s) if s < 0 else (0, s)


def add(x, y):
    if x is NAN or y is NAN:
        return NAN
    if x[1] == 'inf' and y[1] == 'inf':
        return x if x[0] == y[0] else NAN
    if x[1] == 'inf':
        return x
    if y[1] == 'inf':
        return y
    s = signed(x) + signed(y)
    if s == 0:  # both zero: -0 only if both are; exact cancellation: +0
        return (x[0] & y[0], Q(0)) if x[1] == 0 and y[1] == 0 else (0, Q(0))
    return num(s)


def neg(x):
    return NAN if x is NAN else (1 - x[0], x[1])


def mul(x, y):
    if x is NAN or y is NAN:
        return NAN
    sign = x[0] ^ y[0]
    if 'inf' in (x[1], y[1]):
        return NAN if 0 in (x[1], y[1]) else (sign, 'inf')
    return (sign, x[1] * y[1])


def div(x, y):
    if x is NAN or y is NAN:
        return NAN
    sign = x[0] ^ y[0]
    if x[1] == 'inf':
        return NAN if y[1] == 'inf' else (sign, 'inf')
    if y[1] == 'inf':
        return (sign, Q(0))
    if y[1] == 0:
        return NAN if x[1] == 0 else (sign, 'inf')
    return (sign, x[1] / y[1])


def fma(x, y, z):
    return add(mul(x, y), z)  # exact product, exact sum: rounded once by the caller


def sat(f, bits):
    """Clamped to [+0, 1]: NaN and -0 give +0 (cuda_fp16.h's _sat)."""
    v = f.decode(bits) if bits != 'nan' else NAN
    if v is NAN or v[0] == 1:
        return 0
    return f.one if v[1] == 'inf' or v[1] > 1 else bits


def key(v):
    """An order of numbers with +0 > -0."""
    return (signed(v) if v[1] != 'inf' else (-1 if v[0] else 1) * Q(10) ** 60, 1 - v[0])


def maxmin(f, a, b, want_max, nan_wins):
    x, y = f.decode(a), f.decode(b)
    if x is NAN or y is NAN:
        if nan_wins or (x is NAN and y is NAN):
            return 0x7fff
        return b if x is NAN else a
    bigger = key(x) > key(y)
    return a if bigger == want_max else b


def compare(f, a, b):
    x, y = f.decode(a), f.decode(b)
    if x is NAN or y is NAN:
        ordered = [False] * 6
        unordered = True
    else:
        p, q = key(x)[0], key(y)[0]
        ordered = [p == q, p != q, p < q, p <= q, p > q, p >= q]
        unordered = False
    # eq ne lt le gt ge, then the unordered forms: true on NaN, else the ordered result
    bits = ordered + [unordered or o for o in ordered]
    return '%03x' % sum(1 << i for i, t in enumerate(bits) if t)


def float_value(x):
    """A Python float (a double) as a value; exact."""
    if x != x:
        return NAN
    sign = 1 if struct.pack('>d', x)[0] & 0x80 else 0
    if x in (float('inf'), float('-inf')):
        return (sign, 'inf')
    return (sign, abs(Q(x)))


def f32(bits):
    return struct.unpack('>f', struct.pack('>I', bits))[0]


def f32_bits_of(value):
    if value is NAN:
        return 'nan'
    x = float('inf') if value[1] == 'inf' else float(value[1])
    return '%08x' % struct.unpack('>I', struct.pack('>f', -x if value[0] else x))[0]


def to_int(f, bits, mode):
    v = f.decode(bits)
    if v is NAN:
        r = 0
    elif v[1] == 'inf':
        r = -2 ** 31 if v[0] else 2 ** 31 - 1
    else:
        s = signed(v)
        fl = s.numerator // s.denominator  # floor
        frac = s - fl
        if frac == 0 or mode == 'rd':
            r = fl
        elif mode == 'ru':
            r = fl + 1
        elif mode == 'rz':
            r = fl + 1 if s < 0 else fl
        else:
            r = fl + 1 if frac > Q(1, 2) or (frac == Q(1, 2) and fl % 2) else fl
        r = max(-2 ** 31, min(2 ** 31 - 1, r))
    return '%08x' % (r & 0xffffffff)


MODES = ('rn', 'rz', 'rd', 'ru')


class Cases:
    def __init__(self):
        self.lines = []
        self.stats = {}

    def add(self, f, op, a, b, c, results, kind=None):
        operands = [x for x in (a, b, c) if x is not None]
        self.lines.append(' '.join([f.tag, op] + operands + [f.hexs(r) for r in results]))
        s = self.stats.setdefault((f.tag, op), {'cases': 0})
        s['cases'] += 1
        if kind:
            s[kind] = s.get(kind, 0) + 1


def classify(f, value, bits):
    """What a rounding case shows: a tie, a subnormal, an overflow, -0, NaN."""
    if value is NAN:
        return 'nan'
    sign, mag = value
    if mag == 'inf':
        return None
    if bits & 0x7fff == f.inf:
        return 'overflow'
    if mag == 0:
        return 'neg zero' if sign else None
    i = bisect.bisect_left(f.values, mag)
    if f.values[i] != mag and i > 0 and mag - f.values[i - 1] == f.values[i] - mag:
        return 'tie'
    if bits & 0x7fff < (1 << f.man):
        return 'subnormal'
    return None


def specials(f):
    """Values every operation meets: zeros, subnormals, the largest, inf, NaN, ..."""
    top = f.inf - 1
    one = f.one
    return [0x0000, 0x8000, 0x0001, 0x8001, (1 << f.man) - 1, 1 << f.man, one, one | 0x8000,
            one + 1, one - 1, one + (1 << f.man), top, top | 0x8000, f.inf, f.inf | 0x8000,
            0x7e00 if f is HALF else 0x7fc0, 0xfe01 if f is HALF else 0xffc1]


def finite_random(f, rng, lo_exp=None, hi_exp=None):
    while True:
        e = rng.randrange(lo_exp if lo_exp is not None else 0,
                          (hi_exp if hi_exp is not None else (1 << f.exp) - 2) + 1)
        bits = rng.getrandbits(1) << 15 | e << f.man | rng.getrandbits(f.man)
        if bits & 0x7fff < f.inf:
            return bits


def near(f, rng, a, spread):
    """A finite value whose exponent is within spread of a's (sums then tie often)."""
    e = (a >> f.man) & ((1 << f.exp) - 1)
    return finite_random(f, rng, max(0, e - spread), min((1 << f.exp) - 2, e + spread))


def pairs(f, rng):
    sp = specials(f)
    out = [(a, b) for a in sp for b in sp]
    for _ in range(60):
        out.append((finite_random(f, rng), finite_random(f, rng)))
    for _ in range(60):
        a = finite_random(f, rng)
        out.append((a, near(f, rng, a, f.man + 2)))
    for _ in range(20):  # subnormal results
        out.append((finite_random(f, rng, 0, 3), finite_random(f, rng, 0, 3)))
    for i in range(20):  # overflow (of sums and differences: signs alike, then opposite)
        top = (1 << f.exp) - 2
        a = finite_random(f, rng, top - 1, top)
        out.append((a, finite_random(f, rng, top - 1, top) & 0x7fff | (a ^ i << 15) & 0x8000))
    return out


def tie_pairs(f, rng, op, want, limit=200000):
    """Pairs whose exact result lies halfway between two neighbours (found by search)."""
    out = []
    for _ in range(limit):
        if len(out) >= want:
            break
        a = finite_random(f, rng, f.bias - 4, f.bias + 4)
        b = near(f, rng, a, f.man + 1) if op is add else finite_random(f, rng, f.bias - 4, f.bias + 4)
        v = op(f.decode(a), f.decode(b))
        if classify(f, v, f.round(v)) == 'tie':
            out.append((a, b))
    return out


def binary(cases, f, rng):
    ops = [('add', add), ('sub', lambda x, y: add(x, neg(y))), ('mul', mul), ('div', div)]
    base = pairs(f, rng)
    for name, op in ops:
        extra = tie_pairs(f, rng, add if name in ('add', 'sub') else mul, 40) if name != 'div' else []
        if name == 'sub':
            extra = [(a, b ^ 0x8000) for a, b in extra]
        for a, b in base + extra:
            v = op(f.decode(a), f.decode(b))
            r = f.round(v)
            cases.add(f, name, '%04x' % a, '%04x' % b, None, [r], classify(f, v, r if r != 'nan' else 0))
    for name, op in ops[:3]:  # the saturating forms: a sample
        for a, b in base[::12]:
            r = f.round(op(f.decode(a), f.decode(b)))
            cases.add(f, name + '_sat', '%04x' % a, '%04x' % b, None, [sat(f, r)])


def ternary(cases, f, rng):
    sp = specials(f)[:11] + [f.inf, f.inf | 0x8000, 0x7e00 if f is HALF else 0x7fc0]
    triples = [(a, b, c) for a in sp[::3] for b in sp[1::3] for c in sp]
    for _ in range(120):
        triples.append((finite_random(f, rng), finite_random(f, rng), finite_random(f, rng)))
    for _ in range(100):  # products and addends of similar size: ties and cancellations
        a, b = finite_random(f, rng, f.bias - 3, f.bias + 3), finite_random(f, rng, f.bias - 3, f.bias + 3)
        c = near(f, rng, f.round(mul(f.decode(a), f.decode(b))) & 0x7fff, 4) | rng.getrandbits(1) << 15
        triples.append((a, b, c))
    found = 0
    while found < 40:  # exact ties: a*b + c halfway between two neighbours
        a = finite_random(f, rng, f.bias - 2, f.bias + 2) & ~((1 << (f.man - 2)) - 1)
        b = finite_random(f, rng, f.bias - 2, f.bias + 2) & ~((1 << (f.man - 2)) - 1)
        c = finite_random(f, rng, f.bias - f.man - 4, f.bias - f.man + 4) & ~((1 << (f.man - 2)) - 1)
        v = fma(f.decode(a), f.decode(b), f.decode(c))
        if classify(f, v, f.round(v)) == 'tie':
            triples.append((a, b, c))
            found += 1
    # products exactly halfway between two neighbours, plus a tiny addend: the
    # exact sum is just off the tie, which rounding the sum to float first
    # (a double rounding) would land on
    for a, b in tie_pairs(f, rng, mul, 30):
        tiny = rng.choice([0x0001, 0x0002, 0x0003, 1 << f.man])
        triples.append((a, b, tiny | rng.getrandbits(1) << 15))
    for a, b, c in triples:
        v = fma(f.decode(a), f.decode(b), f.decode(c))
        r = f.round(v)
        cases.add(f, 'fma', '%04x' % a, '%04x' % b, '%04x' % c, [r], classify(f, v, r if r != 'nan' else 0))
    for a, b, c in triples[::10]:
        cases.add(f, 'fma_sat', '%04x' % a, '%04x' % b, '%04x' % c, [sat(f, f.round(fma(*map(f.decode, (a, b, c)))))])


def unary_and_compare(cases, f, rng):
    values = specials(f) + [finite_random(f, rng) for _ in range(12)]
    for a in values:
        x = f.decode(a)
        cases.add(f, 'neg', '%04x' % a, None, None, ['nan' if x is NAN else a ^ 0x8000])
        cases.add(f, 'abs', '%04x' % a, None, None, ['nan' if x is NAN else a & 0x7fff])
        cases.add(f, 'h2f', '%04x' % a, None, None, [f32_bits_of(x)])
    for a in specials(f):
        for b in specials(f):
            cases.add(f, 'cmp', '%04x' % a, '%04x' % b, None, [compare(f, a, b)])
            cases.add(f, 'maxmin', '%04x' % a, '%04x' % b, None,
                      [maxmin(f, a, b, want_max, nan_wins) for want_max, nan_wins in ((1, 0), (0, 0), (1, 1), (0, 1))])


def conversions(cases, f, rng):
    floats = [0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001,
              0x7fbfffff, 0xff800001, 0x7f801000, 0x7f810000, 0x3f800000, 0xbf800000, 0x00000001,
              0x80000001, 0x7f7fffff, 0xff7fffff, 0x33800000]
    for b in range(0, 1 << 15, 601):  # every neighbourhood of the type's values
        v = f.decode(b)
        if v is NAN or v[1] == 'inf':
            continue
        lo = f.decode(b)[1]
        hi = f.decode(b + 1)[1] if b + 1 < f.inf else f.values[-1]
        mid = (lo + hi) / 2
        for x in (lo, mid):
            bits = struct.unpack('>I', struct.pack('>f', float(x)))[0]
            if f32(bits) == x:  # exactly representable: a value, a tie
                floats += [bits, bits + 1, bits - 1 if bits else 0, bits | 0x80000000]
    top, beyond = f.values[f.inf - 1], f.values[-1]
    for x in (top, (top + beyond) / 2):  # the largest finite value, and where inf begins
        bits = struct.unpack('>I', struct.pack('>f', float(x)))[0]
        floats += [bits, bits + 1, bits - 1, bits | 0x80000000, (bits + 1) | 0x80000000]
    for _ in range(150):
        floats.append(rng.getrandbits(32))
    for bits in floats:
        x = f32(bits)
        v = float_value(x)
        rs = [f.round(v, m) for m in MODES]
        cases.add(f, 'f2h', '%08x' % bits, None, None, rs, classify(f, v, rs[0] if rs[0] != 'nan' else 0))
    doubles = [struct.unpack('>Q', struct.pack('>d', d))[0] for d in
               (0.0, -0.0, 1.0, 1 / 3, -2 / 3, 1e-300, 65519.99999999, 65520.0, 1e300, float('inf'))]
    for b in floats[18:200:3]:  # a float's neighbourhood, with bits below float's precision
        d = struct.unpack('>Q', struct.pack('>d', f32(b)))[0]
        doubles += [d + 1, d - 1 if d & 0x7fffffffffffffff else d]
    for d in doubles:
        x = struct.unpack('>d', struct.pack('>Q', d))[0]
        cases.add(f, 'd2h', '%016x' % d, None, None, [f.round(float_value(x))])
    ints = [0, 1, -1, 2, 3, 255, 256, 257, 2047, 2049, 2051, 4097, 65504, 65519, 65520, 65536,
            2 ** 24 + 1, 2 ** 24 + 2 ** 16 + 1, 2 ** 31 - 1, -2 ** 31, -65521]
    ints += [rng.randrange(-2 ** 31, 2 ** 31) >> rng.randrange(0, 31) for _ in range(80)]
    for i in ints:
        cases.add(f, 'i2h', '%08x' % (i & 0xffffffff), None, None, [f.round(num(Q(i)), m) for m in MODES])
    for a in specials(f) + [finite_random(f, rng, f.bias - 2, f.bias + 33) for _ in range(80)]:
        cases.add(f, 'h2i', '%04x' % a, None, None, [to_int(f, a, m) for m in MODES])


def numpy_check(lines):
    """Half cases against numpy's float16, where numpy is installed: the count checked."""
    try:
        import numpy as np
    except ImportError:
        return 0
    checked = 0
    with np.errstate(all='ignore'):
        for line in lines:
            t, op, *f = line.split()
            if t != 'h' or op not in ('f2h', 'add', 'sub', 'mul', 'div') or f[-1] == 'nan':
                continue
            if op == 'f2h':
                want = f[1]
                got = np.array([int(f[0], 16)], np.uint32).view(np.float32).astype(np.float16)
            else:
                want = f[2]
                x, y = (np.array([int(v, 16)], np.uint16).view(np.float16) for v in f[:2])
                got = {'add': x + y, 'sub': x - y, 'mul': x * y, 'div': x / y}[op]
            g = int(got.view(np.uint16)[0])
            if g & 0x7fff > 0x7c00 or g != int(want, 16):
                sys.exit('numpy disagrees: %s gives %04x' % (line, g))
            checked += 1
    return checked


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'fixtures')
    rng = random.Random(28)
    cases = Cases()
    for f in (HALF, BF16):
        binary(cases, f, rng)
        ternary(cases, f, rng)
        unary_and_compare(cases, f, rng)
        conversions(cases, f, rng)
    for (tag, op), s in sorted(cases.stats.items()):
        if op in ('add', 'sub', 'mul', 'fma', 'f2h'):
            for kind, least in (('tie', 5), ('subnormal', 5), ('overflow', 5), ('nan', 5), ('neg zero', 1)):
                if s.get(kind, 0) < least:
                    sys.exit('too few %s cases for %s %s: %s' % (kind, tag, op, s))
    path = os.path.join(out_dir, 'half_ops.txt')
    with open(path, 'w') as fh:
        fh.write('# Generated by tests/gen_fixtures_half_ops.py; do not edit (format: see there).\n')
        fh.write('\n'.join(cases.lines) + '\n')
    print('%s: %d cases; numpy agrees on %d half cases' % (path, len(cases.lines), numpy_check(cases.lines)))
    for (tag, op), s in sorted(cases.stats.items()):
        print('  %s %-8s %s' % (tag, op, ', '.join('%s %d' % kv for kv in sorted(s.items()))))


if __name__ == '__main__':
    main()
