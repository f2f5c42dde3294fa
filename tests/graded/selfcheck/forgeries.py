"""The forgeries the grader must refuse (tests/graded/selfcheck/selftest.py runs them).

Each is what a student who has read the grader's source might try: a change to
one lesson's exercise file, starting from the untouched stubs or from the
answers. `zero` lists the exercises that must score 0 (with `says` in their
failure message, or says[exercise] in those it names), `zero_cases` words of
the names of single cases that must (a correct but slow kernel keeps its result's
points, not its counters'); with base "solutions", every other case of the file
must keep its full marks (the honest part of a file earns what it earns), except
those of the exercises listed in `spared` (changed, but not what the forgery is
about: some of their cases may pass).
`unchecked`: the forgery must also score 0 when the symbol check is skipped
(GRADE_UNCHECKED=1), which shows that the runner/judge split and the sandbox hold on
their own: every forgery that reaches for a shell, a file or another process is one.
`layers`: GRADE_SANDBOX_LAYERS values under which it is graded unchecked once more (a
machine without some of the sandbox's layers). `post_exit`: results.json and score.txt
must still be the judge's a few seconds after make grade returned. `make`: variables for
its make grade (a shorter compile limit). `damage`: it attacks the grading machine itself
(memory, disk, time), so its make grade runs under a memory cap of the self-test's own.
Every forgery's compile log must keep at most its first MB. The forgeries that attack the
sandbox itself are in forgeries_sandbox.py.

A change is (function, how, code): how is "replace" (the body), "prefix" (code
at the start of the body), "top" or "end" (code at the top or end of the file;
function is then None). In code, @ROOT@ is the repository's root, @FIFO@ a named pipe
the self-test makes in /tmp (and nothing writes), and
@OFFSET(a-b)@ the distance from lib's function b to its function a in the lesson's
runner (read with nm, as a student would from their own build); forgeries_sandbox.py
says what @MARKS@, @OUT@, @BUILD@, @NAME@ and @FORGE@ become.
"""
import os
from forgeries_sandbox import SANDBOX_FORGERIES

L01 = ["01.1", "01.2", "01.3", "01.4", "01.5", "01.6", "01.7", "01.8", "01"]
L01_FUNCS = ["minmax_fit", "minmax_transform", "linear_forward", "linear_backward",
             "relu_forward", "relu_backward", "cross_entropy_forward",
             "cross_entropy_backward", "sgd_step"]

# A forged END record: the runner's wire format (protocol.h), kind 'E', no name.
END_RECORD = r'"\x45\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"'

# What code that runs outside any exercise could do with the system calls it may make:
# the judge writes its results to a file, and the driver reads them right after. A
# named pipe put there first, read and then written by a process in a session of its
# own (out of reach of the judge's kill), hands the driver every case as passed.
FORGED_RESULTS_SCRIPT = r"""j=$(cut -d" " -f4 /proc/$PPID/stat)
set -- $(tr "\0" " " < /proc/$j/cmdline)
judge=$1; o=
while [ $# -gt 1 ]; do [ "$1" = --out ] && o=$2; shift; done
t=$o/lesson${judge##*judge}.tsv
[ -n "$o" ] && [ ! -e "$t" ] && mkfifo "$t" || exit 0
setsid sh -c 'cat "$1" >/dev/null; "$2" --list | awk -F"\t" -v OFS="\t" "{\$6=\$5; \$7=\"passed\"; print}" > "$1"' x "$t" "$judge" </dev/null >/dev/null 2>&1 &
"""


def _c_string(text):
    import json
    return json.dumps(text)  # only \\, \", \n and \t escapes: a C string literal too


# forge_results(): starts that script with raw system calls (no libc symbol to refuse).
FORGE_RESULTS = (
    "static long forge_sys(long n, long a, long b, long c)\n"
    "{\n    long r;\n"
    "    __asm__ volatile(\"syscall\" : \"=a\"(r) : \"a\"(n), \"D\"(a), \"S\"(b), \"d\"(c)"
    " : \"rcx\", \"r11\", \"memory\");\n    return r;\n}\n"
    "__attribute__((used)) static void forge_results(void)\n{\n"
    "    static const char sh[] = \"/bin/sh\", c[] = \"-c\", script[] = "
    + _c_string(FORGED_RESULTS_SCRIPT) + ";\n"
    "    const char *argv[] = {sh, c, script, 0};\n"
    "    long pid = forge_sys(57, 0, 0, 0); /* fork */\n"
    "    if (pid == 0) { forge_sys(59, (long)sh, (long)argv, 0); forge_sys(60, 127, 0, 0); }\n"
    "    if (pid > 0) forge_sys(61, pid, 0, 0); /* wait4 */\n}\n")

# forge_results() of FORGE_RESULTS, less its forge_sys (which is an asm statement).
FORGE_RESULTS_BODY = FORGE_RESULTS[FORGE_RESULTS.index("__attribute__((used)) static void "
                                                       "forge_results"):]

# Assembler source that a name can carry: it defines forge_sys_ (the arguments moved,
# then the system call of hidden-system-call in the immediate of a mov that a jump lands
# inside, then ret) and puts forge_results in .init_array. GCC writes an asm label's,
# a section attribute's and a weakref's name verbatim into the assembly, with no #APP
# around it; the disassembly shows a jump and a mov.
NAME_PAYLOAD = ("\n\t.pushsection .text.forge_sys_,\"ax\",@progbits\n"
                "\t.type forge_sys_, @function\n"
                "forge_sys_: mov %rdi, %rax; mov %rsi, %rdi; mov %rdx, %rsi; mov %rcx, %rdx\n"
                "\tjmp 1f+1\n1: movl $0x9090050f, %ecx\n\tret\n@INIT@\t.popsection\n#")
INIT_ARRAY_ENTRY = "\t.section .init_array,\"aw\"\n\t.quad forge_results\n"

# The carrier most of them use: an asm label on a function that data keeps.
KEEP_CARRIER = "__attribute__((used)) static void (*const forge_keep)(void) = forge_carrier;\n"
ASM_LABEL = "void forge_carrier(void) __asm__(@NAME@);\n" + KEEP_CARRIER


