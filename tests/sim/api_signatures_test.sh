#!/usr/bin/env bash
# make test (where a CUDA toolkit's headers are): the simulator's runtime API
# is the installed toolkit's.
#  - every function the simulator declares (but those it declares only to
#    refuse) has the toolkit's type, parameter by parameter (typeid of a
#    pointer to it, compiled once against each set of headers);
#  - every enumerator and flag it defines has the toolkit's value;
#  - what it declares as removed (cudasim_removed.h) is absent from the
#    toolkit's headers, so the refusal is as nvcc's.
# usage: api_signatures_test.sh TOOLKIT_INCLUDE_DIR BUILD_ROOT
set -u
toolkit=${1:?usage: api_signatures_test.sh TOOLKIT_INCLUDE_DIR BUILD_ROOT}
root=${2:?usage: api_signatures_test.sh TOOLKIT_INCLUDE_DIR BUILD_ROOT}
cd "$(dirname "$0")/../.."
sim=lib/cudasim/include
mkdir -p "$root"
tmp=$(mktemp -d "$(realpath "$root")/api-signatures.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL runtime API against $toolkit: $*"; failed=1; }
api_headers=("$sim/cuda_runtime_api.h" "$sim"/cudasim_*.h "$sim/cuda_profiler_api.h")

removed=" $(grep -ohE '^cudaError_t cuda[A-Z]\w*\(' "$sim/cudasim_removed.h" | grep -oE 'cuda[A-Z]\w*\(' | tr -d '(' | tr '\n' ' ') "
functions=()
for f in $(grep -ohE '^(static inline )?(cudaError_t|const char \*)\s*cuda\w+\(' "${api_headers[@]}" |
           grep -oE 'cuda[A-Z]\w*\(' | tr -d '(' | sort -u); do
    case $removed in *" $f "*) ;; *) functions+=("$f") ;; esac
done
# Enumerators (NAME = value inside an enum) and flags (#define NAME value).
names=$(sed -n -e 's/^ *\(cuda[A-Z][A-Za-z0-9_]*\) *= *[-0-9x(].*/\1/p' \
               -e 's/^#define \(cuda[A-Z][A-Za-z0-9_]*\) [(0-9].*/\1/p' "${api_headers[@]}" | sort -u)

{
    echo '#include <cuda_runtime_api.h>'
    echo '#include <cuda_profiler_api.h>'
    echo '#include <cstdio>'
    echo '#include <typeinfo>'
    echo 'int main() {'
    for f in "${functions[@]}"; do
        echo "    std::printf(\"%s %s\\n\", \"$f\", typeid(decltype(&::$f)).name());"
    done
    for n in $names CUDART_VERSION; do
        echo "    std::printf(\"%s %lld\\n\", \"$n\", (long long)($n));"
    done
    echo '    return 0;'
    echo '}'
} > "$tmp/api.cpp"
g++ -std=c++17 -I "$sim" "$tmp/api.cpp" -o "$tmp/sim" 2> "$tmp/sim.err" ||
    fail "the test does not compile against the simulator's headers: $(head -5 "$tmp/sim.err")"
g++ -std=c++17 -I "$toolkit" "$tmp/api.cpp" -o "$tmp/real" 2> "$tmp/real.err" ||
    fail "what the simulator declares, the toolkit does not: $(grep -m8 error "$tmp/real.err")"
if [ $failed = 0 ]; then
    "$tmp/sim" > "$tmp/sim.txt"
    "$tmp/real" > "$tmp/real.txt"
    diff "$tmp/real.txt" "$tmp/sim.txt" > "$tmp/diff" ||
        fail "types or values differ (< the toolkit's, > the simulator's): $(cat "$tmp/diff")"
fi

# The removed: each one an error with the toolkit's headers too.
{
    echo '#include <cuda_runtime_api.h>'
    echo '#include <cuda_profiler_api.h>'
    for f in $removed; do echo "auto *p_$f = &::$f;"; done
} > "$tmp/removed.cpp"
g++ -std=c++17 -fsyntax-only -I "$toolkit" "$tmp/removed.cpp" 2> "$tmp/removed.err"
for f in $removed; do
    grep -q "::$f' has not been declared\|::$f. has not been declared" "$tmp/removed.err" ||
        fail "$f is declared removed, but the toolkit's headers have it"
done

[ $failed = 0 ] && echo " ok   runtime API: ${#functions[@]} functions and $(echo $names | wc -w) constants as the toolkit's; $(echo $removed | wc -w) removed calls absent from it"
exit $failed
