#!/usr/bin/env bash
# cli.sh LESSON37: lesson37's file arguments as a careless or hostile user gives them.
#
# --resume, --config and --data given a FIFO (with no writer, or with one that has sent
# a few bytes and stalls), a socket or a folder must be refused within a second (of what
# refusing a missing file takes), with
# one line naming the file and what it is; a plot data file that is a symbolic link is
# refused before the training, and the file it points to is left as it was; a file name
# holding a right-to-left override is shown escaped ("\u202e") in "Resuming from" as in
# the refusal, never raw. Every run has a timeout: a hang fails, it does not stop make test.
set -uo pipefail
bin=$(cd "$(dirname "${1:?usage: cli.sh LESSON37}")" && pwd)/$(basename "$1")
dir=$(mktemp -d)
writer=
trap '[ -n "$writer" ] && kill "$writer" 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir" || exit 2
fail=0
n=0

# What lesson37 takes to start and refuse a file that is not there: the time a refusal
# may take beside its second (on a busy machine starting a program alone can take one).
ms_of() {
    local t0=${EPOCHREALTIME/./}
    timeout 10 "$bin" "$@" --no-plot --quiet >/dev/null 2>&1
    echo $(((${EPOCHREALTIME/./} - t0) / 1000))
}
start_ms=$(ms_of --part 5 --resume no-such-file)
limit=$((start_ms + 1000))

# check NAME WANT ARGS...: lesson37 ARGS exits with status 2 within a second of what it
# takes to refuse a missing file, and its output holds WANT.
check() {
    local name=$1 want=$2 out rc t0 ms
    shift 2
    t0=${EPOCHREALTIME/./}
    out=$(timeout 10 "$bin" "$@" --no-plot --quiet 2>&1)
    rc=$?
    ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
    n=$((n + 1))
    if [ "$rc" -ne 2 ] || [[ "$out" != *"$want"* ]] || [ "$ms" -ge "$limit" ]; then
        echo "FAIL: $name: status $rc after $ms ms (expected 2, under $limit ms: a second" \
             "more than the $start_ms ms a missing file takes), output:"
        echo "$out" | tail -5
        echo "  expected it to hold: $want"
        fail=1
    fi
}

mkfifo fifo
check "--resume FIFO" "fifo: cannot read it as a checkpoint: it is a FIFO (named pipe), not a regular file" \
    --part 5 --resume fifo
check "--config FIFO" "fifo: cannot read it as an experiment config: it is a FIFO (named pipe)" \
    --part 5 --config fifo
check "--data FIFO" "fifo: cannot read it as a CSV file: it is a FIFO (named pipe)" \
    --part 1 --data fifo

# A writer that has sent a few bytes and stalls (a read-write open does not wait for a reader).
mkfifo stalled
exec 3<>stalled
printf '{"epochs": 3,' >&3
check "--config FIFO with a stalled writer" "stalled: cannot read it as an experiment config: it is a FIFO" \
    --part 5 --config stalled
check "--resume FIFO with a stalled writer" "stalled: cannot read it as a checkpoint: it is a FIFO" \
    --part 5 --resume stalled
exec 3>&-

python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind("sock")'
check "--resume socket" "sock: cannot read it as a checkpoint: it is a socket" --part 5 --resume sock
mkdir folder
check "--config folder" "folder: cannot read it as an experiment config: it is a directory" \
    --part 5 --config folder

# A right-to-left override in a name: escaped where it is printed, never raw.
rlo=$(printf 'ev\xe2\x80\xaeil.safetensors')
printf 'not a checkpoint' >"$rlo"
check "--resume with U+202E in its name" 'Resuming from ev\u202eil.safetensors' --part 5 --resume "$rlo"
out=$(timeout 10 "$bin" --part 5 --resume "$rlo" --no-plot --quiet 2>&1)
n=$((n + 1))
if [[ "$out" == *$'\xe2\x80\xae'* ]] || [[ "$out" != *'ev\u202eil.safetensors: '* ]]; then
    echo "FAIL: a name holding U+202E was printed raw, or its refusal does not name it escaped:"
    echo "$out" | tail -3
    fail=1
fi

# The plot data of Part 1 is checked before the training: a link there is refused, and
# the file it points to keeps its contents.
mkdir plots
printf 'precious\n' >victim
ln -s "$dir/victim" plots/01_losses.dat
check "a plot data file that is a symbolic link" \
    "plots/01_losses.dat: cannot save: it is a symbolic link, not a regular file" --part 1 --out plots
n=$((n + 1))
if [ "$(cat victim)" != precious ] || [ ! -L plots/01_losses.dat ]; then
    echo "FAIL: the link plots/01_losses.dat or the file it points to was changed"
    fail=1
fi

if [ "$fail" -ne 0 ]; then
    echo "lesson37's file arguments: failures above"
    exit 1
fi
echo "  lesson37's file arguments: $n checks (FIFOs, a socket, a folder, a link, an invisible"
echo "  character in a name), each refused within a second with one line naming the file"