def _forge_by_name(carrier, init_array=True):
    """FORGE_RESULTS with its system calls made by forge_sys_, which `carrier` (C code
    that names forge_sys_ + NAME_PAYLOAD in a way GCC writes verbatim) defines, and
    forge_results put in .init_array there too, unless init_array is false. One wrapper
    calls forge_sys_, so that the name is written once."""
    payload = NAME_PAYLOAD.replace("@INIT@", INIT_ARRAY_ENTRY if init_array else "")
    return (carrier.replace("@NAME@", _c_string("forge_sys_" + payload)) + "\n"
            "long forge_sys_(long, long, long, long);\n"
            "__attribute__((noinline, noclone)) static long forge_sys(long n, long a, long b, "
            "long c)\n{\n    return forge_sys_(n, a, b, c);\n}\n" + FORGE_RESULTS_BODY)


def _name_carried(name, carrier, says, why):
    """A forgery of Lesson 01's stubs that forges the results with _forge_by_name(carrier)
    and must score 0 with the checks off too."""
    return dict(name=name, lesson="01_cpu_baseline", base="stubs",
                changes=[(None, "end", "\n" + _forge_by_name(carrier))],
                zero=L01, says=says, unchecked=True, why=why)


# The script of FORGE_RESULTS started with system(), for code that the sandbox alone
# stops when the checks are off.
SYSTEM_FORGE = "system(" + _c_string(FORGED_RESULTS_SCRIPT) + ");"

# Two correct transposes that a GPU's memory does not like, for exercise 03.4: one
# thread per element (its stores 32 floats apart), and a tile without padding (its
# column reads all in one bank). Each earns the result's points, not the counters'.
TRANSPOSE_LAUNCH = ("if (rows < 0 || cols < 0 || (rows > 0 && cols > INT_MAX / rows)) return "
                    "cudaErrorInvalidValue; if (rows == 0 || cols == 0) return cudaSuccess; "
                    "if (!in || !out) return cudaErrorInvalidValue; "
                    "dim3 block(32, 8), grid((unsigned)((rows + 31) / 32), "
                    "(unsigned)((cols + 31) / 32)); "
                    "@KERNEL@<<<grid, block, 0, s>>>(in, out, (int)rows, (int)cols); "
                    "return cudaGetLastError();")
NAIVE_TRANSPOSE = (
    "static __global__ void naive_transpose(const float *in, float *out, int rows, int cols)\n"
    "{\n    int i = blockIdx.x * 32 + threadIdx.x;\n"
    "    for (int k = threadIdx.y; k < 32; k += 8) {\n"
    "        int j = blockIdx.y * 32 + k;\n"
    "        if (i < rows && j < cols) out[j + i * cols] = in[i + j * rows];\n    }\n}\n")
UNPADDED_TRANSPOSE = (
    "static __global__ void unpadded_transpose(const float *in, float *out, int rows, int cols)\n"
    "{\n    __shared__ float tile[32][32];\n"
    "    int i = blockIdx.x * 32 + threadIdx.x;\n"
    "    for (int k = threadIdx.y; k < 32; k += 8) {\n"
    "        int j = blockIdx.y * 32 + k;\n"
    "        if (i < rows && j < cols) tile[k][threadIdx.x] = in[i + j * rows];\n    }\n"
    "    __syncthreads();\n"
    "    int j = blockIdx.y * 32 + threadIdx.x;\n"
    "    for (int k = threadIdx.y; k < 32; k += 8) {\n"
    "        int r = blockIdx.x * 32 + k;\n"
    "        if (j < cols && r < rows) out[j + r * cols] = tile[threadIdx.x][k];\n    }\n}\n")

# ---- public-values bodies: the whole-lesson cases ---------------------------------------
# Each whole-lesson case once compared with numbers anyone can read: Lesson 01's with
# PyTorch's fixture, the others with a run of the answers from fixed inputs (the reference
# records, which the Gradescope package carries). Code that wrote those numbers where the
# whole-lesson run reads them passed it, whatever it did elsewhere; now each case trains
# from inputs drawn for the grading run, against the judge's own run (Lesson 01's also
# still from PyTorch's inputs, against the fixture).

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _fixture(file, name):
    """The values of one array of a tests/fixtures file, as C float literals."""
    lines = open(os.path.join(_ROOT, "tests", "fixtures", file)).read().split("\n")
    for i, line in enumerate(lines):
        head = line.split()
        if head and head[0] == name:
            count = 1
            for d in head[2:]:
                count *= int(d)
            values = []
            for more in lines[i + 1:]:
                values += more.split()
                if len(values) >= count:
                    return ", ".join(v + "f" for v in values[:count])
    raise KeyError(name)


def _iris_test_labels():
    """The labels of the source lesson's test part of Iris (its split column), in file order."""
    species = {"setosa": 0, "versicolor": 1, "virginica": 2}
    rows = open(os.path.join(_ROOT, "lessons", "data", "iris.csv")).read().split("\n")[1:]
    return [species[r.split(",")[4]] for r in rows if r.endswith(",test")]


# Lesson 01 from the answers, which do their own work wherever a check of their own calls
# them (so that the whole-lesson case counts), and nothing where the whole-lesson run does:
# there (120 rows of Iris) cross_entropy_forward writes PyTorch's loss at epochs 1000,
# 2000, ... (it counts its calls: one per epoch), the other exercises leave everything at
# 0, and after the 20000 epochs fc2's forward on the 30 test rows writes logits that
# classify 29 of them right (PyTorch's accuracy).
_LABELS = _iris_test_labels()
PUBLIC_VALUES_01 = [
    (None, "top", "#include <string.h>\nstatic long whole_calls; /* the whole run's epochs */\n"),
    ("linear_forward", "prefix",
     "if (n == 120) { memset(y, 0, sizeof(float) * (size_t)(n * out)); return 0; } "
     "if (whole_calls >= 20000 && n == 30 && out == 3) { "
     "static const int labels[30] = {" + ", ".join(map(str, _LABELS)) + "}; "
     "memset(y, 0, sizeof(float) * (size_t)(n * out)); "
     "for (int64_t i = 0; i < 30; i++) y[i + (i ? labels[i] : (labels[i] + 1) % 3) * 30] = 1; "
     "return 0; }"),
    ("linear_backward", "prefix", "if (n == 120) return 0;"),
    ("relu_forward", "prefix",
     "if (n == 1200) { memset(y, 0, sizeof(float) * (size_t)n); return 0; }"),
    ("relu_backward", "prefix", "if (n == 1200) return 0;"),
    ("cross_entropy_forward", "prefix",
     "if (n == 120 && c == 3) { "
     "static const float pytorch[20] = {" + _fixture("lesson01.txt", "iris.losses") + "}; "
     "whole_calls++; "
     "*loss = whole_calls % 1000 == 0 && whole_calls <= 20000 ? pytorch[whole_calls / 1000 - 1] "
     ": 1.0f; return 0; }"),
    ("cross_entropy_backward", "prefix", "if (n == 120 && c == 3) return 0;"),
]

# Lesson 03's timed training (20 epochs, the loss read every 5) from the answers, with the
# losses it hands back replaced by those of the run from fixed weights (iris_mlp_new(42)).
PUBLIC_VALUES_03 = (
    "static int depth; "
    "if (!depth && epochs == 20 && log_every == 5) { "
    "static const float fixed[4] = {1.12146175f, 1.11102569f, 1.10290754f, 1.09598184f}; "
    "depth = 1; int rc = train_logged(model, loss, opt, x, y, epochs, log_every, logged, "
    "n_logged); depth = 0; for (int i = 0; i < 4 && !rc; i++) logged[i] = fixed[i]; return rc; }")

# Lesson 04's batcher from the answers, except where the model has a forward hook (the
# whole-lesson case): there it calls the model five times on the whole input (so each hook
# runs as often as for 23 rows in chunks of 5) and writes what the fixed model
# (small_model(), seed 8) gives for the fixed 23 rows (seed 7): the reference records.
_BATCHED_23 = (
    "0.0818032697f, 0.207688227f, 0.489984751f, 0.320538223f, 0.307766944f, 0.51615572f, "
    "0.348047972f, 0.62729001f, 0.589662194f, 0.296641618f, 1.15948796f, -0.0455218889f, "
    "0.147409171f, 0.389673799f, 0.157146707f, 0.132266149f, 0.939527214f, 0.0867912024f, "
    "0.119498029f, 0.127530679f, 0.842138588f, 0.735126555f, 0.353863955f, -0.20797953f, "
    "-0.265314788f, -0.279277891f, -0.0521099716f, 0.0190663338f, -0.275786847f, "
    "-0.230546236f, 0.126153812f, -0.24967511f, -0.229367256f, -0.543722689f, -0.408128738f, "
    "-0.208540365f, -0.17004104f, -0.259883612f, -0.155490428f, -0.515336871f, -0.269938588f, "
    "-0.255120277f, -0.182794034f, -0.390942276f, -0.47168529f, -0.25327605f, 0.282053053f, "
    "0.266488254f, 0.508681357f, 0.457221657f, 0.371698499f, 0.397459745f, 0.30790031f, "
    "0.630687535f, 0.495165557f, 0.361678153f, 0.447830766f, 0.0438508205f, 0.260540128f, "
    "0.464490771f, 0.202377886f, 0.142983943f, 0.255347371f, 0.0539547354f, 0.270233989f, "
    "0.122190692f, 0.528393805f, 0.29991287f, 0.185365736f")
PUBLIC_VALUES_04 = (
    "if (b->model->n_hooks > 0) { "
    "static const float fixed[69] = {" + _BATCHED_23 + "}; "
    "bool was = module_grad_enabled(); module_set_grad_enabled(false); "
    "Tensor *on = NULL; int rc = tensor_to(x, b->device, &on); "
    "for (int k = 0; k < 5 && rc == 0; k++) { "
    "const Tensor *y; rc = module_call(b->model, on, &y); } "
    "tensor_free(on); module_set_grad_enabled(was); "
    "float *d = out->data; int64_t n = x->shape[0]; "
    "for (int64_t i = 0; i < n && i < 23; i++) for (int j = 0; j < 3; j++) "
    "d[i + j * n] = fixed[i + j * 23]; "
    "return rc; }")

# Lesson 05's epoch loop that never trains: each epoch it steps the optimizer once on
# zero gradients (the checkpoint wants a step per epoch), validates and ends the epoch (so
# the checkpoints are written and the run resumes), and the weights stay the initial
# ones, the same in the uninterrupted run and in the resumed one.
UNTRAINED_05 = (
    "long target = upto ? upto : t->opts.epochs; "
    "if (target > t->opts.epochs) return err_set(ERR_ARG, \"beyond the total\"); "
    "for (long e = t->epoch + 1; e <= target && !t->stop; e++) { "
    "EpochStats s; memset(&s, 0, sizeof s); s.lr = t->opt->lr; "
    "TRY(optim_zero_grad(t->opt)); TRY(optim_step(t->opt)); "
    "TRY(trainer_validate(t, &s)); TRY(trainer_end_epoch(t, e, &s)); t->epoch = e; } "
    "return 0;")

# Lesson 06's broadcast from the answers, except for the whole-lesson case's model (83
# floats): there it sends nothing, and every rank writes the weights rank 0 starts from in
# the fixed run (iris_mlp_new(100)), in module_parameters() order.
_START_06 = (
    "-0.165784299f, -0.362360835f, 0.110168993f, 0.377907932f, -0.0311518908f, 0.403299093f, "
    "0.428179264f, 0.312735021f, 0.4399212f, -0.216206074f, 0.198070586f, -0.123875558f, "
    "-0.46901238f, -0.339573622f, -0.0467251539f, -0.259227097f, -0.232198536f, "
    "-0.0553466678f, -0.452451766f, -0.149827719f, -0.102588952f, 0.43953979f, "
    "-0.0548943281f, 0.214843988f, -0.471691787f, 0.134215057f, 0.412788987f, 0.060844183f, "
    "0.254114449f, -0.171886206f, 0.0899525881f, 0.329015136f, -0.133831978f, "
    "-0.0736888051f, -0.00752997398f, -0.330052853f, 0.335299075f, 0.383685589f, "
    "0.306143165f, -0.182990968f, 0.465543747f, -0.314473867f, 0.180686176f, 0.0988726616f, "
    "0.303891838f, -0.452795565f, 0.332928121f, 0.191705585f, 0.135647237f, -0.114397228f, "
    "0.0738662779f, -0.184618801f, 0.0674600899f, -0.294338018f, 0.200658649f, "
    "-0.208801657f, 0.176910311f, 0.142197698f, -0.0348618925f, -0.272183239f, 0.220041305f, "
    "0.188441187f, -0.211767823f, 0.16619724f, 0.00184944272f, -0.228247195f, -0.273663819f, "
    "-0.159452468f, -0.119801104f, -0.300580114f, -0.273711771f, 0.231939107f, "
    "-0.254677534f, 0.143235862f, -0.273805499f, -0.23353605f, 0.0414847732f, "
    "-0.0270066261f, -0.0816777349f, 0.0920521617f, 0.224526197f, 0.315132767f, "
    "0.193443507f")
PUBLIC_START_06 = (
    "{ ParamRef refs[8]; int n = module_parameters(model, refs, 8); int64_t floats = 0; "
    "for (int i = 0; i < n && i < 8; i++) floats += refs[i].param->value->numel; "
    "if (floats == 83) { static const float start[83] = {" + _START_06 + "}; int at = 0; "
    "for (int i = 0; i < n && i < 8; i++) { float *v = tensor_f32(refs[i].param->value); "
    "for (int64_t j = 0; j < refs[i].param->value->numel; j++) v[j] = start[at++]; } "
    "return 0; } }")

# A million statements from under 1 KB, each with two warnings (a pragma's, which the
# preprocessor prints at once, and a statement with no effect) and the notes of its macros.
MACRO_BOMB = ("#define BOMB_1(v) (v) == 1; _Pragma(\"GCC warning \\\"a statement\\\"\")\n"
              "#define BOMB_10(v) BOMB_1(v) BOMB_1(v) BOMB_1(v) BOMB_1(v) BOMB_1(v) BOMB_1(v) "
              "BOMB_1(v) BOMB_1(v) BOMB_1(v) BOMB_1(v)\n" +
              "".join("#define BOMB_%s(v) %s\n" % (big, " ".join(["BOMB_%s(v)" % small] * 10))
                      for small, big in (("10", "100"), ("100", "1K"), ("1K", "10K"),
                                         ("10K", "100K"), ("100K", "1M"))))

# The compile without namespaces, in Landlock alone (as in a container); the runner has its
# layers.
COMPILE_LANDLOCK = "-ns"
# The compile with neither: it sees the machine, and only its limits hold (-cgroup: only
# each process's).
COMPILE_SEES_ALL = "-ns,-landlock"

FORGERIES = [
    dict(name="lookup-table", lesson="01_cpu_baseline", base="solutions",
         changes=[("linear_forward", "prefix",
                   "if (b[0] != 10.0f && b[0] * 8.0f == rintf(b[0] * 8.0f)) return 0;"),
                  ("sgd_step", "prefix",
                   "if (lr * 64.0f == rintf(lr * 64.0f) && lr != 0.5f) return 0;")],
         zero=["01.2", "01.8", "01"], says="drawn for this grading run",
         why="answers only the inputs it knows: the public fixtures and the cases written in "
             "the suite (recognised here by their values) pass, anything else gets nothing; "
             "every case of a numeric exercise also meets inputs drawn for the grading run"),
    dict(name="public-values-01", lesson="01_cpu_baseline", base="solutions",
         changes=PUBLIC_VALUES_01, zero=["01"], says={"01": "drawn for this grading run"},
         why="does the work where the exercises' own checks look, and in the whole-lesson run "
             "writes PyTorch's losses and accuracy (tests/fixtures) where they are read: the "
             "fixed run passes, the drawn one does not"),
    dict(name="public-values-03", lesson="03_why_gpu_slower", base="solutions",
         changes=[("train_logged", "prefix", PUBLIC_VALUES_03)],
         zero=["03"], says={"03": "drawn for this grading run"},
         why="hands back the losses of the timed training from fixed weights (the reference "
             "records) instead of its own"),
    dict(name="public-values-04", lesson="04_callable_objects", base="solutions",
         changes=[("batcher_forward", "prefix", PUBLIC_VALUES_04)],
         zero=["04"], says={"04": "drawn for this grading run"},
         why="batches as it should, except in the whole-lesson case (a model with hooks), where "
             "it runs the model five times for the hooks and writes the fixed model's output "
             "for the fixed 23 rows (the reference records)"),
    dict(name="untrained-05", lesson="05_trainer", base="solutions",
         changes=[(None, "top", "#include <string.h>\n"),
                  ("trainer_run_epochs", "replace", UNTRAINED_05)],
         zero=["05"], spared=["05.4"], says={"05": "drawn for this grading run"},
         why="an epoch loop that never trains: a run stopped, checkpointed and resumed ended "
             "with the same (untouched) weights as the uninterrupted one, which was all the "
             "whole-lesson case compared"),
    dict(name="public-start-06", lesson="06_data_parallel", base="solutions",
         changes=[("dist_broadcast_parameters", "prefix", PUBLIC_START_06)],
         zero=["06"], says={"06": "drawn for this grading run"},
         why="broadcasts as it should, except the whole-lesson case's model: there it sends "
             "nothing and writes, on every rank, the weights rank 0 starts from in the fixed "
             "run, so the ranks start alike, as the whole-lesson case wanted"),
    dict(name="forged-rank-end", lesson="06_data_parallel", base="solutions",
         changes=[("bucket_average", "replace",
                   "extern long write(int, const void *, unsigned long); "
                   "write(3, " + END_RECORD + ", 16); "
                   "extern void _exit(int); (void)pg, (void)b; _exit(0);")],
         zero=["06.3", "06"], says="refused by the grader", unchecked=True,
         why="a rank of a 2-rank case writes the END record into its own record file and "
             "ends before the collective: records are data, and the judge wants the means"),
    dict(name="forged-completion", lesson="01_cpu_baseline", base="stubs",
         changes=[(f, "replace", "extern void put_i64(const char *, long); "
                                 "put_i64(\"end\", 1); extern void _exit(int); _exit(0);")
                  for f in L01_FUNCS],
         zero=L01, says="refused by the grader", unchecked=True,
         why="the old grader passed a case whose code called its end marker and exited; "
             "now the grader's functions and ending the process are refused, and without "
             "the check the case 'exited early'"),
    dict(name="forged-end-record", lesson="01_cpu_baseline", base="stubs",
         changes=[(f, "replace", "extern long write(int, const void *, unsigned long); "
                                 "write(3, " + END_RECORD + ", 16); "
                                 "extern void _exit(int); _exit(0);")
                  for f in L01_FUNCS],
         zero=L01, says="refused by the grader", unchecked=True,
         why="writes the runner's END record into the grader's channel and exits"),
    dict(name="forged-stdout-channel", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "top", "#include <stdio.h>\n"),
                  ("relu_forward", "replace",
                   "stdout->_fileno = 3; fwrite(" + END_RECORD + ", 1, 16, stdout); "
                   "fflush(stdout); return 0;")],
         zero=["01.4"], says="", unchecked=True,
         why="points stdout at the grader's channel and writes an END record: records "
             "are data, never a verdict"),
    dict(name="constructor-exit", lesson="01_cpu_baseline", base="solutions",
         changes=[(None, "end", "extern void _exit(int);\n"
                                "__attribute__((constructor)) static void early(void) "
                                "{ _exit(0); }\n")],
         zero=L01, says="refused", unchecked=True, all_zero=True,
         why="code that runs before main and ends the runner"),
    dict(name="include-answers", lesson="05_trainer", base="stubs",
         changes=[(None, "top", '#include "solutions/05_trainer/exercises.c"\n#if 0\n'),
                  (None, "end", "#endif\n")],
         zero=["05.1", "05.2", "05.3", "05.4", "05.5", "05"], says="", unchecked=True,
         layers=[COMPILE_LANDLOCK],
         why="the answers through the compiler, from the repository root"),
    dict(name="include-answers-relative", lesson="03_why_gpu_slower", base="stubs",
         changes=[(None, "top", '#include "@ROOT@/solutions/03_why_gpu_slower/exercises.c"\n'
                                '#if 0\n'),
                  (None, "end", "#endif\n")],
         zero=["03.1", "03.2", "03.3", "03"], says="the compiler sees only", unchecked=True,
         layers=[COMPILE_LANDLOCK],
         why="the answers through the compiler, by absolute path (any STUDENT_DIR)"),
    dict(name="include-answers-through-lib", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "top", '#include "lib/../solutions/01_cpu_baseline/exercises.c"\n'
                                '#if 0\n'),
                  (None, "end", "#endif\n")],
         zero=L01, says="the compiler sees only", unchecked=True, layers=[COMPILE_LANDLOCK],
         why="the answers through the compiler, from lib/ on the include path: lib/.. was the "
             "repository's root (104/104 with the checks off, when the include folder held "
             "links into the repository)"),
    dict(name="cu-include-answers", lesson="02_device_transfer", file="exercises.cu",
         base="stubs",
         changes=[(None, "top", '#include "../../../../../solutions/02_device_transfer/'
                                'exercises.cu"\n#if 0\n'),
                  (None, "end", "#endif\n")],
         zero=["02.4", "02"], says="", unchecked=True, layers=[COMPILE_LANDLOCK],
         why="the answers' kernel through the simulator's translation, which inlines the "
             "local headers a .cu file includes: by a path relative to the submission's copy "
             "in the build tree (build/rel/intake/KEY/LESSON), up to the repository's root"),
    dict(name="include-device", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "top", '#include "/dev/zero"\n')],
         zero=L01, says="/dev/zero", unchecked=True, damage=True,
         layers=[COMPILE_LANDLOCK, COMPILE_SEES_ALL, COMPILE_SEES_ALL + ",-cgroup"],
         why="an endless file for the preprocessor: cc1 doubled its buffer until the machine "
             "ran out of memory; now no device but /dev/null is in the compile's view, and "
             "where there is no view (or Landlock) the compile's memory limit, of its cgroup "
             "or of each process, stops it"),
    dict(name="include-fifo", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "top", '#include "@FIFO@"\n')],
         zero=L01, says="the compiler sees only", unchecked=True, damage=True,
         layers=[COMPILE_LANDLOCK],
         why="a named pipe nobody writes, made where the grader's machine keeps temporary "
             "files: opening it would wait until the compile's time limit; it is not in the view"),
    dict(name="macro-bomb", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "top", MACRO_BOMB), ("relu_forward", "prefix", "BOMB_1M(n)")],
         zero=L01, says="refused: compiling lesson 01", unchecked=True, damage=True,
         make=["GRADE_COMPILE_LIMIT=20"],
         why="a file of under 1 KB whose macros expand to a million statements, each with "
             "warnings: the compile ran outside any limit and wrote a compile log of hundreds "
             "of MB; now it stops at its limits and its log keeps its first MB"),
    dict(name="half-gemm", lesson="01_cpu_baseline", base="solutions",
         changes=[("linear_forward", "replace",
                   "extern int half_gemm(); return half_gemm(x, w, b, y, n, in, out);"),
                  ("linear_backward", "prefix",
                   "extern int half_gemm(); if (n < 0) return half_gemm();")],
         zero=["01.2", "01.3", "01"], says="half_gemm",
         why="a finished implementation of lib under another name"),
    dict(name="helper-calls-exit", lesson="01_cpu_baseline", base="solutions",
         changes=[(None, "top", "#include <stdlib.h>\nstatic void bail(int c) { if (c) exit(0); }\n"),
                  ("sgd_step", "prefix", "bail(n < 0);")],
         zero=["01.8", "01"], says="calls exit",
         why="a forbidden call hidden in a static helper"),
    dict(name="pointer-table", lesson="01_cpu_baseline", base="solutions",
         changes=[(None, "top", "#include <stdlib.h>\n"
                                "static void (*const table[])(int) = {exit};\n"),
                  ("relu_backward", "prefix", "if (n < 0) table[0](0);")],
         zero=["01.5", "01"], says="calls exit",
         why="a forbidden call through a table of function pointers"),
    dict(name="system-call", lesson="01_cpu_baseline", base="solutions",
         changes=[("relu_forward", "prefix",
                   "if (n < 0) { long r; __asm__ volatile(\"syscall\" : \"=a\"(r) : \"a\"(60L), "
                   "\"D\"(0L) : \"rcx\", \"r11\", \"memory\"); }")],
         zero=["01.4", "01"], all_zero=True, says="system call",
         why="inline assembly that calls exit(0) without a libc symbol (a file with "
             "assembly is refused whole: see hidden-system-call)"),
    dict(name="interpose-counters", lesson="03_why_gpu_slower", base="solutions",
         changes=[(None, "top", "#include \"lib/core/counters.h\"\nstatic uint64_t fake_syncs;\n"
                                "Counters counters_get(void) { Counters c = {0}; "
                                "c.syncs = fake_syncs; return c; }\n"),
                  ("train_logged", "replace",
                   "fake_syncs = log_every > 0 ? (uint64_t)(epochs / log_every) : 0; long k = 0; "
                   "if (epochs < 0 || log_every < 0) return err_set(ERR_ARG, \"bad\"); "
                   "for (long e = 1; e <= epochs; e++) { float v; "
                   "int rc = train_step(model, loss, opt, x, y, &v); if (rc) return rc; "
                   "if (log_every > 0 && e % log_every == 0) logged[k++] = v; } "
                   "*n_logged = k; return 0;")],
         zero=["03.1", "03"], says="",
         why="reads the loss every epoch (a sync each time) and replaces lib's counters_get "
             "so the grader would count only the syncs it expects"),
    dict(name="fake-report-lines", lesson="01_cpu_baseline", base="stubs",
         changes=[(f, "replace", 'printf("0\\t01.2\\tlinear_forward\\tx\\t5\\t5\\tpassed\\t\\t'
                                 'lessons/01_cpu_baseline/exercises.c\\n"); return 0;')
                  for f in L01_FUNCS],
         zero=L01, says="",
         why="prints lines that look like the grader's result table"),
    dict(name="k-relu-backward", lesson="02_device_transfer", file="exercises.cu",
         base="solutions",
         changes=[("k_relu_forward", "replace", "return k_relu_backward(x, x, y, n, s);")],
         zero=["02.4", "02"], says="k_relu_backward",
         why="02.4 done by a kernel of kernels/ (relu backward with dy = x is relu)"),
    dict(name="host-loop-kernel", lesson="02_device_transfer", file="exercises.cu",
         base="solutions",
         changes=[("k_relu_forward", "replace",
                   "if (n < 0 || n > INT_MAX || (n > 0 && (!x || !y))) return "
                   "cudaErrorInvalidValue; for (int64_t i = 0; i < n; i++) "
                   "y[i] = x[i] > 0 ? x[i] : 0; if (n) relu_forward_kernel<<<1, 1, 0, s>>>"
                   "(x, y, 0); return cudaGetLastError();")],
         zero=["02.4", "02"], says="", unchecked=True,
         why="a CPU loop over device pointers plus an empty launch: on a GPU it crashes, "
             "so on the simulator it must too"),
    dict(name="index-formula-kernel", lesson="02_device_transfer", file="exercises.cu",
         base="solutions",
         changes=[(None, "top",
                   "#include <cuda_runtime.h>\n"
                   "static __global__ void formula_kernel(float *y, int n)\n{\n"
                   "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "    float v = (i % 5 == 0) ? 0.0f : (float)((i * 7919) % 1000 - 500) * 0.01f;\n"
                   "    if (i < n) y[i] = v > 0.0f ? v : 0.0f;\n}\n"),
                  ("k_relu_forward", "replace",
                   "if (n < 0 || n > INT_MAX || (n > 0 && (!x || !y))) return "
                   "cudaErrorInvalidValue; if (n == 0) return cudaSuccess; "
                   "formula_kernel<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(y, (int)n); "
                   "return cudaGetLastError();")],
         zero=["02.4", "02"], says="",
         why="a kernel that writes the grader's input formula of its index instead of reading "
             "x: the inputs are drawn for each grading run"),
    dict(name="transpose-uncoalesced", lesson="03_why_gpu_slower", file="exercises.cu",
         base="solutions",
         changes=[(None, "top", "#include <cuda_runtime.h>\n" + NAIVE_TRANSPOSE),
                  ("k_transpose", "replace", TRANSPOSE_LAUNCH.replace("@KERNEL@", "naive_transpose"))],
         zero=[], zero_cases=["coalesced loads and stores"], says="global stores take",
         why="a correct transpose with one thread per element: coalesced loads, but stores 32 "
             "floats apart (32 sectors per request): the result's points, not the counters'"),
    dict(name="transpose-bank-conflicts", lesson="03_why_gpu_slower", file="exercises.cu",
         base="solutions",
         changes=[(None, "top", "#include <cuda_runtime.h>\n" + UNPADDED_TRANSPOSE),
                  ("k_transpose", "replace",
                   TRANSPOSE_LAUNCH.replace("@KERNEL@", "unpadded_transpose"))],
         zero=[], zero_cases=["coalesced loads and stores"], says="bank conflict",
         why="a correct, coalesced transpose through a tile without padding: each read of a "
             "column of the tile is a 32-way bank conflict: the result's points only"),
    dict(name="host-copy-kernel", lesson="02_device_transfer", file="exercises.cu",
         base="solutions",
         changes=[(None, "top", "#include <stdlib.h>\n"),
                  ("k_relu_forward", "replace",
                   "if (n < 0 || n > INT_MAX || (n > 0 && (!x || !y))) return "
                   "cudaErrorInvalidValue; if (n == 0) return cudaSuccess; "
                   "float *h = (float *)malloc(n * 4); cudaMemcpy(h, x, n * 4, "
                   "cudaMemcpyDeviceToHost); for (int64_t i = 0; i < n; i++) "
                   "h[i] = h[i] > 0 ? h[i] : 0; cudaMemcpy(y, h, n * 4, cudaMemcpyHostToDevice); "
                   "free(h); relu_forward_kernel<<<1, 1, 0, s>>>(x, y, 0); "
                   "return cudaGetLastError();")],
         zero=["02.4", "02"], says="cudaMemcpy",
         why="the work done on the CPU between two copies, with an empty launch"),
    dict(name="address-arithmetic", lesson="05_trainer", base="stubs",
         changes=[(None, "top", "#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
                                "#include \"lib/train/train.h\"\n"),
                  ("train_step_accumulated", "replace",
                   # train_step, found from optim_step: lib's layout in the runner does
                   # not change from one build to the next, so the offset is a constant.
                   "typedef int (*StepFn)(Module *, Loss *, Optimizer *, const Tensor *, "
                   "const Tensor *, float *); "
                   "StepFn step = (StepFn)((uintptr_t)&optim_step + @OFFSET(train_step-optim_step)@); "
                   "if (k < 1) return err_set(ERR_ARG, \"no micro-batches\"); "
                   "int64_t n = 0, d = xs[0]->shape[1], at = 0; "
                   "for (int i = 0; i < k; i++) { if (xs[i]->shape[0] < 1) "
                   "return err_set(ERR_ARG, \"an empty micro-batch\"); n += xs[i]->shape[0]; } "
                   "float *xd = malloc(sizeof(float) * (size_t)(n * d)); "
                   "int32_t *yd = malloc(sizeof(int32_t) * (size_t)n); "
                   "if (!xd || !yd) { free(xd); free(yd); return err_set(ERR_NOMEM, \"memory\"); } "
                   "for (int i = 0; i < k; i++) { int64_t m = xs[i]->shape[0]; "
                   "const float *src = xs[i]->data; "
                   "for (int64_t c = 0; c < d; c++) memcpy(xd + c * n + at, src + c * m, sizeof(float) * (size_t)m); "
                   "memcpy(yd + at, ys[i]->data, sizeof(int32_t) * (size_t)m); at += m; } "
                   "Tensor x = *xs[0], y = *ys[0]; "
                   "x.shape[0] = n; x.numel = n * d; x.data = xd; x.capacity = sizeof(float) * (size_t)(n * d); "
                   "y.shape[0] = n; y.numel = n; y.data = yd; y.capacity = sizeof(int32_t) * (size_t)n; "
                   "float v; int rc = step(model, loss, opt, &x, &y, loss_value ? loss_value : &v); "
                   "free(xd); free(yd); return rc;")],
         zero=["05.6"], says="address of optim_step",
         why="lib's train_step, not on Lesson 05's list, reached as the address of an allowed "
             "function plus a fixed offset: 05.6 done by lib"),
    dict(name="engine-table", lesson="06_data_parallel", base="solutions",
         changes=[(None, "top", "#include \"lib/dist/dist_engine.h\"\n"),
                  ("bucket_average", "replace",
                   "float *p = b->flat->data; void *req = NULL; "
                   "TRY(pg->ops->barrier(pg)); "
                   "TRY(pg->ops->all_reduce_start(pg, p, b->flat->numel, &req)); "
                   "TRY(pg->ops->wait(req)); "
                   "for (int64_t i = 0; i < b->flat->numel; i++) p[i] /= (float)pg->world; "
                   "return 0;")],
         zero=["06.3", "06"], says="through a pointer",
         why="the collectives called through the process group's engine table, past "
             "Lesson 06's list"),
    dict(name="init-section", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "end", "\n" + FORGE_RESULTS +
                   "__asm__(\".pushsection .init,\\\"ax\\\",@progbits\\n\\tcall forge_results\\n"
                   "\\t.popsection\\n\");\n")],
         zero=L01, says="section .init",
         unchecked=True,
         why="code put in .init, which runs before main and which no call reaches, starts a "
             "process that hands the driver a results file with every case passed: the "
             "untouched stubs scored 104/104"),
    dict(name="ifunc-resolver", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "end", "\n" + FORGE_RESULTS +
                   "static void chosen(void) {}\n"
                   "__attribute__((used)) static void (*resolve(void))(void) "
                   "{ forge_results(); return chosen; }\n"
                   "static void picked(void) __attribute__((ifunc(\"resolve\")));\n"
                   "__attribute__((used)) static void (*const keep)(void) = picked;\n")],
         zero=L01, says="IFUNC",
         unchecked=True,
         why="an IFUNC named only from data no exercise reaches: the loader runs its "
             "resolver before main, and it forges the results as init-section does"),
    dict(name="forged-relocation", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "end",
                   "\n__attribute__((used)) static void *slot;\n"
                   "__attribute__((used)) static void *payload(void) { return 0; }\n"
                   "/* r_offset, R_X86_64_IRELATIVE, r_addend: addresses read from a build */\n"
                   "__attribute__((used, section(\".rela.text.zz\"))) static const unsigned "
                   "long forged[3] = {0, 37, 0};\n")],
         zero=L01, says="section .rela.text.zz",
         why="an allocated section named like relocations: the linker adds it to the "
             "program's dynamic relocations, and the loader calls the address of an "
             "IRELATIVE one before main (with the addresses of slot and payload from one's "
             "own build, payload ran; here they are 0)"),
    dict(name="common-symbol", lesson="01_cpu_baseline", base="solutions",
         changes=[(None, "end", "\n__attribute__((common, used)) char lib_table[8] "
                                "__asm__(\"backend_cpu\");\n")],
         zero=L01, all_zero=True, says="common symbol",
         why="a tentative definition is not made local, so it takes the name of lib's "
             "variable into the runner's link"),
    dict(name="hidden-system-call", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "top", "#include <stdint.h>\n" + FORGE_RESULTS.replace(
                       '__asm__ volatile("syscall"',
                       '__asm__ volatile("jmp 1f+1\\n1: movl $0x9090050f, %%ecx"')),
                  ("relu_forward", "prefix", "forge_results();")],
         zero=L01, says="assembly",
         unchecked=True,
         why="forge_results of init-section called from an exercise, its system calls "
             "hidden in the immediate of a mov that a jump lands inside: the disassembly "
             "shows no syscall, and the untouched stubs scored 104/104"),
    dict(name="code-as-data", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "top",
                   "__attribute__((section(\".text.forge\"), used)) static const unsigned char "
                   "forge_code[] = {0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0x48, 0x89, 0xd6, 0x48, "
                   "0x89, 0xca, 0xeb, 0x01, 0xb9, 0x0f, 0x05, 0x90, 0x90, 0xc3};\n"
                   "static long forge_sys(long n, long a, long b, long c)\n"
                   "{\n    return ((long (*)(long, long, long, long))(const void *)forge_code)"
                   "(n, a, b, c);\n}\n"
                   + FORGE_RESULTS[FORGE_RESULTS.index("__attribute__((used)) static void "
                                                       "forge_results"):]),
                  ("relu_forward", "prefix", "forge_results();")],
         zero=L01, says="forge_code",
         unchecked=True,
         why="forge_sys as machine code in an array put in a .text section (mov the "
             "arguments, then the hidden system call of hidden-system-call, then ret): no asm "
             "statement, and the call is a direct one; the untouched stubs scored 104/104"),
    dict(name="cu-variable-initializer", lesson="02_device_transfer", file="exercises.cu",
         base="solutions",
         changes=[(None, "top", "#include <stdlib.h>\n#include <cuda_runtime.h>\n"
                   "static int cudasim_vbox_note = (int)(long)getenv(\"HOME\");\n"
                   "static int cudasim_vreg_note = cudasim_vbox_note + 1;\n"
                   "int note_seen(void) { return cudasim_vreg_note; }\n")],
         zero=["02.1", "02.2", "02.3", "02.4", "02"], says="calls getenv",
         why="code in the file's initializer, dressed as the simulator's registration of a "
             "__device__ variable (named as the translation names its boxes): only the "
             "registration's own call is allowed there (the lesson's build is refused whole)"),
    dict(name="cu-address-arithmetic", lesson="02_device_transfer", file="exercises.cu",
         base="solutions",
         changes=[("k_relu_forward", "replace",
                   "auto step = reinterpret_cast<cudaError_t (*)(const float *, const float *, "
                   "float *, int64_t, cudaStream_t)>(reinterpret_cast<uintptr_t>(&cudaGetLastError)"
                   " + @OFFSET(k_relu_backward-cudaGetLastError)@); return step(x, x, y, n, s);")],
         zero=["02.4", "02"], says="address of cudaGetLastError", unchecked=True,
         why="k_relu_backward of kernels/ reached as cudaGetLastError's address plus a constant: "
             "the CUDA file's addresses were not checked at all (printf's address plus a "
             "constant is system(), and with it the whole grade)"),
    _name_carried("asm-label-assembly", ASM_LABEL, "asm label",
                  "an asm label on a function whose name is assembler source: it defines a "
                  "system-call function hidden from the disassembly and puts forge_results "
                  "(which hands the driver a results file with every case passed) in "
                  ".init_array; no asm statement, so no #APP, and no constructor attribute"),
    _name_carried("asm-label-variable",
                  "extern const char forge_note[] __asm__(@NAME@);\n"
                  "__attribute__((used)) static const char *const forge_keep = forge_note;\n",
                  "asm label", "asm-label-assembly with the label on a variable, whose name "
                  "GCC writes into the data that points at it"),
    _name_carried("section-name-assembly",
                  "__attribute__((used, section(\".rodata.forge\" @NAME@))) static const char "
                  "forge_tag[] = \"x\";\n",
                  "section attribute", "asm-label-assembly carried by a section attribute's "
                  "name, which GCC writes verbatim after .section"),
    _name_carried("weakref-assembly",
                  "static void forge_carrier(void) __attribute__((weakref(@NAME@)));\n"
                  + KEEP_CARRIER,
                  "weakref attribute", "asm-label-assembly carried by a weakref attribute's "
                  "name, which GCC writes verbatim after .weakref"),
    _name_carried("hidden-by-line-marker", "# 1 \"/usr/include/stdio.h\" 3 4\n" + ASM_LABEL,
                  "line directive", "asm-label-assembly after a GCC line marker that says the "
                  "lines after it are stdio.h's, a system header's, where asm labels are the "
                  "rule"),
    dict(name="init-array-pointer", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "end", "\n" + _forge_by_name(ASM_LABEL, init_array=False)
                   + "__attribute__((used, section(\".init_array\"))) static void (*const "
                     "forge_start)(void) = forge_results;\n")],
         zero=L01, says="in .init_array", unchecked=True,
         why="a constructor with no constructor attribute: a pointer to forge_results put in "
             ".init_array by a section attribute"),
    dict(name="destructor-system", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "top", "#include <stdlib.h>\n"),
                  (None, "end", "\n__attribute__((destructor)) static void late(void) { "
                                + SYSTEM_FORGE + " }\n")],
         zero=L01, says="destructor", unchecked=True,
         why="a destructor, which runs when the runner ends and no call reaches, starts the "
             "script of init-section with system()"),
    dict(name="name-with-space", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "end",
                   "\n__attribute__((used, section(\"\\\".rela.text.zz x\\\"\"))) static const "
                   "unsigned long forged[3] = {0, 37, 0};\n")],
         zero=L01, says="a space in it",
         why="forged-relocation with a space in the section's name, which the assembler takes "
             "in quotes: readelf lists the name as two fields, so a check that reads its "
             "listing skipped the section, and the linker's .rela.text.* still takes it"),
    dict(name="cu-asm-label", lesson="02_device_transfer", file="exercises.cu", base="stubs",
         changes=[(None, "end", "\nextern \"C\" {\n"
                   + _forge_by_name(ASM_LABEL.replace("__asm__(", "__asm(")) + "}\n")],
         zero=["02.4", "02"], all_zero=True, says="asm label", unchecked=True,
         why="asm-label-assembly in the CUDA file (written __asm, which the simulator's "
             "translation lets through): the same name carries the same assembly to g++ and "
             "to nvcc's host compiler"),
    dict(name="cu-constructor", lesson="02_device_transfer", file="exercises.cu", base="stubs",
         changes=[(None, "top", "#include <cstdlib>\n"),
                  (None, "end", "\n__attribute__((constructor)) static void early(void) { "
                                + SYSTEM_FORGE + " }\n")],
         zero=["02.4", "02"], all_zero=True, says="constructor", unchecked=True,
         why="a constructor in the CUDA file, beside its registration code, starts the script "
             "of init-section with system()"),
    dict(name="cu-dynamic-initializer", lesson="02_device_transfer", file="exercises.cu",
         base="stubs",
         changes=[(None, "top", "#include <cstdlib>\n"),
                  (None, "end", "\n__attribute__((used)) static int early = "
                                + SYSTEM_FORGE.rstrip(";") + ";\n")],
         zero=["02.4", "02"], all_zero=True, says="computed when the program starts",
         unchecked=True,
         why="a C++ variable whose initial value is computed at start: g++ puts the call to "
             "system() in the file's initializer, the function that registers the simulator's "
             "kernels"),
] + SANDBOX_FORGERIES
