# Day 37 workbook: GPU training and the __call__ method.
# One non-recursive Makefile; `make help` lists the entry points.
# Build products go to build/, the outputs of a run to out/.

.DEFAULT_GOAL := help
SHELL := /bin/bash
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
.SECONDEXPANSION:
.DELETE_ON_ERROR:

# ---- configuration ------------------------------------------------------
IMPL  ?= solutions          # which exercises to link: solutions or lessons
PART  ?=                    # lesson37: run one part (1-6)
ARGS  ?=                    # lesson37: extra options (after --part when PART is set)
SAN   ?=                    # SAN=1: build with AddressSanitizer and UBSan (SAN=fuzz: make fuzz's)
FUZZ_TIME ?= 60             # make fuzz: seconds per fuzz target
SIM   ?=                    # SIM=1: lessons run their GPU parts on the CUDA simulator
LESSON ?=                   # make grade: grade one lesson (01)
EX    ?=                    # make hint: the exercise (01.3)
STUDENT_DIR ?= lessons      # where IMPL=lessons finds NN_name/exercises.c
BUILD_ROOT  ?= build        # where everything is built
GRADE_OUT   ?=              # make grade: where results go (default BUILD_ROOT/grade)
GRADE_INTAKE_OPTS ?=        # make grade: how the student's files are taken (tests/graded/sandbox/intake.c)
GRADE_HIDE_ALSO ?=          # make grade: more folders the runners must not see (grade-all: the class's)
SUBMISSIONS ?=              # make grade-all, grade-report: the class (a folder, or a Gradescope or Canvas export)
JOBS  ?=                    # make grade-all: submissions graded at once (default: the cores)
SHARD ?=                    # make grade-all: K/N grades only the K-th of N shares of the class
OUT   ?=                    # make grade-all, grade-report: where results go (default BUILD_ROOT/submissions)
GRADEBOOK_COLUMNS ?=        # make grade-all, grade-report: gradebook.csv's column names (student=Name,01=Lab 1,...)
ARCH  ?= native             # -march value for the C code
CU    ?=                    # make sim-run: the CUDA program (.cu with its own main) to run
PROFILE ?=                  # sim-run, SIM=1: a CSV row per launch into this file, and a summary
GPU   ?=                    # sim-run, SIM=1: the GPU the simulator's time model is for (default h100)
INCLUDE ?=                  # make sim-run: folders for #include, as nvcc's -I (CPATH is honoured too)
CU_ALSO ?=                  # make sim-run: more sources of the program (.cu, .cpp, .c), as nvcc takes them
# ---- what a user types is data ------------------------------------------
# A value given on the command line or in the environment is taken as typed: make never
# expands it ($(value)), so "$(shell ...)" in it is text, never a command. Each variable
# has a form, checked here before anything runs; a value of another form stops make with
# one line naming the variable, the value (escaped) and the form. A path may hold any
# character a file name may and reaches a program as one argument, quoted once by sq,
# never through a shell's parsing. A list of paths (INCLUDE, GRADE_HIDE_ALSO) separates
# them by spaces, and a backslash takes the next character as it is ("my\ dir"). ARGS,
# like CC, CXX and NVCC's options, stays shell words: it is given to the shell as written.
# NVCCFLAGS, LDLIBS and LDFLAGS, as make sim-run takes them from the command line or the
# environment (nvcc's options for its check and the translation, libraries and linker
# options added to the simulator's own), are lists of words as INCLUDE is, each word one
# argument; this file's own variables of those names stay its own.
USER_VARS := IMPL PART ARGS SAN FUZZ_TIME SIM LESSON EX STUDENT_DIR BUILD_ROOT GRADE_OUT \
             GRADE_INTAKE_OPTS GRADE_HIDE_ALSO SUBMISSIONS JOBS SHARD OUT GRADEBOOK_COLUMNS \
             ARCH CU PROFILE GPU INCLUDE CU_ALSO V
# (set further down, so taken here only when given: their defaults are this file's)
USER_VARS_LATER := GRADE_COMPILE_LIMIT GRADE_UNCHECKED GPU_ARCHS STUDENT_SRC NVCC CUDA_HOME
empty   :=
space   := $(empty) $(empty)
comma   := ,
tab     := $(empty)	$(empty)
define newline


endef
given   = $(filter command line environment environment%override,$(origin $(1)))
typed   = $(if $(call given,$(1)),$(value $(1)),$(strip $($(1))))
# make grade grades the student's code unless IMPL is given.
IMPL_GIVEN := $(call given,IMPL)
$(foreach v,$(USER_VARS),$(eval override $(v) := $$(call typed,$(v))))
LATER_GIVEN := $(foreach v,$(USER_VARS_LATER),$(if $(call given,$(v)),$(v)))
$(foreach v,$(LATER_GIVEN),$(eval override $(v) := $$(value $(v))))
$(foreach v,NVCCFLAGS LDLIBS LDFLAGS,$(eval SIM_USER_$(v) := $$(if $$(call given,$(v)),$$(value $(v)))))
# sq: one shell word that is exactly $(1): in single quotes, each ' as '\'' and each
# newline as $'\n' (a newline inside a recipe line would end the line for make).
sq      = '$(subst $(newline),'$$'\n'',$(subst ','\'',$(1)))'
# enc: a path as one make word, for make's functions (abspath, dir, filter): @ as @a, a
# backslash @b, a space @s, a tab @t, a newline @n; dec undoes it, sqd quotes what it gives.
enc     = $(subst $(newline),@n,$(subst $(tab),@t,$(subst $(space),@s,$(subst \,@b,$(subst @,@a,$(1))))))
dec     = $(subst @a,@,$(subst @b,\,$(subst @n,$(newline),$(subst @t,$(tab),$(subst @s,$(space),$(1))))))
sqd     = $(call sq,$(call dec,$(1)))
# sed_text: $(1) as the replacement text of sed's s|...|...| (\ & | and a newline escaped).
sed_text = $(subst $(newline),\$(newline),$(subst |,\|,$(subst &,\&,$(subst \,\\,$(1)))))
# list: a list of paths as words of enc's form; list_text: the words as a list again.
list    = $(subst \,,$(subst \$(newline),@n,$(subst \$(tab),@t,$(subst \$(space),@s,$(subst \\,@b,$(subst @,@a,$(1)))))))
list_text = $(foreach w,$(1),$(subst @a,@,$(subst @n,\$(newline),$(subst @t,\$(tab),$(subst @s,\$(space),$(subst @b,\\,$(w)))))))
# Whether $(1) is made only of the characters (words) of $(2).
drop    = $(if $(2),$(call drop,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(1))
only    = $(if $(1),$(if $(call drop,$(subst $(space),*,$(subst $(tab),*,$(subst $(newline),*,$(1)))),$(2)),,y))
DIGITS  := 0 1 2 3 4 5 6 7 8 9
LETTERS := a b c d e f g h i j k l m n o p q r s t u v w x y z \
           A B C D E F G H I J K L M N O P Q R S T U V W X Y Z
# plain: a path make can name a target by and a shell can take unquoted.
plain   = $(if $(filter -%,$(1)),,$(call only,$(1),$(LETTERS) $(DIGITS) / . _ - + @ $(comma)))
# A whole number of 1 to 9 digits, more than 0.
posint  = $(if $(call only,$(1),$(DIGITS)),$(if $(subst 0,,$(1)),$(if $(word 10,$(call spaced,$(1))),,y)))
spaced  = $(subst 0,0 ,$(subst 1,1 ,$(subst 2,2 ,$(subst 3,3 ,$(subst 4,4 ,$(call spaced2,$(1)))))))
spaced2 = $(subst 5,5 ,$(subst 6,6 ,$(subst 7,7 ,$(subst 8,8 ,$(subst 9,9 ,$(1))))))
# A hash of $(1), for a folder's name: 16 hex digits.
hash16  = $(shell printf '%s' $(call sq,$(1)) | sha256sum | cut -c1-16)
# shown: $(1) as a message shows a value: in double quotes, on one line, every character
# visible (a control character and a byte that is not UTF-8 as \xNN, an invisible or
# bidirectional character as \uNNNN, as lib/core/err.h's err_quote()).
define SHOWN_PL
my ($s, $out) = (shift, "");
while ($s =~ /\G(?:([\x00-\x7f])|([\xc0-\xdf][\x80-\xbf]?|[\xe0-\xef][\x80-\xbf]{0,2}|[\xf0-\xf7][\x80-\xbf]{0,3})|(.))/gs) {
    my ($c, $m, $o) = ($1, $2, $3);
    if (defined $c) {
        $out .= $c eq "\n" ? "\\n" : $c eq "\r" ? "\\r" : $c eq "\t" ? "\\t" : $c =~ /[\\"]/ ? "\\$c"
              : $c =~ /[\x00-\x1f\x7f]/ ? sprintf("\\x%02x", ord $c) : $c;
    } elsif (defined $m) {
        my $u = $m;
        if (utf8::decode($u) && length($u) == 1) {
            my $n = ord $u;
            $out .= ($n >= 0x80 && $n <= 0x9f) || $n == 0xad || ($n >= 0x200b && $n <= 0x200f) ||
                    ($n >= 0x2028 && $n <= 0x202e) || ($n >= 0x2060 && $n <= 0x206f) || $n == 0xfeff
                  ? sprintf("\\u%04x", $n) : $m;
        } else {
            $out .= join "", map { sprintf("\\x%02x", ord) } split //, $m;
        }
    } else {
        $out .= sprintf("\\x%02x", ord $o);
    }
}
print "\"$out\"";
endef
shown   = $(shell perl -e $(call sq,$(value SHOWN_PL)) -- $(call sq,$(1)))
# bad VAR,FORM: stop, naming VAR, its value and its form.
bad     = $(error $(1)=$(call shown,$($(1))): $(2))

# The forms. The lessons and the GPUs are what the tree holds.
LESSON_NUMBERS := $(sort $(foreach d,$(wildcard lessons/[0-9][0-9]_*/),$(firstword $(subst _, ,$(notdir $(d:/=))))))
PART_NUMBERS   := $(patsubst 0%,%,$(LESSON_NUMBERS))
GPU_NAMES      := $(sort $(basename $(notdir $(wildcard lib/cudasim/profile/gpus/*.json))))
one_of  = $(and $(filter 1,$(words $(1))),$(filter $(2),$(1)))
$(if $(filter-out solutions lessons,$(IMPL))$(filter-out 1,$(words $(IMPL))),$(call bad,IMPL,give solutions or lessons))
$(if $(PART),$(if $(call one_of,$(PART),$(PART_NUMBERS) $(LESSON_NUMBERS)),,$(call bad,PART,give the \
  number of one part: $(firstword $(PART_NUMBERS)) to $(lastword $(PART_NUMBERS)))))
$(if $(filter-out $(LESSON_NUMBERS),$(LESSON)),$(call bad,LESSON,give the two digits of a lesson \
  ($(LESSON_NUMBERS))$(comma) or several separated by spaces))
override LESSON := $(foreach l,$(LESSON),$(l))
ex_parts = $(subst ., ,$(1))
$(if $(EX),$(if $(and $(call one_of,$(word 1,$(call ex_parts,$(EX))),$(LESSON_NUMBERS)), \
  $(call posint,$(word 2,$(call ex_parts,$(EX)))),$(filter 2,$(words $(call ex_parts,$(EX)))), \
  $(filter $(word 1,$(call ex_parts,$(EX))).$(word 2,$(call ex_parts,$(EX))),$(EX))),, \
  $(call bad,EX,give an exercise as NN.N: its lesson's two digits$(comma) a dot and its number (01.3))))
$(foreach v,JOBS FUZZ_TIME GRADE_COMPILE_LIMIT,$(if $($(v)),$(if $(call posint,$($(v))),, \
  $(call bad,$(v),give a whole number from 1 to 999999999 ($(v)=4)))))
shard_k = $(word 1,$(subst /, ,$(SHARD)))
shard_n = $(word 2,$(subst /, ,$(SHARD)))
$(if $(SHARD),$(if $(and $(call posint,$(shard_k)),$(call posint,$(shard_n)),$(filter $(shard_k)/$(shard_n),$(SHARD)), \
  $(shell test $(shard_k) -le $(shard_n) && echo y)),,$(call bad,SHARD,give K/N with 1 <= K <= N: the K-th of N shares (SHARD=2/4))))
$(foreach v,SAN:fuzz SIM:0 V:0 GRADE_UNCHECKED:0,$(if $(filter-out 1 $(lastword $(subst :, ,$(v))),$($(firstword $(subst :, ,$(v)))))$(word 2,$($(firstword $(subst :, ,$(v))))), \
  $(call bad,$(firstword $(subst :, ,$(v))),give 1 or $(lastword $(subst :, ,$(v)))$(comma) or nothing)))
$(if $(call only,$(ARCH),$(LETTERS) $(DIGITS) . _ - +),,$(call bad,ARCH,give a -march value: letters$(comma) digits and . _ - + (native$(comma) x86-64-v3)))
# NVCCFLAGS (make sim-run's): nvcc runs its steps through sh, each option in double quotes,
# where $ ` " and \ would be read as code: no word may hold them.
$(if $(filter sim-run,$(MAKECMDGOALS)),$(if $(or $(findstring $$,$(SIM_USER_NVCCFLAGS)),$(findstring `,$(SIM_USER_NVCCFLAGS)),$(findstring \
  ",$(SIM_USER_NVCCFLAGS)),$(findstring \,$(subst \$(space),,$(SIM_USER_NVCCFLAGS)))),$(error \
  NVCCFLAGS=$(call shown,$(SIM_USER_NVCCFLAGS)): give nvcc's options as words without $$ ` " or \ (nvcc \
  hands them to a shell): -arch=sm_80 --extended-lambda -DN=4)))
$(foreach a,$(GPU_ARCHS),$(if $(call only,$(a),$(DIGITS) $(LETTERS)),,$(call bad,GPU_ARCHS,give compute capabilities without the dot$(comma) separated by spaces (80 90))))
$(if $(call plain,$(BUILD_ROOT)),,$(call bad,BUILD_ROOT,make names its targets by this folder$(comma) so its \
  path may hold only letters$(comma) digits and / . _ - + @ $(comma) and may not begin with -))
$(if $(call plain,$(CURDIR)),,$(error the workbook's folder $(call shown,$(CURDIR)) holds a character make cannot \
  name targets by (only letters$(comma) digits and / . _ - + @ $(comma) are taken): move it, or link it from such a path))
$(foreach v,NVCC CUDA_HOME,$(if $(filter $(v),$(LATER_GIVEN)),$(if $($(v)),$(if $(call plain,$($(v))),,$(call bad,$(v),give \
  the path of the program or folder: letters$(comma) digits and / . _ - + @ $(comma) only)))))
# GRADE_INTAKE_OPTS: tests/graded/sandbox/intake.c's --stubs DIR and --loose NN.
intake_opts_ok = $(if $(1),$(if $(and $(filter --stubs --loose,$(word 1,$(1))),$(word 2,$(1)), \
  $(if $(filter --loose,$(word 1,$(1))),$(call one_of,$(word 2,$(1)),$(LESSON_NUMBERS)),$(call plain,$(word 2,$(1))))), \
  $(call intake_opts_ok,$(wordlist 3,$(words $(1)),$(1)))),y)
$(if $(call intake_opts_ok,$(GRADE_INTAKE_OPTS)),,$(call bad,GRADE_INTAKE_OPTS,give tests/graded/sandbox/intake.c's \
  options: --stubs DIR (a plain path) and --loose NN (a lesson)))
# GRADEBOOK_COLUMNS: FIELD=NAME items separated by commas, FIELD one of these (NAME any text).
GRADEBOOK_FIELDS := student id email $(LESSON_NUMBERS) total
gb_field = $(strip $(call dec,$(patsubst %=,%,$(firstword $(subst =,= ,$(1))))))
$(foreach c,$(subst $(comma), ,$(call enc,$(GRADEBOOK_COLUMNS))),$(if $(strip $(call dec,$(c))), \
  $(if $(and $(findstring =,$(c)),$(call one_of,$(call gb_field,$(c)),$(GRADEBOOK_FIELDS))),, \
  $(call bad,GRADEBOOK_COLUMNS,give FIELD=NAME$(comma)... with FIELD one of $(GRADEBOOK_FIELDS) (an empty NAME leaves the column out)))))
# Paths are taken relative to the folder make was started in (make -C DIR works from anywhere;
# a make this one starts runs in this folder, so it is given them absolute).
CU_FROM    := $(or $(call typed,PWD),$(CURDIR))
from_abs    = $(abspath $(if $(filter /%,$(1)),$(1),$(call enc,$(CU_FROM))/$(1)))
# GPU: a GPU of lib/cudasim/profile/gpus by name, or a readable regular file of that form.
GPU_ARG    := $(if $(GPU),$(if $(call one_of,$(GPU),$(GPU_NAMES)),$(strip $(GPU)),$(call dec,$(call from_abs,$(call enc,$(GPU))))))
$(if $(GPU),$(if $(or $(call one_of,$(GPU),$(GPU_NAMES)),$(shell test -f $(call sq,$(GPU_ARG)) && test -r \
  $(call sq,$(GPU_ARG)) && echo y)),,$(call bad,GPU,give a GPU the simulator knows ($(GPU_NAMES)) or a readable \
  regular file of that form)))
ifeq ($(strip $(GRADE_OUT)),)
override GRADE_OUT := $(BUILD_ROOT)/grade
endif
# The student's folder by a name make can take: itself, or when its path is not plain, a
# copy of its exercise files under BUILD_ROOT/student-src (made below, where the lessons are
# known; a copy, not a link: nvcc resolves links, and runs its steps through sh).
STUDENT_DIR_MAKE := $(if $(call plain,$(STUDENT_DIR)),$(STUDENT_DIR),$(BUILD_ROOT)/student-src/_h$(call hash16,$(STUDENT_DIR)))
$(foreach v,IMPL PART SAN SIM V EX JOBS SHARD FUZZ_TIME ARCH GRADE_INTAKE_OPTS $(filter GRADE_COMPILE_LIMIT \
  GRADE_UNCHECKED GPU_ARCHS,$(LATER_GIVEN)),$(eval override $(v) := $$(strip $$($(v)))))
GRADE_IMPL := $(if $(IMPL_GIVEN),$(IMPL),lessons)
# V=1 shows the full compiler command lines.
ifeq ($(V),1)
Q :=
else
Q := @
endif

CC      ?= cc
CXX     ?= g++
PYTHON  ?= $(shell for p in python3 /usr/bin/python3; do \
             $$p -c 'import torch' >/dev/null 2>&1 && { command -v $$p; break; }; done)
NVCC    ?= $(shell command -v nvcc 2>/dev/null || \
             { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })

ifeq ($(SAN),1)
BUILD   := $(BUILD_ROOT)/san$(if $(filter 1,$(SIM)),-sim)
OPT     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
           -fno-sanitize-recover=all
else ifeq ($(SAN),fuzz)
# make fuzz: clang's libFuzzer, with ASan and UBSan, in a tree of its own.
BUILD   := $(BUILD_ROOT)/fuzz
OPT     := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
           -fno-sanitize-recover=all
else
BUILD   := $(BUILD_ROOT)/rel$(if $(filter 1,$(SIM)),-sim)
# Reductions may be reassociated (vector sums), but NaN and inf stay
# detectable: no -ffinite-math-only, so no plain -ffast-math.
OPT     := -O3 -march=$(ARCH) -fno-math-errno -fno-trapping-math -fno-signed-zeros \
           -fassociative-math -g
# On x86-64 with AVX-512, use the full 16-float registers (GCC prefers 8 by default).
ifeq ($(shell uname -m),x86_64)
OPT     += -mprefer-vector-width=512
endif
endif

# glibc's vector expf/logf (lib/core/vecmath.h) when the toolchain has them.
LIBMVEC    := $(shell echo 'int main(void){return 0;}' | \
                $(CC) -x c - -lmvec -o /dev/null 2>/dev/null && echo -lmvec)
WARN       := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes
# Libraries lib uses: jansson (JSON) and zlib (CRC-32), Debian's libjansson-dev and zlib1g-dev.
LIB_PKGS   := jansson zlib
LIB_PKG_CFLAGS := $(shell pkg-config --cflags $(LIB_PKGS) 2>/dev/null)
LIB_PKG_LIBS   := $(or $(shell pkg-config --libs $(LIB_PKGS) 2>/dev/null),-ljansson -lz)
# MPI, for Lesson 06's process groups (lib/dist; Debian's openmpi-bin and libopenmpi-dev).
# Without it lib/dist builds a group of one process. Only lib/dist/dist_mpi.c includes
# mpi.h, and only programs that start a group link it (--as-needed). Looked up when used
# (=, not :=), so that the make deps of the same run that installed it counts.
MPI_PKG     = $(firstword $(foreach p,mpi-c ompi-c,$(shell pkg-config --exists $(p) 2>/dev/null && echo $(p))))
MPI_CFLAGS  = $(if $(MPI_PKG),$(shell pkg-config --cflags $(MPI_PKG)) -DWB_HAVE_MPI)
MPI_LIBS    = $(if $(MPI_PKG),-Wl$(comma)--as-needed $(shell pkg-config --libs $(MPI_PKG)) -Wl$(comma)--no-as-needed)
comma      := ,
CFLAGS_ALL := -std=c11 $(OPT) $(WARN) -I. $(LIB_PKG_CFLAGS) -DWB_ROOT='"$(CURDIR)"' -MMD -MP \
              $(if $(LIBMVEC),,-DWB_NO_LIBMVEC)
# (each function and variable in a section of its own: a grader's runner drops what it
# leaves out, tests/graded/allow/README.md "withhold")
CFLAGS_LIB := $(CFLAGS_ALL) -Werror -ffunction-sections -fdata-sections
# Student code: warnings are shown but do not stop the build. It sees only the
# headers of lib/ and kernels/ (through STUDENT_INC, which holds links to those two
# folders, not the repository root), lists every file it read (-MD, for the include
# check of tests/graded/allow/check_student.pl), puts each function in a section of
# its own (for that script's call graph) and makes no jump tables (a switch's
# table would be a jump through a pointer, which that script refuses). Its rules
# keep the preprocessed source and the assembly the compiler made (-save-temps=obj),
# in which that script looks for asm statements, asm labels and like attributes.
STUDENT_INC := $(BUILD_ROOT)/student-include
STUDENT_ONLY := -I$(STUDENT_INC) -MD -MP -ffunction-sections -fdata-sections -fno-jump-tables -fPIC
CFLAGS_EX  := -std=c11 $(OPT) $(WARN) $(STUDENT_ONLY) $(if $(LIBMVEC),,-DWB_NO_LIBMVEC)
override LDLIBS := $(LIB_PKG_LIBS) $(LIBMVEC) -lm -pthread
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)
BLAS_CFLAGS := $(shell pkg-config --cflags openblas 2>/dev/null)
BLAS_LIBS   := $(or $(shell pkg-config --libs openblas 2>/dev/null),-lopenblas)

# ---- the CUDA simulator: the same .cu sources, run on the CPU (docs/simulator.md)
SIM_DIR    := lib/cudasim
CU2SIM_DEPS := $(wildcard $(SIM_DIR)/translate/cu2sim*.pl)
CXXFLAGS_SIM := -std=c++17 $(OPT) -Wall -Wextra -Werror -I. -I$(SIM_DIR) $(BLAS_CFLAGS) -MMD -MP \
                -DCUDASIM_GPU_DIR='"$(CURDIR)/$(SIM_DIR)/profile/gpus"'
# Translated kernels: CUDA's language from kernel.h, its runtime from include/.
# Every load and store of a translated file calls the simulator's checks
# (bounds, freed buffers, reads of unwritten memory, races): GCC's
# ThreadSanitizer instrumentation without its runtime, whose entry points
# access.cpp defines. It cannot share a file with AddressSanitizer, so under
# SAN=1 translated files keep UBSan only, less its bounds check (the
# simulator's own says more: the thread, the variable).
# An atomic names its line by its return address, so no call of a kernel is
# a tail call (one would return to the simulator's code instead). A vector
# (a float4) loaded or stored whole stays one access, as on a GPU, where a
# misaligned one faults: no scalar replacement of aggregates. (UBSan's
# alignment check is left out too: the simulator's names the buffer.)
comma := ,
SIM_CHECK := -fsanitize=thread --param tsan-instrument-func-entry-exit=0 \
             --param tsan-distinguish-volatile=1 -fno-sanitize=bounds,alignment \
             -fno-optimize-sibling-calls -fno-tree-sra
OPT_KSIM  := $(subst -fsanitize=address$(comma)undefined,-fsanitize=undefined,$(OPT)) $(SIM_CHECK)
CXXFLAGS_KSIM := -std=c++17 $(OPT_KSIM) -fPIC -Wall -Wextra -Wno-unknown-pragmas \
                 -Wno-unused-parameter -DCUDASIM_KERNEL_SOURCE -I. -I$(SIM_DIR)/include \
                 -I$(SIM_DIR) -include $(SIM_DIR)/exec/kernel.h -MMD -MP
CXXFLAGS_KSIM_EX := $(filter-out -I. -MMD,$(CXXFLAGS_KSIM)) $(STUDENT_ONLY)
# C code that calls the CUDA runtime, built against the simulator's headers.
CFLAGS_SIMC := $(CFLAGS_LIB) -I$(SIM_DIR)/include

# ---- real CUDA (nvcc), when the toolkit is here; run when a GPU is here
CUDA_HOME  ?= $(patsubst %/bin/nvcc,%,$(NVCC))
GPU_ARCHS  ?= 75 80 86 89 90
NVCC_ARCH  := $(foreach a,$(GPU_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
              -gencode arch=compute_$(lastword $(GPU_ARCHS)),code=compute_$(lastword $(GPU_ARCHS))
NVCCFLAGS_EX := -std=c++17 -O3 -lineinfo $(NVCC_ARCH) -I. -Xcompiler -Wall,-Wextra,-fPIC
override NVCCFLAGS := $(NVCCFLAGS_EX) -Xcompiler -Werror
NVCCFLAGS_STUDENT := $(filter-out -I.,$(NVCCFLAGS_EX)) -I$(STUDENT_INC) \
              -Xcompiler -ffunction-sections,-fdata-sections
# NCCL, the collectives between GPUs (Lesson 06), where the toolkit has it.
HAVE_NCCL  := $(if $(NVCC),$(wildcard $(CUDA_HOME)/include/nccl.h))
CFLAGS_CUDAC := $(CFLAGS_LIB) -I$(CUDA_HOME)/include $(if $(HAVE_NCCL),-DWB_HAVE_NCCL)
CUDA_LIBS  := -L$(CUDA_HOME)/lib64 -lcudart_static -lcublas $(if $(HAVE_NCCL),-lnccl) -ldl -lrt -lpthread
# (A GPU without nvcc cannot be used: nothing is built for it.)
HAVE_GPU   := $(if $(NVCC),$(shell nvidia-smi -L 2>/dev/null | grep -q '^GPU' && echo 1))

# ---- sources ------------------------------------------------------------
LIB_SRC    := $(filter-out lib/device/backend_cuda.c lib/device/backend_none.c,$(wildcard lib/*/*.c))
LIB_OBJ    := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
LIB_A      := $(BUILD)/libworkbook.a
LESSONS    := $(patsubst lessons/%/exercises.c,%,$(wildcard lessons/[0-9][0-9]_*/exercises.c))
CU_LESSONS := $(patsubst lessons/%/exercises.cu,%,$(wildcard lessons/[0-9][0-9]_*/exercises.cu))
# The exercises of lesson folder $(2) for IMPL $(1): the student's or the answers.
# (Student objects are kept apart per STUDENT_DIR, so switching folders rebuilds;
# _ is doubled first, so "a.b", "a_b" and "a/b" give different keys.)
STUDENT_KEY := $(subst /,_s,$(subst .,_d,$(subst _,__,$(STUDENT_DIR_MAKE))))
# Where the student's files are compiled from: STUDENT_DIR itself, or, when make grade
# grades them, the copy tests/graded/sandbox/intake.c made of it (links and special files refused).
STUDENT_SRC ?= $(STUDENT_DIR_MAKE)
# (the copy: each regular file as it is now, its date kept, so an edit rebuilds it)
$(if $(filter $(BUILD_ROOT)/student-src/%,$(STUDENT_DIR_MAKE)),$(shell src=$(call sqd,$(abspath \
  $(call enc,$(STUDENT_DIR)))); dst=$(STUDENT_DIR_MAKE); rm -f "$$dst" 2>/dev/null; \
  for f in $(LESSONS:%=%/exercises.c) $(CU_LESSONS:%=%/exercises.cu); do \
  if [ -f "$$src/$$f" ] && [ ! -p "$$src/$$f" ]; then mkdir -p "$$dst/$${f%/*}" && \
  { cmp -s -- "$$src/$$f" "$$dst/$$f" || cp -p -- "$$src/$$f" "$$dst/$$f"; }; else rm -f "$$dst/$$f"; fi; done))
override STUDENT_SRC := $(strip $(STUDENT_SRC))
$(if $(call plain,$(STUDENT_SRC)),,$(call bad,STUDENT_SRC,give a plain path (letters$(comma) digits and / . _ - + @ $(comma))))
ex_dir      = $(if $(filter lessons,$(1)),student/$(STUDENT_KEY),solutions)
ex_obj      = $(BUILD)/obj/$(call ex_dir,$(1))/$(2)/exercises.o
# What the grader links: a student's objects after tests/graded/allow/check_student.pl.
# (GRADE_UNCHECKED=1 skips the check: only for tests/graded/selfcheck/selftest.py, which shows
# that the runner/judge split alone still gives a forgery 0.)
graded_student = $(if $(filter 1,$(GRADE_UNCHECKED)),,$(filter lessons,$(1)))
ex_gobj     = $(if $(call graded_student,$(1)),$(BUILD)/obj/student/$(STUDENT_KEY)/$(2)/exercises.checked.o,$(call ex_obj,$(1),$(2)))
EX_OBJ      = $(foreach d,$(LESSONS),$(call ex_obj,$(1),$(d)))
# A lesson's CUDA exercise (exercises.cu), built for flavour $(3): sim or cuda.
excu_obj    = $(BUILD)/obj/$(3)/$(call ex_dir,$(1))/$(2)/exercises.o
excu_gobj   = $(if $(call graded_student,$(1)),$(BUILD)/obj/$(3)/student/$(STUDENT_KEY)/$(2)/exercises.checked.o,$(call excu_obj,$(1),$(2),$(3)))
EXCU_OBJ    = $(foreach d,$(CU_LESSONS),$(call excu_obj,$(1),$(d),$(2)))

# Programs come in three flavours, which differ only in the GPU backend:
#   cpu   no CUDA at all: lib/device/backend_none.c says so to every GPU request
#   sim   the CUDA simulator: backend_cuda.c against lib/cudasim/include,
#         kernels translated by cu2sim.pl and run on the CPU
#   cuda  real CUDA: backend_cuda.c and the kernels built by nvcc
# flavor_objs IMPL FLAVOUR lists what a program links besides its own objects.
BACKEND_cpu  = $(BUILD)/obj/lib/device/backend_none.o
BACKEND_sim  = $(BUILD)/obj/simc/lib/device/backend_cuda.o
BACKEND_cuda = $(BUILD)/obj/cudac/lib/device/backend_cuda.o
flavor_objs = $(call EX_OBJ,$(1)) $(BACKEND_$(2)) \
              $(if $(filter sim,$(2)),$(call EXCU_OBJ,$(1),sim) $(SIM_KOBJ)) \
              $(if $(filter cuda,$(2)),$(call EXCU_OBJ,$(1),cuda) $(CUDA_KOBJ)) \
              $(LIB_A) $(if $(filter sim,$(2)),$(SIM_A))
flavor_libs = $(if $(filter cuda,$(1)),$(CUDA_LIBS)) $(BLAS_LIBS) $(MPI_LIBS) $(LDLIBS)
flavor_link = $(if $(filter cpu,$(1)),$(CC),$(CXX))
# The lessons and the bench: real CUDA when nvcc is here, else no GPU parts;
# SIM=1 runs their GPU parts on the simulator (built apart, in BUILD-sim).
APP_FLAVOR := $(if $(filter 1,$(SIM)),sim,$(if $(NVCC),cuda,cpu))
# lesson37's parts: each lesson's lesson.c, the option parser they share, and
# Lesson 03's demos, a file each (all built by the $(BUILD)/obj/lessons/%.o rule).
PART_SRC   := $(LESSONS:%=lessons/%/lesson.c) lessons/options.c \
              $(wildcard lessons/03_why_gpu_slower/demo_*.c)
PART_OBJ   := $(PART_SRC:lessons/%.c=$(BUILD)/obj/lessons/%.o)
UNIT_SRC   := $(wildcard tests/unit/*.c) tests/common/fixture.c tests/common/fixture_tensor.c \
              tests/common/iris.c tests/common/tmpdir.c
UNIT_OBJ   := $(UNIT_SRC:%.c=$(BUILD)/obj/%.o)

# Graded suites: the files of tests/graded/cases/NN/ for lesson NN (the cases of each
# exercise, and suite.c, the table), each built three ways (tests/graded/cases/graded.h):
#   $(BUILD)/grade/judgeNN          its JUDGE halves: no exercise code in it at all
#   $(BUILD)/grade/runNN            its RUN halves, without lesson NN's exercises: it loads
#                                   them from a shared object once its system-call filter
#                                   is in place (tests/graded/runner/student.h,
#                                   tests/graded/sandbox/sandbox.h)
#   $(BUILD)/grade/reference/runNN  the RUN halves that compute reference values,
#                                   linked with the answers only
# and $(BUILD)/grade/ref/NN.records, what the reference runner recorded once. The
# shared objects: $(BUILD)/grade/solutions/NN.so (the answers) and
# $(BUILD)/grade/student/KEY/NN.so (the student's files of STUDENT_DIR, checked first).
GRADED     := $(patsubst tests/graded/cases/%/suite.c,%,$(wildcard tests/graded/cases/[0-9][0-9]/suite.c))
GRADE_LESSONS := $(or $(LESSON),$(GRADED))
lesson_dir  = $(filter $(1)_%,$(LESSONS))
GRADE_RUN_OBJ := $(BUILD)/obj/tests/graded/runner/runner.o $(BUILD)/obj/tests/graded/protocol/protocol.o \
              $(BUILD)/obj/tests/graded/runner/student.o $(BUILD)/obj/tests/graded/sandbox/sandbox_filter.o \
              $(BUILD)/obj/tests/graded/sandbox/sandbox_guard.o \
              $(BUILD)/obj/tests/common/fixture.o $(BUILD)/obj/tests/common/fixture_tensor.o \
              $(BUILD)/obj/tests/common/iris.o $(BUILD)/obj/tests/common/tmpdir.o
GRADE_JUDGE_OBJ := $(BUILD)/obj/tests/graded/judge/judge.o $(BUILD)/obj/tests/graded/judge/expect.o \
              $(BUILD)/obj/tests/graded/protocol/protocol.o $(BUILD)/obj/tests/graded/judge/code_lines.o \
              $(BUILD)/obj/tests/graded/sandbox/sandbox_os.o $(BUILD)/obj/tests/graded/sandbox/sandbox_limits.o \
              $(BUILD)/obj/tests/graded/sandbox/sandbox_landlock.o $(BUILD)/obj/tests/common/fixture.o \
              $(BUILD)/obj/lib/core/err.o $(BUILD)/obj/lib/core/fileio.o
SECCOMP_LIBS := $(or $(shell pkg-config --libs libseccomp 2>/dev/null),-lseccomp)
# A lesson's runner links every other lesson's exercises from the answers, so one
# lesson's compile error costs only that lesson; its own come from the shared object.
# Lessons with a CUDA exercise are graded on the GPU if there is one, else on
# the simulator; the others need no GPU at all.
# (GPU_GRADED: lessons without a kernel exercise whose checks still need a device.
# SIM_GRADED: lessons graded on the simulator even where there is a GPU: their cases
# read what only the simulator records, Lesson 03's transpose its every access.)
GPU_GRADED  := 03 04
SIM_GRADED  := 03
# The other lessons' exercises come from the answers, except in the grader package
# (make grader-package), which holds no answers: there the student's own are used,
# and they too are in the shared object.
HAVE_ANSWERS := $(wildcard solutions/[0-9][0-9]_*/exercises.c)
grade_flavor = $(if $(filter $(1),$(SIM_GRADED)),sim,$(if $(filter $(1)_%,$(CU_LESSONS))$(filter $(1),$(GPU_GRADED)),$(if $(HAVE_GPU),cuda,sim),cpu))
flavor_dir  = $(if $(filter sim,$(1)),simc/,$(if $(filter cuda,$(1)),cudac/))
# Suite $(1)'s files for flavour $(2), as $(3): judge, run or reference objects
# (tests/graded/cases/NN/FILE.c becomes .../cases/NN/FILE.run.o, ...).
grade_case_obj = $(patsubst tests/graded/cases/%.c,$(BUILD)/obj/$(call flavor_dir,$(2))tests/graded/cases/%.$(3).o,\
                  $(wildcard tests/graded/cases/$(1)/*.c))
# Lesson $(1)'s shared object holds these lesson folders' exercises (the CUDA file's in
# the sim and cuda flavours $(2)): its own, or all of them in the grader package.
so_lessons  = $(if $(HAVE_ANSWERS),$(call lesson_dir,$(1)),$(LESSONS))
so_cu_lessons = $(if $(filter sim cuda,$(2)),$(filter $(call so_lessons,$(1)),$(CU_LESSONS)))
grade_so_dir = $(BUILD)/grade/$(if $(filter lessons,$(1)),student/$(STUDENT_KEY),solutions)
grade_so_objs = $(foreach d,$(call so_lessons,$(2)),$(call ex_gobj,$(1),$(d))) \
                $(foreach d,$(call so_cu_lessons,$(2),$(3)),$(call excu_gobj,$(1),$(d),$(3)))
# What lesson $(1)'s runner links for flavour $(2): the other lessons' answers (when there
# are answers) and lib in one archive, in which the names its allow list withholds are
# weak, so that the stubs of withheld_NN.c take their place and the linker drops their code;
# the backend, the kernels but those its allow list withholds (withhold-files), and the
# simulator.
withheld_files = $(shell sed -n 's/\#.*//; s/^[[:space:]]*withhold-files:\(.*\)/\1/p' tests/graded/allow/$(1).txt)
kobj_of     = $(if $(filter sim,$(2)),$(patsubst %.cu,$(BUILD)/obj/sim/%.o,$(1)),$(patsubst %.cu,$(BUILD)/obj/cuda/%.o,$(1)))
grade_kobj  = $(filter-out $(call kobj_of,$(call withheld_files,$(1)),$(2)),$(if $(filter sim,$(2)),$(SIM_KOBJ),$(if $(filter cuda,$(2)),$(CUDA_KOBJ))))
grade_ex    = $(if $(filter sim cuda,$(2)),$(if $(HAVE_ANSWERS),$(foreach d,$(filter-out $(call lesson_dir,$(1)),$(CU_LESSONS)),$(call excu_obj,solutions,$(d),$(2))))) \
              $(BACKEND_$(2)) $(call grade_kobj,$(1),$(2)) $(BUILD)/grade/lib/$(1)/libgraded.a \
              $(if $(filter sim,$(2)),$(SIM_A))
# ... and for its whole-lesson cases (runNN-full), which the judge credits only when each
# exercise of the lesson passes a check of its own in runNN: all the rest.
grade_ex_full = $(if $(HAVE_ANSWERS),$(foreach d,$(filter-out $(call lesson_dir,$(1)),$(LESSONS)),$(call ex_obj,solutions,$(d))) \
                $(if $(filter sim cuda,$(2)),$(foreach d,$(filter-out $(call lesson_dir,$(1)),$(CU_LESSONS)),$(call excu_obj,solutions,$(d),$(2))))) \
              $(BACKEND_$(2)) $(if $(filter sim,$(2)),$(SIM_KOBJ)) $(if $(filter cuda,$(2)),$(CUDA_KOBJ)) \
              $(LIB_A) $(if $(filter sim,$(2)),$(SIM_A))
# The reference runner: the answers of every lesson linked in.
grade_ref_ex = $(foreach d,$(LESSONS),$(call ex_obj,solutions,$(d))) \
              $(if $(filter sim cuda,$(2)),$(foreach d,$(CU_LESSONS),$(call excu_obj,solutions,$(d),$(2)))) \
              $(BACKEND_$(2)) $(if $(filter sim,$(2)),$(SIM_KOBJ)) $(if $(filter cuda,$(2)),$(CUDA_KOBJ)) \
              $(LIB_A) $(if $(filter sim,$(2)),$(SIM_A))
GRADE_GEN   := $(BUILD)/grade/gen
GRADE_INTAKE := $(BUILD)/grade/intake
# The longest a student's files may take to compile, with their static checks (seconds of
# wall-clock time, and of CPU time per process), under the limits of tests/graded/sandbox/confine.c.
GRADE_COMPILE_LIMIT ?= 300
GRADE_CONFINE := $(BUILD)/grade/confine
# make grade compiles a student's files, and translates their kernels for the simulator
# (cu2sim.pl inlines the local headers a .cu file includes), in a view of their own
# (tests/graded/sandbox/sandbox_compile.c: the system's folders, the submission's copy, lib/ and
# kernels/, read-only; the output's folder; nothing else): GRADE_VIEW=1 is what it passes
# to the make of a lesson's shared object. $(1): a file of the build the compile reads too
# (a kernel's translation).
GRADE_VIEW ?=
grade_view = $(if $(filter 1,$(GRADE_VIEW)),$(GRADE_CONFINE) compile --root $(CURDIR) \
  --read $(CURDIR)/lib --read $(CURDIR)/kernels --copy $(abspath $(STUDENT_SRC)) \
  --read-as $(CURDIR)/lib=$(abspath $(STUDENT_INC))/lib \
  --read-as $(CURDIR)/kernels=$(abspath $(STUDENT_INC))/kernels \
  $(foreach f,$(1),--read $(abspath $(f))) --write $(abspath $(@D)) \
  $(foreach h,$(GRADE_HIDE),--hide $(h)) --)
GRADE_INTAKE_DIR := $(BUILD)/intake/$(STUDENT_KEY)
# The files a submission hands in, as paths under STUDENT_DIR.
GRADE_FILES  := $(foreach d,$(LESSONS),$(d)/exercises.c) $(foreach d,$(CU_LESSONS),$(d)/exercises.cu)
# What the runners must not see, where the sandbox can hide it (sandbox.h): the answers,
# the build tree (other submissions' objects, the reference records), the results.
GRADE_HIDE   = $(wildcard $(CURDIR)/solutions $(CURDIR)/tests/graded/ref $(CURDIR)/.git) \
               $(abspath $(BUILD_ROOT)) $(abspath $(call enc,$(GRADE_OUT))) $(abspath $(call list,$(GRADE_HIDE_ALSO)))
GRADE_EXPORTS := $(GRADE_GEN)/runner.exports
GRADE_JUDGES := $(GRADED:%=$(BUILD)/grade/judge%)
GRADE_REFS   := $(GRADED:%=$(BUILD)/grade/ref/%.records)
GRADE_DRIVER := $(BUILD)/grade/driver

LESSON37    = $(BUILD)/$(1)/lesson37
DEMOS      := sync launch copy batch fused timeline
UNIT_BIN   := $(BUILD)/tests/unit_tests
# The hostile-input corpus (tests/hostile) and the fuzz targets (tests/fuzz).
HOSTILE_BIN := $(BUILD)/tests/hostile_inputs
FUZZ_TARGETS := safetensors config csv
FUZZ_BINS  := $(FUZZ_TARGETS:%=$(BUILD)/fuzz_%)
BENCH_BIN  := $(BUILD)/solutions/bench_iris
BENCH_GEMM := $(BUILD)/solutions/bench_sgemm
BENCH_TRAINER := $(BUILD)/solutions/bench_trainer

KERNEL_CU  := $(wildcard kernels/*.cu)
SIM_A      := $(BUILD)/libcudasim.a
SIM_OBJ    := $(patsubst $(SIM_DIR)/%.cpp,$(BUILD)/obj/cudasim/%.o,$(sort $(wildcard $(SIM_DIR)/*/*.cpp)))
SIM_KOBJ   := $(KERNEL_CU:%.cu=$(BUILD)/obj/sim/%.o)
# Tests of the kernels and of lib's GPU paths, in the sim and cuda flavours;
# the simulator's own tests only in the first.
GPU_TEST_SRC := $(wildcard tests/kernels/*.c) tests/gpu/check_gpu.c tests/gpu/check_gpu_main.c \
                tests/common/fixture.c tests/common/fixture_tensor.c tests/common/iris.c \
                tests/common/tmpdir.c
SIM_TEST_OBJ := $(GPU_TEST_SRC:%.c=$(BUILD)/obj/simc/%.o) \
                $(patsubst %.c,$(BUILD)/obj/simc/%.o,$(wildcard tests/sim/check_sim*.c) tests/sim/sim_test.c) \
                $(BUILD)/obj/simc/tests/sim/check_profile.o \
                $(BUILD)/obj/sim/tests/sim/sim_kernels.o
SIM_TESTS  := $(BUILD)/tests/sim_tests
CUDA_KOBJ  := $(KERNEL_CU:%.cu=$(BUILD)/obj/cuda/%.o)
GPU_TEST_OBJ := $(GPU_TEST_SRC:%.c=$(BUILD)/obj/cudac/%.o)
GPU_TESTS  := $(BUILD)/tests/gpu_tests

# ---- entry points -------------------------------------------------------
.PHONY: help deps deps-grade deps-docs build gpu-check gpu-deps test-gpu valgrind lesson37 test fuzz bench \
        docs fixtures clean gpu-status grade grader hint try grade-all grader-package demos \
        $(DEMOS:%=demo-%) docs-check sim-run sim-bench test-conformance FORCE

help:
	@echo "Day 37 workbook: GPU training and the __call__ method"
	@echo
	@echo "  make lesson37            run the day's six parts (PART=N for one, ARGS=... for options)"
	@echo "  make lesson37 IMPL=lessons   the same with your own exercises linked in"
	@echo "  make demos               Lesson 03's six timing demos (ARGS=--quick: the class version)"
	@echo "  make demo-sync           one of them: demo-sync, demo-launch, demo-copy, demo-batch, demo-fused, demo-timeline"
	@echo "  make test                build and run the unit tests (SAN=1: with ASan and UBSan)"
	@echo "  make sim-run CU=prog.cu  build a CUDA program (its own main) for the simulator and run it (ARGS=...,"
	@echo "                           INCLUDE=\"dir ...\"); where nvcc is installed it must compile with nvcc too"
	@echo "                           PROFILE=prof.csv: its kernels' counters (ncu's names) and modelled times"
	@echo "  make valgrind            the unit tests under valgrind (built without AVX-512)"
	@echo "  make fuzz                libFuzzer on the three parsers, FUZZ_TIME=60 seconds each (needs clang)"
	@echo "  make grade               grade your exercises (LESSON=01 for one; IMPL=solutions: the answers)"
	@echo "  make hint EX=01.3        a longer hint for one exercise"
	@echo "  make try EX=02.4         your exercise 02.4 at work in its lesson, with the answers for the others"
	@echo "  make grade-all SUBMISSIONS=DIR   grade a class (JOBS=N, SHARD=K/N, OUT=DIR; a folder, Gradescope or Canvas export)"
	@echo "  make grade-report SUBMISSIONS=DIR   summary.csv, gradebook.csv and report.html of what is graded"
	@echo "  make grader-package      the zip for Gradescope: the grader without the answers"
	@echo "  make bench               Iris against PyTorch, our SGEMM against cuBLAS, the trainer's overhead, mixed precision"
	@echo "  make sim-bench           the CUDA simulator's time over a plain C loop's: checked, unchecked, profiled"
	@echo "  make docs                the HTML docs in build/docs, with figures the lessons draw here (warnings and changed code spans are errors)"
	@echo "  make docs-check          open every page of the built docs in headless Chromium (installed first as root): images, figures, links"
	@echo "  make gpu-check           on a GPU machine: build for it, run the GPU tests, write out/gpu-check.txt"
	@echo "  make gpu-deps            download what gpu-check needs, for a GPU machine without network"
	@echo "  make test-gpu            only the kernel and GPU-path tests, on the GPU"
	@echo "  make deps                install what a fresh Debian needs (as root) or print the command"
	@echo "  make build               build everything without running it"
	@echo "  make fixtures            regenerate tests/fixtures with PyTorch (needs python3-torch)"
	@echo "  make clean               remove build/ and out/"
	@echo
	@echo "  Variables: IMPL=solutions|lessons  PART=1..6  ARGS='--epochs 5000'  SAN=1  ARCH=native"
	@echo "             SIM=1 (lessons: GPU parts on the CUDA simulator, for machines without a GPU)"
	@echo "             GPU=h100 (the simulator's time model: h200 h100 a100 l4 t4 rtx4090 rtx4070-laptop)"
	@echo "             STUDENT_DIR=lessons  BUILD_ROOT=build  GRADE_OUT=build/grade  V=1"

# The Debian packages the workbook uses; the check is quick, so every run does it.
# `deps` wants them all; `deps-grade` only what the grader needs (Check), so a
# grading image (Gradescope) need not install gnuplot or Doxygen.
DEPS_ALL   := pkg-config check g++ gnuplot-nox doxygen python3 python3-yaml libopenblas-dev libjansson-dev \
              zlib1g-dev openmpi-bin libopenmpi-dev libseccomp-dev
DEPS_GRADE := pkg-config check g++ libopenblas-dev libjansson-dev zlib1g-dev openmpi-bin \
              libopenmpi-dev libseccomp-dev
# `deps-docs`: what make docs-check adds (a headless browser), installed only when asked.
DEPS_DOCS  := chromium chromium-driver python3-selenium
define deps_recipe
	@missing=""; \
	for p in $(1); do case $$p in \
	  pkg-config) command -v pkg-config >/dev/null 2>&1 || missing="$$missing $$p" ;; \
	  check) pkg-config --exists check 2>/dev/null || missing="$$missing $$p" ;; \
	  g++) command -v g++ >/dev/null 2>&1 || missing="$$missing $$p" ;; \
	  gnuplot-nox) command -v gnuplot >/dev/null 2>&1 || missing="$$missing $$p" ;; \
	  doxygen) command -v doxygen >/dev/null 2>&1 || missing="$$missing $$p" ;; \
	  python3) command -v python3 >/dev/null 2>&1 || missing="$$missing $$p" ;; \
	  python3-yaml) python3 -c 'import yaml' >/dev/null 2>&1 || missing="$$missing $$p" ;; \
	  libopenblas-dev) pkg-config --exists openblas 2>/dev/null || missing="$$missing $$p" ;; \
	  libjansson-dev) pkg-config --exists jansson 2>/dev/null || missing="$$missing $$p" ;; \
	  zlib1g-dev) pkg-config --exists zlib 2>/dev/null || missing="$$missing $$p" ;; \
	  openmpi-bin) command -v mpirun >/dev/null 2>&1 || missing="$$missing $$p" ;; \
	  libopenmpi-dev) pkg-config --exists mpi-c 2>/dev/null || missing="$$missing $$p" ;; \
	  libseccomp-dev) pkg-config --exists libseccomp 2>/dev/null || missing="$$missing $$p" ;; \
	  chromium) command -v chromium >/dev/null 2>&1 || missing="$$missing $$p" ;; \
	  chromium-driver) command -v chromedriver >/dev/null 2>&1 || missing="$$missing $$p" ;; \
	  python3-selenium) /usr/bin/python3 -c 'import selenium' >/dev/null 2>&1 || \
	    missing="$$missing $$p" ;; \
	esac; done; \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "make deps: installing$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -q $$missing >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null && apt-get install -y -q $$missing >/dev/null; } || \
	    { echo "make deps: apt-get could not install$$missing"; exit 1; }; \
	else \
	  echo "make deps: missing$$missing; install them with:"; \
	  echo "  sudo apt-get install -y$$missing"; \
	fi
endef

deps:
	$(call deps_recipe,$(DEPS_ALL))

deps-grade:
	$(call deps_recipe,$(DEPS_GRADE))

deps-docs:
	$(call deps_recipe,$(DEPS_DOCS))

gpu-status:
	@if [ -z "$(NVCC)" ]; then echo "GPU parts: nvcc not found, so only the simulator" \
	  "runs the kernels (the CPU parts build and run as usual)"; \
	elif [ -z "$(HAVE_GPU)" ]; then echo "GPU parts: built with $(NVCC); no CUDA device" \
	  "here, so the kernels are tested on the simulator"; \
	else echo "GPU parts: built with $(NVCC); a CUDA device is here"; fi

build: $(call LESSON37,solutions) $(call LESSON37,lessons) $(UNIT_BIN) $(BENCH_BIN) $(BENCH_GEMM) $(BENCH_TRAINER) \
       $(SIM_TESTS) $(if $(NVCC),$(GPU_TESTS)) \
       $(GRADE_DRIVER) $(GRADE_JUDGES) $(GRADED:%=$(BUILD)/grade/run%) $(GRADED:%=$(BUILD)/grade/run%-full) \
       $(GRADED:%=$(call grade_so_dir,solutions)/%.so) $(GRADED:%=$(BUILD)/grade/reference/run%)

# A run that stops at an exercise not written yet (lesson37's status 3) ends with the line
# that names it: make succeeds, so that it adds no "Error" line of its own after it.
lesson37: deps gpu-status $(call LESSON37,$(IMPL))
	@$(SIM_RES) $(SIM_ENV) $(call LESSON37,$(IMPL)) $(if $(PART),--part $(PART)) $(ARGS) || \
	  { st=$$?; [ $$st = 3 ] || exit $$st; }

# Lesson 03's demos, for class: make demo-sync, ..., make demos for all six
# (ARGS=--quick for the short version). Each prints its table and writes its
# CSV and chart to out/.
demos: deps gpu-status $(call LESSON37,$(IMPL))
	@$(SIM_RES) $(SIM_ENV) $(call LESSON37,$(IMPL)) --part 3 --demo all $(ARGS)

$(DEMOS:%=demo-%): demo-%: deps gpu-status $(call LESSON37,$(IMPL))
	@$(SIM_RES) $(SIM_ENV) $(call LESSON37,$(IMPL)) --part 3 --demo $* $(ARGS)

# Sanitized builds run several times slower: their tests get four times Check's time limits.
TEST_ENV = $(if $(filter 1,$(SAN)),CK_TIMEOUT_MULTIPLIER=$${CK_TIMEOUT_MULTIPLIER:-4})
test: deps gpu-status
	@pkg-config --exists check || { echo "make test needs Check, the C unit-test library:" \
	  "sudo apt-get install -y check (or make deps as root)"; exit 1; }
	@# -s: a target already built is not news ("make[1]: ... is up to date")
	@$(MAKE) --no-print-directory $(if $(filter 1,$(V)),,-s) $(UNIT_BIN) $(HOSTILE_BIN) $(call LESSON37,solutions) \
	  $(SIM_TESTS) $(if $(NVCC),$(GPU_TESTS))
	@echo "== unit tests of lib (CPU)"
	@$(TEST_ENV) $(UNIT_BIN)
	@echo "== hostile inputs: the corpus of tests/hostile, every truncation, bit flips"
	@$(HOSTILE_BIN)
	@bash tests/hostile/cli.sh $(call LESSON37,solutions)
	@echo "== kernels and the simulator, on the CUDA simulator (CPU)"
	@$(TEST_ENV) ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=1}:allow_user_segv_handler=1 $(SIM_TESTS)
	@$(MAKE) --no-print-directory test-conformance
	@$(if $(NVCC),bash tests/sim/nvcc_check_test.sh "$(NVCC)" "$(BUILD_ROOT)",echo "== nvcc's check of" \
	  "make sim-run: skipped, no nvcc here")
	@bash tests/sim/sim_run_include_test.sh "$(BUILD_ROOT)"
	@bash tests/sim/sim_run_sources_test.sh "$(BUILD_ROOT)" "$(NVCC)"
	@bash tests/sim/profile_files_test.sh "$(BUILD_ROOT)" "$(NVCC)"
	@echo "== make's variables: values of the wrong form, and paths with spaces, quotes and \$$(...)"
	@bash tests/hostile/make_vars.sh "$(BUILD_ROOT)" "$(NVCC)"
	@$(if $(NVCC),$(if $(wildcard $(CUDA_HOME)/include/cuda_runtime_api.h),bash \
	  tests/sim/api_signatures_test.sh "$(CUDA_HOME)/include" "$(BUILD_ROOT)"))
	@$(if $(wildcard $(CUDA_HOME)/include/cccl/thrust $(CUDA_HOME)/include/thrust),bash \
	  tests/sim/library_headers_test.sh "$(CUDA_HOME)/include" "$(BUILD_ROOT)")
	@if [ -n "$(HAVE_GPU)" ]; then echo "== kernels on the GPU"; \
	  ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=0}:protect_shadow_gap=0 $(GPU_TESTS); \
	else echo "== kernels on a GPU: skipped, no CUDA device here (they ran on the simulator)"; fi

grade: deps-grade
	@pkg-config --exists check || { echo "make grade needs Check, the C unit-test library:" \
	  "sudo apt-get install -y check (or make deps as root)"; exit 1; }
	@$(if $(filter-out $(GRADED),$(GRADE_LESSONS)),echo "make grade: no graded suite for lesson \
	  $(filter-out $(GRADED),$(GRADE_LESSONS)) (graded: $(GRADED))"; exit 2)
	@mkdir -p -- $(call sq,$(GRADE_OUT))
	@# Always recompile the student's files (all of them: in the grader package the
	@# other lessons' are the student's too): a submission may carry an old date.
	@$(if $(filter lessons,$(GRADE_IMPL)),rm -rf $(BUILD)/obj/student/$(STUDENT_KEY) \
	  $(BUILD)/obj/sim/student/$(STUDENT_KEY) $(BUILD)/obj/cuda/student/$(STUDENT_KEY) \
	  $(BUILD)/sim/student/$(STUDENT_KEY))
	@$(MAKE) --no-print-directory $(GRADE_DRIVER) $(GRADE_CONFINE) \
	  $(foreach l,$(GRADE_LESSONS),$(BUILD)/grade/judge$(l) $(BUILD)/grade/ref/$(l).records \
	    $(BUILD)/grade/run$(l) $(BUILD)/grade/run$(l)-full) >/dev/null
	@# The student's files are graded from a copy (tests/graded/sandbox/intake.c): a link, a
	@# second name of a file or a special file is refused, and that lesson scores 0.
	@$(if $(filter lessons,$(GRADE_IMPL)),rm -rf $(GRADE_INTAKE_DIR) && mkdir -p $(BUILD)/intake && \
	  $(MAKE) --no-print-directory $(GRADE_INTAKE) >/dev/null && \
	  $(GRADE_INTAKE) --from $(call sq,$(STUDENT_DIR)) --to $(GRADE_INTAKE_DIR) $(GRADE_INTAKE_OPTS) $(GRADE_FILES))
	@# A lesson whose file is not there is "not handed in" (not make's missing rule).
	@for l in $(GRADE_LESSONS); do \
	  rm -f $(call grade_so_dir,$(GRADE_IMPL))/$$l.so; \
	  if [ -n "$(filter lessons,$(GRADE_IMPL))" ] && \
	     cat $(GRADE_INTAKE_DIR)/$(if $(HAVE_ANSWERS),$${l}_*,*)/*.refused > $(call sq,$(GRADE_OUT))/compile_$$l.log 2>/dev/null; then \
	    echo 1 > $(call sq,$(GRADE_OUT))/compile_$$l.status; continue; fi; \
	  missing=; $(if $(filter lessons,$(GRADE_IMPL)),for f in $(GRADE_FILES); do case $$f in ($${l}_*) \
	    [ -f $(GRADE_INTAKE_DIR)/$$f ] || missing="$$missing $$f";; esac; done;) \
	  if [ -n "$$missing" ]; then echo "not handed in: "$(call sq,$(STUDENT_DIR))" has no$$missing" \
	    > $(call sq,$(GRADE_OUT))/compile_$$l.log; echo 1 > $(call sq,$(GRADE_OUT))/compile_$$l.status; continue; fi; \
	  $(GRADE_CONFINE) limits --what "compiling lesson $$l" --time $(GRADE_COMPILE_LIMIT) \
	    --log $(call sq,$(GRADE_OUT))/compile_$$l.log -- \
	    $(MAKE) --no-print-directory $(call grade_so_dir,$(GRADE_IMPL))/$$l.so IMPL=$(GRADE_IMPL) \
	    $(if $(filter lessons,$(GRADE_IMPL)),STUDENT_SRC=$(GRADE_INTAKE_DIR) GRADE_VIEW=1); \
	  st=$$?; echo $$st > $(call sq,$(GRADE_OUT))/compile_$$l.status; \
	  $(if $(filter lessons,$(GRADE_IMPL)),sed -i $(call sq,s|$(GRADE_INTAKE_DIR)/|$(call sed_text,$(STUDENT_DIR))/|g) \
	    $(call sq,$(GRADE_OUT))/compile_$$l.log;) \
	 done
	@$(GRADE_DRIVER) --impl $(GRADE_IMPL) --out $(call sq,$(GRADE_OUT)) --bin $(BUILD)/grade \
	  --so $(call grade_so_dir,$(GRADE_IMPL)) $(foreach h,$(GRADE_HIDE),--hide $(call sqd,$(h))) \
	  --lessons "$(GRADE_LESSONS)" --files $(call sq,$(if $(filter lessons,$(GRADE_IMPL)),$(STUDENT_DIR),solutions))

# A class: make grade for every submission, JOBS at once, into OUT (tests/graded/class/grade_all.py).
GRADE_ALL = python3 tests/graded/class/grade_all.py --submissions=$(call sq,$(SUBMISSIONS)) \
  --out=$(call sq,$(if $(strip $(OUT)),$(OUT),$(BUILD_ROOT)/submissions)) --lessons "$(GRADE_LESSONS)" \
  --columns=$(call sq,$(GRADEBOOK_COLUMNS)) --build-root "$(BUILD_ROOT)" --build "$(BUILD)"
grade-all: deps-grade
	@test -n $(call sq,$(strip $(SUBMISSIONS))) || { echo "usage: make grade-all SUBMISSIONS=DIR" \
	  "[JOBS=N] [SHARD=K/N] [OUT=DIR] [LESSON=NN]"; exit 2; }
	@command -v python3 >/dev/null || { echo "make grade-all needs Python 3: sudo apt-get install python3"; exit 1; }
	@$(GRADE_ALL) --jobs "$(JOBS)" --shard "$(SHARD)" grade

.PHONY: grade-report
grade-report:
	@test -n $(call sq,$(strip $(SUBMISSIONS))) || { echo "usage: make grade-report SUBMISSIONS=DIR [OUT=DIR]"; exit 2; }
	@$(GRADE_ALL) report

# make try EX=NN.N: one exercise at work as soon as it is written. The part of the lessons
# that runs it, in its short form (the options of tests/student_path.sh), with your
# exercise NN.N and the answers for every other one (lessons/try.py writes that mix into
# BUILD_ROOT/try/src), on the CUDA simulator where there is no GPU. ARGS adds options.
TRY_SRC := $(BUILD_ROOT)/try/src
try: deps
	@part=$$(python3 lessons/try.py "$(EX)" $(call sq,$(STUDENT_DIR)) "$(TRY_SRC)") || exit 0; \
	case $$part in 1) a="--epochs 2000";; 2) a="--no-matmul --epochs 200";; \
	  4) a="--n 200 --width 64";; 6) a="--quick --no-cost";; *) a="--quick";; esac; \
	echo "make try: exercise $(EX) from "$(call sq,$(STUDENT_DIR))"/, every other exercise from solutions/:" \
	  "Part $$part$(if $(HAVE_GPU),, on the CUDA simulator)"; \
	$(MAKE) --no-print-directory lesson37 IMPL=lessons STUDENT_DIR=$(TRY_SRC) PART=$$part \
	  $(if $(HAVE_GPU),,SIM=1) ARGS="$$a $(ARGS)"

# What make hint cannot show is said in one line, and nothing after it: the recipe ends
# well (a failed one would get make's own "Error" line).
hint:
	@test -n "$(EX)" || { echo "usage: make hint EX=01.3"; exit 0; }; \
	dir=$$(ls -d lessons/$(firstword $(subst ., ,$(EX)))_*/ 2>/dev/null | head -1); \
	file=$${dir}hints.md; \
	test -f "$$file" || { echo "make hint: EX=$(EX): there is no lesson" \
	  "$(firstword $(subst ., ,$(EX))) (the lessons: $$(ls -d lessons/[0-9][0-9]_*/ | \
	  sed 's|lessons/\([0-9]*\)_.*|\1|' | tr '\n' ' ' | sed 's/ $$//'))"; exit 0; }; \
	awk -v ex="$(EX)" '/^## / { on = ($$2 == ex) } on' "$$file" | grep . >/dev/null || \
	  { echo "make hint: EX=$(EX): $$file has no exercise $(EX) (its exercises:" \
	    "$$(awk '/^## / { print $$2 }' "$$file" | tr '\n' ' ' | sed 's/ $$//'))"; exit 0; }; \
	awk -v ex="$(EX)" '/^## / { on = ($$2 == ex) } on' "$$file"

# libFuzzer on the checkpoint (safetensors), config and CSV readers, FUZZ_TIME seconds each,
# from the seeds of tests/fuzz, tests/hostile and a real checkpoint; what it finds stays in
# BUILD_ROOT/fuzz/corpus for the next run, a crash in BUILD_ROOT/fuzz/crash-*.
FUZZ_DIR := $(BUILD_ROOT)/fuzz
fuzz:
	@command -v clang >/dev/null || { echo "make fuzz needs clang and libFuzzer:" \
	  "sudo apt-get install -y clang libclang-rt-14-dev"; exit 1; }
	@$(MAKE) --no-print-directory SAN=fuzz CC=clang $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%) \
	  $(FUZZ_DIR)/tests/hostile_inputs
	@rm -rf $(FUZZ_DIR)/seeds && mkdir -p $(FUZZ_DIR)/seeds/safetensors
	@$(FUZZ_DIR)/tests/hostile_inputs --write-seeds $(FUZZ_DIR)/seeds/safetensors
	@for t in $(FUZZ_TARGETS); do \
	  case $$t in safetensors) seeds="$(FUZZ_DIR)/seeds/safetensors" ;; \
	    config) seeds="tests/fuzz/seeds/config tests/hostile/configs" ;; \
	    csv) seeds="tests/fuzz/seeds/csv tests/hostile/csv" ;; esac; \
	  mkdir -p $(FUZZ_DIR)/corpus/$$t; \
	  log=$(FUZZ_DIR)/fuzz_$$t.log; \
	  if $(FUZZ_DIR)/fuzz_$$t -max_total_time=$(strip $(FUZZ_TIME)) -timeout=10 \
	      -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/ \
	      $(FUZZ_DIR)/corpus/$$t $$seeds > $$log 2>&1; then \
	    echo "== fuzz_$$t: $(strip $(FUZZ_TIME)) s, clean: $$(grep -o 'number_of_executed_units: [0-9]*' $$log \
	      | grep -o '[0-9]*') inputs, corpus $$(ls $(FUZZ_DIR)/corpus/$$t | wc -l) files, $$(grep -o 'cov: [0-9]*' \
	      $$log | tail -1) (full log: $$log)"; \
	  else tail -60 $$log; echo "make fuzz: fuzz_$$t failed (the input: $(FUZZ_DIR)/crash-*, log: $$log)"; \
	    exit 1; fi; \
	done

# valgrind does not decode AVX-512: build for x86-64-v3 (AVX2) in a tree of its own.
valgrind: deps
	@command -v valgrind >/dev/null || { echo "make valgrind needs valgrind:" \
	  "sudo apt-get install -y valgrind"; exit 1; }
	@$(MAKE) --no-print-directory BUILD_ROOT=$(BUILD_ROOT)/vg ARCH=x86-64-v3 \
	  $(BUILD_ROOT)/vg/rel/tests/unit_tests
	@echo "== unit tests under valgrind (leaks and invalid accesses are errors)"
	@CK_FORK=no valgrind -q --error-exitcode=1 --leak-check=full \
	  --errors-for-leak-kinds=definite,indirect $(BUILD_ROOT)/vg/rel/tests/unit_tests

gpu-check:
	@bash tests/gpu_check.sh

# ---- plain CUDA programs on the simulator (docs/simulator.md) --------------
# make sim-run CU=prog.cu [ARGS="..."]: translate, build and run a CUDA program
# that has its own main, as nvcc prog.cu && ./a.out would on a GPU. CU is taken
# from the folder make was started in (make -C path/to/workbook sim-run
# CU=prog.cu works from anywhere), and the program runs there.
SIMRUN_DIR := $(BUILD)/sim-run
# The simulator's profiler (docs/simulator.md, "What a kernel's accesses cost"): PROFILE=FILE
# (or CUDASIM_PROFILE=FILE in the environment) writes a CSV row per launch and a summary per
# kernel; GPU=NAME picks the GPU of lib/cudasim/profile/gpus/ its occupancy and time model are for.
# Registers per thread come from nvcc's resource usage of the same sources, where nvcc is
# installed: nvcc_res sets NVCC_RES to that output (compiled only, cached by content under
# BUILD_ROOT/nvcc-res). This is the one place that says where the counts come from.
SIM_ENV = $(if $(GPU),CUDASIM_GPU=$(call sq,$(GPU_ARG))) $(if $(PROFILE),CUDASIM_PROFILE=$(call sq,$(PROFILE))) \
          CUDASIM_NVCC_RESOURCES=$${NVCC_RES:-}
# SIM=1 lessons: the kernels and the CUDA exercises they link.
SIM_RES = $(if $(filter 1,$(SIM)),$(call nvcc_res,$(abspath $(KERNEL_CU) \
  $(foreach d,$(CU_LESSONS),$(if $(filter lessons,$(IMPL)),$(call enc,$(STUDENT_DIR)),solutions)/$(d)/exercises.cu))))
# (its files are words of enc's form)
nvcc_res = NVCC_RES=; if [ -n "$(NVCC)" ] && [ -n $(call sq,$(PROFILE))"$${CUDASIM_PROFILE:-}" ]; then \
  NVCC_RES=$$(NVCC=$(NVCC) bash $(SIM_DIR)/profile/nvcc_resources.sh $(if $(GPU),$(call sq,$(GPU_ARG)),"$${CUDASIM_GPU:-h100}") \
  $(abspath $(BUILD_ROOT))/nvcc-res $(call sim_include_flags,-I ) $(foreach f,$(1),$(call sqd,$(f)))) || NVCC_RES=; fi;
CU_ABS     := $(if $(strip $(CU)),$(call dec,$(call from_abs,$(call enc,$(CU)))))
# build/.../sim-run/<the program's absolute path, .cu made .sim>. A program whose path make
# cannot name a target by (a space, a quote, a $ in it) is built as alias/<a hash of the
# path>, from a link to it there (CU_ALIAS), and compiled from its own path.
simrun_bin  = $(SIMRUN_DIR)$(basename $(1)).sim
CU_ALIAS   := $(if $(CU_ABS),$(if $(call plain,$(CU_ABS)),,$(SIMRUN_DIR)/alias/$(call hash16,$(CU_ABS)).cu))
CU_BIN     := $(if $(CU_ALIAS),$(CU_ALIAS:.cu=.sim),$(if $(CU_ABS),$(call simrun_bin,$(CU_ABS))))
# CU_ALSO="more.cu host.cpp ...": the program's other sources, as nvcc takes several (a
# list as INCLUDE is, relative to where make was started): each .cu is translated and
# compiled as CU is, each .cpp, .cc, .cxx or .c compiled as host code against the
# simulator's headers, and all are linked into CU's program. Each is built under its own
# path (a path make cannot name a target by, under alias/, as CU's).
CU_ALSO_ABS := $(foreach f,$(call list,$(CU_ALSO)),$(call from_abs,$(f)))
also_alias   = $(SIMRUN_DIR)/alias/$(call hash16,$(call dec,$(1)))$(suffix $(1))
also_obj     = $(if $(call plain,$(call dec,$(1))),$(if $(filter %.cu,$(1)),$(SIMRUN_DIR)$(basename $(1)).o, \
               $(SIMRUN_DIR)$(1).host.o),$(if $(filter %.cu,$(1)),$(basename $(call also_alias,$(1))).o, \
               $(call also_alias,$(1)).host.o))
CU_ALSO_OBJ := $(foreach f,$(CU_ALSO_ABS),$(call also_obj,$(f)))
# The real path of each file built from a link under alias/ (SIMRUN_REAL_<the link>; set by
# reference, never by its text: make would read a $ in it).
CU_ALSO_N   := $(words $(CU_ALSO_ABS))
$(if $(CU_ALIAS),$(eval SIMRUN_REAL_$(CU_ALIAS) := $$(CU_ABS)))
$(foreach i,$(if $(CU_ALSO_ABS),$(shell seq $(CU_ALSO_N))),$(if $(call plain,$(call dec,$(word $(i),$(CU_ALSO_ABS)))),, \
  $(eval SIMRUN_REAL_$(call also_alias,$(word $(i),$(CU_ALSO_ABS))) := $$(call dec,$$(word $(i),$$(CU_ALSO_ABS))))))
# The source of the program of stem $(1) (of the rules below), quoted, and its folder.
simrun_src  = $(if $(filter alias/%,$(1)),$(call sq,$(SIMRUN_REAL_$(SIMRUN_DIR)/$(1).cu)),/$(1).cu)
simrun_dir  = $(if $(filter alias/%,$(1)),$(call sqd,$(dir $(call enc,$(SIMRUN_REAL_$(SIMRUN_DIR)/$(1).cu)))),/$(dir $(1)))
# INCLUDE="dir ...": more folders for #include, relative to where make was
# started, searched after the simulator's own headers (as nvcc searches -I
# folders after its own). CPATH and CPLUS_INCLUDE_PATH are honoured, less any
# folder that holds a CUDA toolkit's headers: the simulator's stand for those
# (docs/simulator.md, "NVIDIA's samples").
SIM_INCLUDE := $(foreach d,$(call list,$(INCLUDE)),$(call from_abs,$(d)))
sim_include_flags = $(foreach d,$(SIM_INCLUDE),$(1)$(call sqd,$(d)))
is_toolkit   = $(if $(call plain,$(call dec,$(1))),$(wildcard $(1)/cuda_runtime_api.h),$(shell test -f \
               $(call sqd,$(1))/cuda_runtime_api.h && echo y))
not_toolkit  = $(subst $(space),:,$(strip $(foreach d,$(subst :, ,$(call enc,$(1))),$(if $(call is_toolkit,$(d)),,$(d)))))
SIM_INC_ENV := CPATH=$(call sqd,$(call not_toolkit,$(call typed,CPATH))) \
               CPLUS_INCLUDE_PATH=$(call sqd,$(call not_toolkit,$(call typed,CPLUS_INCLUDE_PATH)))
# NVCCFLAGS="-arch=sm_80 --extended-lambda ...": nvcc's options for the program. All reach
# nvcc's check; the translation reads those that change what nvcc accepts (-arch, -gencode,
# --extended-lambda: cu2sim.pl --nvcc); -D, -U, -I and -std reach g++ as they reach nvcc.
# (-I folders are taken from where make was started, as INCLUDE's.) Words of enc's form.
SIM_NVCCFLAGS := $(foreach w,$(call list,$(SIM_USER_NVCCFLAGS)),$(if $(and $(filter -I%,$(w)),$(filter-out \
  -I,$(w))),-I$(call from_abs,$(patsubst -I%,%,$(w))),$(w)))
SIM_NVCC_CXX   = $(filter -D% -U% -I% -std=%,$(SIM_NVCCFLAGS))
sim_words     = $(foreach w,$(1),$(call sqd,$(w)))
sim_translate_flags = $(call sim_include_flags,-I ) $(foreach w,$(SIM_NVCCFLAGS),--nvcc $(call sqd,$(w)))
# LDLIBS="-lfoo ..." and LDFLAGS="-L... ...": added to the link of the program (the toolkit's
# libraries the simulator stands for, -lcudart, -lcublas, -lcurand and the like, left out).
# -L folders, and the files LDLIBS names, are taken from where make was started.
SIM_TOOLKIT_LIBS := $(foreach l,cudart cudart_static cudadevrt cuda cublas cublasLt cublas_static \
                    cublasLt_static culibos curand curand_static,-l$(l))
sim_link_word = $(if $(and $(filter -L%,$(1)),$(filter-out -L,$(1))),-L$(call from_abs,$(patsubst -L%,%,$(1))), \
                $(if $(and $(2),$(filter-out -%,$(1))),$(call from_abs,$(1)),$(1)))
SIM_LDLIBS  := $(foreach w,$(filter-out $(SIM_TOOLKIT_LIBS),$(call list,$(SIM_USER_LDLIBS))),$(call sim_link_word,$(w),y))
SIM_LDFLAGS := $(foreach w,$(call list,$(SIM_USER_LDFLAGS)),$(call sim_link_word,$(w)))
# Where nvcc, when installed, is asked first whether the program compiles for
# a GPU (lib/cudasim/translate/nvcc_check.sh; its results, by content, stay here for
# reruns and for tools that read a kernel's register count).
NVCC_CHECK_DIR := $(BUILD_ROOT)/nvcc-check

sim-run: $(SIM_A)
	@test -n $(call sq,$(strip $(CU))) || { echo "make sim-run: say which program: make sim-run CU=path/to/prog.cu" \
	  "[ARGS=\"its arguments\"] [INCLUDE=\"folders\"]"; exit 2; }
	@test -f $(call sq,$(CU_ABS)) || { echo "make sim-run: "$(call sq,$(CU_ABS))": no such file"; exit 2; }
	@$(foreach f,$(CU_ALSO_ABS),test -f $(call sqd,$(f)) || { echo "make sim-run: CU_ALSO: "$(call sqd,$(f))": no such \
	  file"; exit 2; }; $(if $(filter %.cu %.cpp %.cc %.cxx %.c,$(f)),,echo "make sim-run: CU_ALSO: "$(call sqd,$(f))": \
	  give .cu, .cpp, .cc, .cxx or .c files (what nvcc compiles)"; exit 2;))true
	@$(foreach d,$(SIM_INCLUDE),test -d $(call sqd,$(d)) || { echo "make sim-run: INCLUDE: "$(call sqd,$(d))": no such \
	  folder"; exit 2; };) true
	@nvcc=0; $(if $(NVCC),for f in $(call sq,$(CU_ABS)) $(call sim_words,$(CU_ALSO_ABS)); do \
	  bash $(SIM_DIR)/translate/nvcc_check.sh --nvcc "$(NVCC)" --cache "$(NVCC_CHECK_DIR)" \
	  $(foreach w,$(SIM_NVCCFLAGS),$(if $(filter-out -I,$(filter -I%,$(w))),-I $(call sqd,$(patsubst -I%,%,$(w))), \
	  --flag $(call sqd,$(w)))) $(call sim_include_flags,-I ) "$$f" || nvcc=$$?; \
	  [ $$nvcc = 0 ] || { bad=$$f; break; }; done;) \
	$(MAKE) --no-print-directory CU=$(call sq,$(CU_ABS)) INCLUDE=$(call sq,$(call list_text,$(SIM_INCLUDE))) \
	  CU_ALSO=$(call sq,$(call list_text,$(CU_ALSO_ABS))) NVCCFLAGS=$(call sq,$(call list_text,$(SIM_NVCCFLAGS))) \
	  LDLIBS=$(call sq,$(call list_text,$(SIM_LDLIBS))) LDFLAGS=$(call sq,$(call list_text,$(SIM_LDFLAGS))) \
	  $(if $(GPU),GPU=$(call sq,$(GPU_ARG))) $(CU_BIN) || exit $$?; \
	case $$nvcc in 0) ;; 1) echo "make sim-run: nvcc rejects $$bad (its errors are above), so it would" \
	  "not build for a GPU; not run (NVCC= skips this check)"; exit 2;; \
	  *) echo "make sim-run: could not ask nvcc ($(NVCC)) whether $$bad compiles; running it anyway";; esac
	@$(call nvcc_res,$(call enc,$(CU_ABS)) $(filter %.cu,$(CU_ALSO_ABS))) cd $(call sq,$(CU_FROM)) && $(SIM_ENV) \
	  CUDASIM_SUMMARY=$${CUDASIM_SUMMARY:-1} ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=0}:allow_user_segv_handler=1 $(abspath $(CU_BIN)) $(ARGS)

# The include folders and nvcc's options a program was last built with (and the objects and
# libraries it was linked with): a change rebuilds it.
FORCE:
$(SIMRUN_DIR)/%.incs: FORCE
	@mkdir -p $(@D)
	@printf '%s\n' $(call sq,$(SIM_INCLUDE) $(SIM_INC_ENV) $(SIM_NVCCFLAGS)) | cmp -s - $@ || \
	  printf '%s\n' $(call sq,$(SIM_INCLUDE) $(SIM_INC_ENV) $(SIM_NVCCFLAGS)) > $@
$(SIMRUN_DIR)/%.objs: FORCE
	@mkdir -p $(@D)
	@printf '%s\n' $(call sq,$(SIMRUN_EXTRA_OBJS) $(SIM_LDFLAGS) $(SIM_LDLIBS)) | cmp -s - $@ || \
	  printf '%s\n' $(call sq,$(SIMRUN_EXTRA_OBJS) $(SIM_LDFLAGS) $(SIM_LDLIBS)) > $@

# Translate SRC (quoted) to $@, with the headers it pulled in as $@'s dependencies ($@.d).
simrun_translate = $(SIM_INC_ENV) perl $(SIM_DIR)/translate/cu2sim.pl $(sim_translate_flags) --deps $@.d.raw \
  $(1) > $@.tmp && mv $@.tmp $@; st=$$?; perl -e $(call sq,$(SIMRUN_DEPS_PL)) $@.d.raw $@.d $@ $(SIMRUN_DIR)/hdr \
  && exit $$st
$(SIMRUN_DIR)/%.cpp: /%.cu $(CU2SIM_DEPS) $(SIMRUN_DIR)/%.incs
	@mkdir -p $(@D)
	@echo "  CU2SIM /$*.cu"
	$(Q)$(call simrun_translate,/$*.cu)

# A file whose path make cannot name a target by (CU's, CU_ALSO's): built from a link $(1)
# to it, whose real path is SIMRUN_REAL_$(1).
define SIMRUN_ALIAS
$(1):
	@mkdir -p $$(@D) && ln -sfn $$(call sq,$$(SIMRUN_REAL_$(1))) $$@
$(if $(filter %.cu,$(1)),$(1:.cu=.cpp): $(1) $$(CU2SIM_DEPS) $(1:.cu=.incs)
	@echo "  CU2SIM "$$(call sq,$$(SIMRUN_REAL_$(1)))
	$$(Q)$$(call simrun_translate,$$(call sq,$$(SIMRUN_REAL_$(1)))),$(1).host.o: $(1) $(1).incs
	$$(call simrun_host_compile,$$(call sq,$$(SIMRUN_REAL_$(1))),$$(call sqd,$$(dir $$(call \
	  enc,$$(SIMRUN_REAL_$(1)))))))
endef
$(foreach a,$(CU_ALIAS) $(foreach f,$(CU_ALSO_ABS),$(if $(call plain,$(call dec,$(f))),,$(call also_alias,$(f)))), \
  $(eval $(call SIMRUN_ALIAS,$(a))))

# A program prints what nvcc's build prints only if float arithmetic is
# IEEE's, in the order written: nvcc never reassociates (x + big - big is not
# x, a Kahan sum keeps its correction) and keeps the sign of zero.
SIMRUN_FP := -fno-associative-math -fsigned-zeros

# The headers a program read, in the .d.raw file the compiler wrote, go to its .d named by
# what make can take: a path with a character make would read as syntax (; = : % | * ? [ (
# and $, which .SECONDEXPANSION would even expand) becomes a link to it under SIMRUN_DIR/hdr,
# which make dates as the header itself. (Made whether or not the compile succeeded.)
define SIMRUN_DEPS_PL
my ($$raw, $$d, $$target, $$links) = @ARGV;
unlink $$d;
open(my $$f, "<", $$raw) or exit 0;
my $$text = do { local $$/; <$$f> };
close $$f;
unlink $$raw;
$$text =~ s/\\\n/ /g;
my (@deps, %seen);
for my $$word ($$text =~ /((?:\\.|[^\s\\])+)/g) {
    next if $$word =~ /:$$/;
    (my $$path = $$word) =~ s/\\([ \t#])/$$1/g;
    $$path =~ s/\$$\$$/\$$/g;
    next if $$seen{$$path}++;
    if ($$path =~ m{[^A-Za-z0-9/._+\@,\x80-\xff -]}) {
        require Digest::SHA;
        system("mkdir", "-p", $$links);
        my $$link = "$$links/" . Digest::SHA::sha1_hex($$path) . ".h";
        unlink $$link;
        symlink($$path, $$link) or die "$$link: $$!\n";
        $$path = $$link;
    }
    $$path =~ s/ /\\ /g;
    push @deps, $$path;
}
open($$f, ">", $$d) or die "$$d: $$!\n";
print $$f "$$target: @deps\n", map { "$$_:\n" } @deps;
close $$f or die "$$d: $$!\n";
endef
# A program is compiled as nvcc compiles one, without g++'s -Wall and -Wextra (nvcc's own
# warnings came from its check); of g++'s messages, those about the simulator's own headers
# are summed up, one line each (translate/gxx_messages.pl; all of them in the .log).
SIMRUN_CXXFLAGS = $(filter-out -Wall -Wextra,$(CXXFLAGS_KSIM)) $(SIMRUN_FP) -fno-diagnostics-show-caret
simrun_messages = 2> $(@:.o=.log); st=$$?; perl $(SIM_DIR)/translate/gxx_messages.pl $(SIM_DIR) $(@:.o=.log);
$(SIMRUN_DIR)/%.o: $(SIMRUN_DIR)/%.cpp
	@echo "  CXX   "$(call simrun_src,$*)" (simulator)"
	$(Q)$(SIM_INC_ENV) $(CXX) $(SIMRUN_CXXFLAGS) -iquote $(call simrun_dir,$*) $(call sim_include_flags,-I) \
	  $(call sim_words,$(SIM_NVCC_CXX)) -MF $(@:.o=.d.raw) -c $< -o $@ $(simrun_messages) \
	  perl -e $(call sq,$(SIMRUN_DEPS_PL)) $(@:.o=.d.raw) $(@:.o=.d) $@ $(SIMRUN_DIR)/hdr && exit $$st
	$(Q)$(if $(SIMRUN_TWIN),bash $(SIM_DIR)/translate/twin_globalize.sh $@ $@)

# The twin of each translated file (lib/cudasim/exec/twins.cpp): compiled again without the
# instrumentation, for the launches that run unchecked, and linked into PROGRAM.twin.so
# (translate/twin_link.sh); in both builds the functions of internal linkage get global
# names of their own (translate/twin_globalize.sh), so that a static kernel has a twin
# too. Its code reaches the program's thread coordinates as the
# program's own (initial-exec TLS) and may inline its own functions; each function in a
# section of its own, for translate/twin_parallel.pl. Not in a SAN=1 build.
SIMRUN_TWIN := $(if $(filter 1,$(SAN)),,1)
SIMRUN_TWIN_CXXFLAGS = $(filter-out $(SIM_CHECK),$(SIMRUN_CXXFLAGS)) -ftls-model=initial-exec \
                       -fno-semantic-interposition -ffunction-sections -fdata-sections
$(SIMRUN_DIR)/%.twin.o: $(SIMRUN_DIR)/%.cpp
	@echo "  CXX   "$(call simrun_src,$*)" (simulator, uninstrumented twin)"
	$(Q)$(SIM_INC_ENV) $(CXX) $(SIMRUN_TWIN_CXXFLAGS) -iquote $(call simrun_dir,$*) $(call sim_include_flags,-I) \
	  $(call sim_words,$(SIM_NVCC_CXX)) -MF $(@:.o=.d.raw) -c $< -o $@ 2> $(@:.o=.log); st=$$?; \
	  perl -e $(call sq,$(SIMRUN_DEPS_PL)) $(@:.o=.d.raw) $(@:.o=.d) $@ $(SIMRUN_DIR)/hdr && exit $$st
	$(Q)bash $(SIM_DIR)/translate/twin_globalize.sh $@ $(@:.twin.o=.o)

# A host source of CU_ALSO (.cpp, .cc, .cxx, .c), quoted $(1), in folder $(2): as nvcc compiles
# one, host code, against the simulator's headers (CUDA's runtime API; no kernel.h).
simrun_host_compile = @echo "  $(if $(filter %.c.host.o,$@),CC ,CXX)   "$(1)" (host)"; \
  $(SIM_INC_ENV) $(if $(filter %.c.host.o,$@),$(CC) -std=gnu11,$(CXX) -std=c++17) $(OPT) $(SIMRUN_FP) \
  -fno-diagnostics-show-caret -I$(SIM_DIR)/include -iquote $(2) $(call sim_include_flags,-I) \
  $(call sim_words,$(SIM_NVCC_CXX)) -MMD -MP -MF $(@:.o=.d.raw) -c $(1) -o $@ $(simrun_messages) \
  perl -e $(call sq,$(SIMRUN_DEPS_PL)) $(@:.o=.d.raw) $(@:.o=.d) $@ $(SIMRUN_DIR)/hdr && exit $$st
$(SIMRUN_DIR)/%.host.o: /% $(SIMRUN_DIR)/%.incs
	@mkdir -p $(@D)
	$(call simrun_host_compile,/$*,/$(dir $*))

# The program: CU's object, CU_ALSO's, the simulator, LDFLAGS and LDLIBS.
# With the twin, the program exports its symbols (-rdynamic), and the twins of its translated
# files (CU's and CU_ALSO's .cu) are linked, each beside its instrumented object.
simrun_twins = $(foreach o,$(1),$(o) $(o:.o=.twin.o))
ifneq ($(CU_BIN),)
$(CU_BIN): SIMRUN_EXTRA_OBJS := $(CU_ALSO_OBJ)
$(CU_BIN): $(CU_ALSO_OBJ) $(CU_BIN:.sim=.objs) \
  $(if $(SIMRUN_TWIN),$(patsubst %.o,%.twin.o,$(filter-out %.host.o,$(CU_ALSO_OBJ))))
endif
$(SIMRUN_DIR)/%.sim: $(SIMRUN_DIR)/%.o $(if $(SIMRUN_TWIN),$(SIMRUN_DIR)/%.twin.o) $(SIM_A)
	@echo "  LD    $@"
	$(Q)$(CXX) $(OPT) $(if $(SIMRUN_TWIN),-rdynamic) $(call sim_words,$(SIM_LDFLAGS)) $< $(SIMRUN_EXTRA_OBJS) \
	  $(SIM_A) -o $@ $(call sim_words,$(SIM_LDLIBS)) $(call flavor_libs,sim)
	$(Q)$(if $(SIMRUN_TWIN),bash $(SIM_DIR)/translate/twin_link.sh $(@:.sim=.twin.so) $(call sq,$(CXX)) \
	  $(call simrun_twins,$< $(filter-out %.host.o,$(SIMRUN_EXTRA_OBJS))),rm -f $(@:.sim=.twin.so))

-include $(CU_BIN:.sim=.d) $(CU_BIN:.sim=.cpp.d) $(CU_ALSO_OBJ:.o=.d) $(patsubst %.o,%.cpp.d,$(filter-out \
  %.host.o,$(CU_ALSO_OBJ))) $(if $(SIMRUN_TWIN),$(CU_BIN:.sim=.twin.d) $(patsubst %.o,%.twin.d,$(filter-out \
  %.host.o,$(CU_ALSO_OBJ))))
.PRECIOUS: $(SIMRUN_DIR)/%.cpp $(SIMRUN_DIR)/%.o $(SIMRUN_DIR)/%.twin.o $(SIMRUN_DIR)/%.incs $(SIMRUN_DIR)/%.objs $(CU_ALIAS)

# The conformance suite: textbook CUDA programs, each with its own main, and
# what each prints (NAME.out) and, for the planted bugs, what the simulator
# must report (NAME.report). A program that must not compile has NAME.build
# instead (what the refusal says, and nvcc's verdict where nvcc is): its
# build's messages go to a .buildlog. NAME.include lists folders for its
# #include (INCLUDE), NAME.flags nvcc's options it needs (NVCCFLAGS). make gpu-check
# runs them with nvcc on a GPU.
CONF_CU     := $(sort $(wildcard tests/conformance/*.cu))
CONF_REJECT := $(foreach c,$(CONF_CU),$(if $(wildcard $(c:.cu=.build)),$(c)))
CONF_BINS   := $(foreach c,$(filter-out $(CONF_REJECT),$(CONF_CU)),$(call simrun_bin,$(abspath $(c))))
CONF_LOGS   := $(foreach c,$(CONF_REJECT),$(SIMRUN_DIR)$(abspath $(c:.cu=.buildlog)))
$(foreach c,$(wildcard tests/conformance/*.include),$(eval \
  $(call simrun_bin,$(abspath $(c:.include=.cu))): SIM_INCLUDE := $(abspath $(shell cat $(c)))))
$(foreach c,$(wildcard tests/conformance/*.flags),$(eval \
  $(call simrun_bin,$(abspath $(c:.flags=.cu))): SIM_NVCCFLAGS := $(shell cat $(c))))

# Translate and compile (no link): the messages and the exit status.
$(SIMRUN_DIR)/%.buildlog: /%.cu $(CU2SIM_DEPS) $(SIM_DIR)/translate/gxx_messages.pl $(SIM_DIR)/exec/kernel.h \
                          $(wildcard $(SIM_DIR)/include/*.h)
	@mkdir -p $(@D)
	@{ perl $(SIM_DIR)/translate/cu2sim.pl /$*.cu > $@.cpp && ( $(CXX) $(filter-out -MMD -MP,$(SIMRUN_CXXFLAGS)) \
	   -iquote /$(dir $*) -fsyntax-only $@.cpp 2> $@.gxx; st=$$?; \
	   perl $(SIM_DIR)/translate/gxx_messages.pl $(SIM_DIR) $@.gxx; exit $$st ); } > $@.tmp 2>&1; \
	  echo "status $$?" >> $@.tmp; mv $@.tmp $@

test-conformance: $(CONF_BINS) $(CONF_LOGS)
	@echo "== plain CUDA programs on the CUDA simulator (tests/conformance)"
	@ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=0}:allow_user_segv_handler=1 \
	  NVCC="$(NVCC)" NVCC_CHECK_DIR="$(NVCC_CHECK_DIR)" bash tests/conformance/run.sh $(abspath $(SIMRUN_DIR))
	@ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=0}:allow_user_segv_handler=1 \
	  bash tests/conformance/curand_reference.sh $(abspath $(SIMRUN_DIR))

-include $(CONF_BINS:.sim=.d) $(CONF_BINS:.sim=.cpp.d) $(if $(SIMRUN_TWIN),$(CONF_BINS:.sim=.twin.d))

# For a GPU machine without network: the Debian packages it needs, into .gpu-deps/.
gpu-deps:
	@bash tests/gpu_deps.sh

# The kernel and GPU-path tests on the GPU alone (make test runs them too, after
# the CPU's and the simulator's); make gpu-check uses it.
test-gpu: deps gpu-status
	@test -n "$(NVCC)" || { echo "make test-gpu: nvcc not found, so there are no GPU tests"; exit 2; }
	@test -n "$(HAVE_GPU)" || { echo "make test-gpu: no CUDA device here (make test runs" \
	  "these tests on the simulator)"; exit 2; }
	@$(MAKE) --no-print-directory $(GPU_TESTS)
	@echo "== kernels and the GPU paths, on the GPU"
	@ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=0}:protect_shadow_gap=0 $(GPU_TESTS)

# make sim-bench: the simulator's time over a plain C loop's on the same work, checked,
# unchecked and profiled, and NVIDIA's matrixMul and simpleStreams patterns at their own
# sizes (tests/simbench/sim_bench.sh; docs/simulator.md, "How fast it runs"). By hand only:
# several minutes; ROUNDS=N turns of the checked and profiled runs (3).
sim-bench: $(SIM_A)
	@bash tests/simbench/sim_bench.sh

bench: deps $(BENCH_BIN) $(BENCH_GEMM) $(BENCH_TRAINER)
	@$(BENCH_BIN) $(if $(PYTHON),--python $(PYTHON))
	@echo
	@$(BENCH_GEMM)
	@echo
	@$(BENCH_TRAINER)

# make docs runs each lesson in its quick form here (docs/figures.py): on the GPU when
# there is one, else the parts whose figure needs a GPU on the simulator. Their charts
# go into build copies of the pages (build/docs/src), which Doxygen reads. Then every
# code span of the pages must be in the HTML as written (tests/docs/check_code_spans.py,
# after its own test).
DOCS_SIM_BIN := $(BUILD_ROOT)/rel-sim/solutions/lesson37
docs: deps
	@mkdir -p build/docs
	@start=$$(date +%s); \
	{ $(MAKE) --no-print-directory SAN= SIM= $(BUILD_ROOT)/rel/solutions/lesson37 && \
	  $(if $(HAVE_GPU),true,$(MAKE) --no-print-directory SAN= SIM=1 $(DOCS_SIM_BIN)); } \
	  > build/docs/build.log 2>&1 || { tail -20 build/docs/build.log; \
	  echo "make docs: building lesson37 failed (build/docs/build.log)"; exit 1; }; \
	python3 docs/figures.py --out build/docs --doxyfile docs/Doxyfile \
	  --lesson37 $(BUILD_ROOT)/rel/solutions/lesson37 \
	  $(if $(HAVE_GPU),--gpu "$$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)",--sim-lesson37 $(DOCS_SIM_BIN)) \
	  || exit 1; \
	doxygen docs/Doxyfile > build/docs/doxygen.log 2> build/docs/warnings.log; \
	status=$$?; if [ -s build/docs/warnings.log ] || [ $$status -ne 0 ]; then \
	  cat build/docs/warnings.log; echo "make docs: doxygen reported problems"; exit 1; fi; \
	python3 tests/docs/test_check_code_spans.py > build/docs/code_spans.log || \
	  { cat build/docs/code_spans.log; exit 1; }; \
	python3 tests/docs/check_code_spans.py build/docs/html --doxyfile docs/Doxyfile || exit 1; \
	rm -rf build/docs/html/figures && cp -r build/docs/figures build/docs/html/figures; \
	echo "Docs: build/docs/html/index.html ($$(( $$(date +%s) - start )) s with the lessons' runs)"

# The built site in a real browser (headless Chromium): every lesson page shows its
# figures, no image is missing or blank, no link is broken; screenshots in
# build/docs/screenshots. The checker's own test first: it must fail a broken page.
DOCS_PY = $(shell for p in python3 /usr/bin/python3; do \
            $$p -c 'import selenium' >/dev/null 2>&1 && { command -v $$p; break; }; done)
docs-check: deps-docs
	@test -n "$(DOCS_PY)" || { echo "make docs-check needs Chromium and Selenium:" \
	  "sudo apt-get install -y chromium chromium-driver python3-selenium"; exit 1; }
	@test -f build/docs/html/index.html || { echo "make docs-check: run make docs first"; exit 1; }
	@$(DOCS_PY) tests/docs/test_check_site.py
	@$(DOCS_PY) tests/docs/check_site.py build/docs/html --figures build/docs/figures.json \
	  --screenshots build/docs/screenshots

fixtures:
	@test -n "$(PYTHON)" || { echo "make fixtures needs PyTorch: sudo apt-get install -y python3-torch python3-sklearn"; exit 1; }
	@for g in tests/gen_fixtures*.py; do echo "$(PYTHON) $$g tests/fixtures"; \
	  $(PYTHON) $$g tests/fixtures || exit 1; done

clean:
	rm -rf build out

# ---- rules --------------------------------------------------------------
# Files made on the way (a kernel translated for the simulator, a student object
# before its check) are kept. (Not .SECONDARY for everything: then a missing object
# whose archive is newer than its source would never be built.)
.PRECIOUS: $(BUILD)/sim/%.cpp $(BUILD)/obj/%.o
$(BUILD)/obj/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_LIB) $(BLAS_CFLAGS) -c $< -o $@

# The one file that talks MPI, rebuilt when MPI comes or goes (its flags in MPI_CONFIG).
MPI_CONFIG := $(BUILD)/config/mpi
$(MPI_CONFIG): wb-always
	@mkdir -p $(@D)
	@echo '$(MPI_CFLAGS)' | cmp -s - $@ 2>/dev/null || echo '$(MPI_CFLAGS)' > $@
$(BUILD)/obj/lib/dist/dist_mpi.o: lib/dist/dist_mpi.c $(MPI_CONFIG)
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_LIB) $(MPI_CFLAGS) -c $< -o $@
.PHONY: wb-always

$(LIB_A): $(LIB_OBJ)
	@rm -f $@
	@echo "  AR    $@"
	$(Q)ar rcs $@ $^

# The student's exercises: same flags, but warnings do not stop the build.
$(BUILD)/obj/student/$(STUDENT_KEY)/%/exercises.o: $(STUDENT_SRC)/%/exercises.c | $(STUDENT_INC) $(if $(filter 1,$(GRADE_VIEW)),$(GRADE_CONFINE))
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(call grade_view) $(CC) $(CFLAGS_EX) -save-temps=obj -c $< -o $@

$(BUILD)/obj/solutions/%/exercises.o: solutions/%/exercises.c
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_LIB) -fPIC -c $< -o $@

$(BUILD)/obj/lessons/%.o: lessons/%.c
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_LIB) -c $< -o $@

$(BUILD)/obj/lessons/lesson37-%.o: lessons/lesson37.c
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_LIB) -DWB_IMPL='"$*"' -c $< -o $@

# Static pattern rules: a missing prerequisite is an error, not a silently skipped rule.
$(call LESSON37,solutions) $(call LESSON37,lessons): $(BUILD)/%/lesson37: \
        $(BUILD)/obj/lessons/lesson37-%.o $(PART_OBJ) \
                     $$(call flavor_objs,$$*,$(APP_FLAVOR))
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)$(call flavor_link,$(APP_FLAVOR)) $(OPT) $^ -o $@ $(call flavor_libs,$(APP_FLAVOR))

$(BUILD)/obj/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_LIB) -c $< -o $@

# The option parser of lesson37's parts is tested with the hostile inputs (check_hostile.c).
$(UNIT_BIN): $(UNIT_OBJ) $(BUILD)/obj/lessons/options.o $(call flavor_objs,solutions,cpu)
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)$(CC) $(OPT) $^ -o $@ $(CHECK_LIBS) $(call flavor_libs,cpu)

$(HOSTILE_BIN): $(BUILD)/obj/tests/hostile/run_hostile.o $(call flavor_objs,solutions,cpu)
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)$(CC) $(OPT) $^ -o $@ $(call flavor_libs,cpu)

# A fuzz target: libFuzzer's main, lib built with SAN=fuzz.
$(FUZZ_BINS): $(BUILD)/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(call flavor_objs,solutions,cpu)
	@echo "  LINK  $@"
	$(Q)$(CC) $(OPT) -fsanitize=fuzzer $^ -o $@ $(call flavor_libs,cpu)

# tests/graded/selfcheck/selftest.py runs the grader as in a container with it (namespaces refused).
$(BUILD)/grade/container_like: $(BUILD)/obj/tests/graded/sandbox/container_like.o
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)$(CC) $(OPT) $^ -o $@ $(SECCOMP_LIBS)

# What a submission's compile runs in (tests/graded/sandbox/confine.c).
$(GRADE_CONFINE): $(BUILD)/obj/tests/graded/sandbox/confine.o $(BUILD)/obj/tests/graded/sandbox/sandbox_compile.o \
                  $(BUILD)/obj/tests/graded/sandbox/sandbox_limits.o $(BUILD)/obj/tests/graded/sandbox/sandbox_landlock.o \
                  $(BUILD)/obj/tests/graded/sandbox/sandbox_os.o
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)$(CC) $(OPT) $^ -o $@ $(SECCOMP_LIBS)

$(GRADE_INTAKE): $(BUILD)/obj/tests/graded/sandbox/intake.o $(BUILD)/obj/lib/core/fileio.o \
                 $(BUILD)/obj/lib/core/err.o
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)$(CC) $(OPT) $^ -o $@

$(GRADE_DRIVER): $(BUILD)/obj/tests/graded/judge/driver.o $(BUILD)/obj/lib/core/fileio.o \
                 $(BUILD)/obj/lib/core/err.o
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)$(CC) $(OPT) $^ -o $@

# The graded suites, compiled as judge, runner and reference runner (tests/graded/cases/graded.h).
$(BUILD)/obj/tests/graded/cases/%.judge.o: tests/graded/cases/%.c
	@mkdir -p $(@D)
	@echo "  CC    $< (judge)"
	$(Q)$(CC) $(CFLAGS_LIB) -I$(SIM_DIR)/include -DGRADE_JUDGE -c $< -o $@

define grade_suite_rules
$(BUILD)/obj/$(1)tests/graded/cases/%.run.o: tests/graded/cases/%.c
	@mkdir -p $$(@D)
	@echo "  CC    $$< (runner$(if $(1), $(1:/=)))"
	$$(Q)$$(CC) $(2) -DGRADE_RUNNER -c $$< -o $$@

$(BUILD)/obj/$(1)tests/graded/cases/%.reference.o: tests/graded/cases/%.c
	@mkdir -p $$(@D)
	@echo "  CC    $$< (reference runner$(if $(1), $(1:/=)))"
	$$(Q)$$(CC) $(2) -DGRADE_RUNNER -DGRADE_REFERENCE -c $$< -o $$@
endef
$(eval $(call grade_suite_rules,,$$(CFLAGS_LIB)))
$(eval $(call grade_suite_rules,simc/,$$(CFLAGS_SIMC)))
$(eval $(call grade_suite_rules,cudac/,$$(CFLAGS_CUDAC)))

$(GRADE_JUDGES): $(BUILD)/grade/judge%: $$(call grade_case_obj,$$*,cpu,judge) $(GRADE_JUDGE_OBJ)
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)$(CC) $(OPT) $^ -o $@ $(CHECK_LIBS) $(SECCOMP_LIBS) -lm
# The judges' own trainer, for the whole-lesson cases' drawn runs (tests/graded/oracles/oracle_mlp.h).
GRADE_ORACLE_OBJ := $(BUILD)/obj/tests/graded/oracles/oracle_mlp.o $(BUILD)/obj/tests/graded/oracles/oracle_iris.o
$(GRADE_JUDGES): $(GRADE_ORACLE_OBJ)
-include $(GRADE_ORACLE_OBJ:.o=.d)

# The system-call filter tried directly, in each form a runner installs (selftest.py).
$(BUILD)/grade/filter_check: $(BUILD)/obj/tests/graded/sandbox/filter_check.o \
        $(BUILD)/obj/tests/graded/sandbox/sandbox_filter.o
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)$(CC) $(OPT) $^ -o $@ $(SECCOMP_LIBS) -pthread

# runNN: the RUN halves, the trampolines to lesson NN's exercises and everything else
# but them; it exports to the shared object only what tests/graded/allow/ lets student
# code call (gen_trampolines.pl).
$(GRADE_EXPORTS): tests/graded/allow/gen_trampolines.pl $(wildcard tests/graded/allow/*.txt)
	@mkdir -p $(@D)
	$(Q)perl tests/graded/allow/gen_trampolines.pl --allow tests/graded/allow --exports > $@.tmp && mv $@.tmp $@

$(GRADED:%=$(GRADE_GEN)/trampolines_%.c): $(GRADE_GEN)/trampolines_%.c: \
        tests/graded/allow/gen_trampolines.pl $(wildcard tests/graded/allow/*.txt)
	@mkdir -p $(@D)
	$(Q)perl tests/graded/allow/gen_trampolines.pl --allow tests/graded/allow \
	  --c "$(foreach d,$(call so_lessons,$*),$(firstword $(subst _, ,$(d))))" \
	  --cu "$(foreach d,$(call so_cu_lessons,$*,$(call grade_flavor,$*)),$(firstword $(subst _, ,$(d))))" \
	  > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/grade/trampolines_%.o: $(GRADE_GEN)/trampolines_%.c
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_LIB) -c $< -o $@

# lib and the other lessons' answers for lesson NN's runner, with its withheld names weak.
$(GRADED:%=$(BUILD)/grade/lib/%/libgraded.a): $(BUILD)/grade/lib/%/libgraded.a: $(LIB_A) \
        $$(if $$(HAVE_ANSWERS),$$(foreach d,$$(filter-out $$(call lesson_dir,$$*),$$(LESSONS)),$$(call ex_obj,solutions,$$(d)))) \
        tests/graded/allow/%.txt tests/graded/allow/gen_trampolines.pl
	@mkdir -p $(@D)
	@echo "  AR    $@ (what lesson $* withholds, weak)"
	$(Q)rm -rf $@ $@.d && mkdir $@.d && cp $(LIB_A) $@.tmp && \
	  for o in $(filter-out $(LIB_A) %.txt %.pl,$^); do \
	    cp $$o $@.d/answers_$$(basename $$(dirname $$o)).o || exit 1; done && \
	  { [ -z "$$(ls $@.d)" ] || ar rs $@.tmp $@.d/*.o; } && \
	  perl tests/graded/allow/gen_trampolines.pl --allow tests/graded/allow --withheld-list $* > $@.weak && \
	  { [ ! -s $@.weak ] || objcopy --weaken-symbols=$@.weak $@.tmp; } && mv $@.tmp $@ && rm -rf $@.d

$(GRADED:%=$(GRADE_GEN)/withheld_%.c): $(GRADE_GEN)/withheld_%.c: tests/graded/allow/gen_trampolines.pl \
        $(wildcard tests/graded/allow/*.txt) $$(call kobj_of,$$(call withheld_files,$$*),$$(call grade_flavor,$$*))
	@mkdir -p $(@D)
	$(Q)perl tests/graded/allow/gen_trampolines.pl --allow tests/graded/allow --withheld $* \
	  --c "$(foreach d,$(call so_lessons,$*),$(firstword $(subst _, ,$(d))))" \
	  --cu "$(foreach d,$(call so_cu_lessons,$*,$(call grade_flavor,$*)),$(firstword $(subst _, ,$(d))))" \
	  --objects "$(call kobj_of,$(call withheld_files,$*),$(call grade_flavor,$*))" > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/grade/withheld_%.o: $(GRADE_GEN)/withheld_%.c
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_LIB) -Wno-missing-prototypes -c $< -o $@

# The runners export what allow/ lets student code call (and nothing else), link -z now,
# drop what nothing reaches (--gc-sections) and write a map (-Map), in which
# tests/graded/selfcheck/selftest.py reads that the withheld code is gone.
GRADE_RUNNER_LDFLAGS = -Wl,--export-dynamic-symbol-list=$(GRADE_EXPORTS) -Wl,-z,relro,-z,now \
                       -Wl,--gc-sections -Wl,-Map=$@.map

$(GRADED:%=$(BUILD)/grade/run%): $(BUILD)/grade/run%: \
        $$(call grade_case_obj,$$*,$$(call grade_flavor,$$*),run) $(GRADE_RUN_OBJ) \
        $(BUILD)/obj/grade/trampolines_%.o $(BUILD)/obj/grade/withheld_%.o \
        $$(call grade_ex,$$*,$$(call grade_flavor,$$*)) $(GRADE_EXPORTS)
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)perl tests/graded/allow/gen_trampolines.pl --allow tests/graded/allow --exports \
	  --archives "$(filter %.a,$^)" > $@.keep
	$(Q)$(call flavor_link,$(call grade_flavor,$*)) $(OPT) $(filter-out $(GRADE_EXPORTS),$^) -o $@ \
	  -Wl,@$@.keep $(GRADE_RUNNER_LDFLAGS) -Wl,--as-needed $(call flavor_libs,$(call grade_flavor,$*)) \
	  -Wl,--no-as-needed $(SECCOMP_LIBS) -ldl

$(GRADED:%=$(BUILD)/grade/run%-full): $(BUILD)/grade/run%-full: \
        $$(call grade_case_obj,$$*,$$(call grade_flavor,$$*),run) $(GRADE_RUN_OBJ) \
        $(BUILD)/obj/grade/trampolines_%.o $$(call grade_ex_full,$$*,$$(call grade_flavor,$$*)) \
        $(GRADE_EXPORTS)
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)perl tests/graded/allow/gen_trampolines.pl --allow tests/graded/allow --exports \
	  --archives "$(filter %.a,$^)" > $@.keep
	$(Q)$(call flavor_link,$(call grade_flavor,$*)) $(OPT) $(filter-out $(GRADE_EXPORTS),$^) -o $@ \
	  -Wl,@$@.keep $(GRADE_RUNNER_LDFLAGS) $(call flavor_libs,$(call grade_flavor,$*)) $(SECCOMP_LIBS) -ldl

# NN.so: what the runner loads, the student's checked objects (or the answers').
define grade_so_rule
$(GRADED:%=$(call grade_so_dir,$(1))/%.so): $(call grade_so_dir,$(1))/%.so: \
        $$$$(call grade_so_objs,$(1),$$$$*,$$$$(call grade_flavor,$$$$*))
	@mkdir -p $$(@D)
	@echo "  LINK  $$@"
	$$(Q)$$(call flavor_link,$$(call grade_flavor,$$*)) $$(OPT) -shared $$^ -o $$@ -Wl,-z,relro,-z,now,-z,noexecstack
endef
$(eval $(call grade_so_rule,solutions))
$(eval $(call grade_so_rule,lessons))

$(GRADED:%=$(BUILD)/grade/reference/run%): $(BUILD)/grade/reference/run%: \
        $$(call grade_case_obj,$$*,$$(call grade_flavor,$$*),reference) $(GRADE_RUN_OBJ) \
        $$(call grade_ref_ex,$$*,$$(call grade_flavor,$$*))
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)$(call flavor_link,$(call grade_flavor,$*)) $(OPT) $^ -o $@ \
	  $(call flavor_libs,$(call grade_flavor,$*)) $(SECCOMP_LIBS) -ldl

# What the reference runner records, once per build of it; the grader package
# carries the records instead (tests/graded/ref/), made where the answers are.
ifneq ($(HAVE_ANSWERS),)
$(GRADE_REFS): $(BUILD)/grade/ref/%.records: $(BUILD)/grade/judge% $(BUILD)/grade/reference/run%
	@mkdir -p $(@D)
	@echo "  REF   $@"
	$(Q)$(BUILD)/grade/judge$* --record $@ --runner $(BUILD)/grade/reference/run$*
else
$(GRADE_REFS): $(BUILD)/grade/ref/%.records: tests/graded/ref/%.records
	@mkdir -p $(@D)
	@cp $< $@
endif

# Everything make grade builds that does not depend on the student's files
# (the grader package's setup.sh builds it once, into the autograder's image).
grader: deps-grade
	@$(MAKE) --no-print-directory $(GRADE_DRIVER) $(GRADE_INTAKE) $(GRADE_CONFINE) $(GRADE_JUDGES) $(GRADE_REFS) $(GRADE_RUN_OBJ) \
	  $(LIB_A) $(SIM_A) $(SIM_KOBJ) $(BACKEND_cpu) $(BACKEND_sim) $(STUDENT_INC) \
	  $(GRADED:%=$(BUILD)/grade/run%) $(GRADED:%=$(BUILD)/grade/run%-full)

# The zip an instructor uploads to Gradescope: the workbook without solutions/,
# the reference records, setup.sh and run_autograder (docs/instructor_guide.md).
grader-package: deps-grade $(GRADE_REFS)
	@bash tests/graded/class/package.sh $(BUILD)/grade/ref build/grader-package.zip

# The simulator and the kernels translated for it.
$(BUILD)/obj/cudasim/%.o: $(SIM_DIR)/%.cpp
	@mkdir -p $(@D)
	@echo "  CXX   $<"
	$(Q)$(CXX) $(CXXFLAGS_SIM) -c $< -o $@

$(SIM_A): $(SIM_OBJ)
	@rm -f $@
	@echo "  AR    $@"
	$(Q)ar rcs $@ $^
# The simulator's profiler saves and reads its files through lib's (lib/core/fileio.h).
$(SIM_A): $(BUILD)/obj/lib/core/fileio.o $(BUILD)/obj/lib/core/err.o

$(BUILD)/sim/%.cpp: %.cu $(CU2SIM_DEPS)
	@mkdir -p $(@D)
	@echo "  CU2SIM $<"
	$(Q)perl $(SIM_DIR)/translate/cu2sim.pl $(CU2SIM_OPTS) $< > $@.tmp && mv $@.tmp $@
# The answers' CUDA exercises are translated as a student's are (below): without the
# kernels' registration by address, which the grader's runners do not export.
$(BUILD)/sim/solutions/%.cpp: CU2SIM_OPTS := --no-entries

$(BUILD)/obj/sim/%.o: $(BUILD)/sim/%.cpp
	@mkdir -p $(@D)
	@echo "  CXX   $*.cu (simulator)"
	$(Q)$(CXX) $(CXXFLAGS_KSIM) -Werror -iquote $(dir $*) -c $< -o $@

# The student's CUDA exercise: warnings shown, not fatal. Its translation and object are
# kept as the others are (.PRECIOUS names a rule's own target pattern): else make deletes
# them after the link and says so ("rm build/...") in a run that went well.
.PRECIOUS: $(BUILD)/sim/student/$(STUDENT_KEY)/%.cpp $(BUILD)/obj/sim/student/$(STUDENT_KEY)/%.o
# (without the kernels' registration by address: the grader's check of the object takes its
# initializer as registering kernels and variables by name only, tests/graded/allow/check_student.pl)
$(BUILD)/sim/student/$(STUDENT_KEY)/%.cpp: $(STUDENT_SRC)/%.cu $(CU2SIM_DEPS) \
        | $(if $(filter 1,$(GRADE_VIEW)),$(GRADE_CONFINE))
	@mkdir -p $(@D)
	@echo "  CU2SIM $<"
	$(Q)$(call grade_view) perl $(SIM_DIR)/translate/cu2sim.pl --no-entries $< > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/sim/student/$(STUDENT_KEY)/%.o: $(BUILD)/sim/student/$(STUDENT_KEY)/%.cpp | $(STUDENT_INC) $(if $(filter 1,$(GRADE_VIEW)),$(GRADE_CONFINE))
	@mkdir -p $(@D)
	@echo "  CXX   "$(call sq,$(STUDENT_DIR))"/$*.cu (simulator)"
	$(Q)$(call grade_view,$<) $(CXX) $(CXXFLAGS_KSIM_EX) -save-temps=obj -iquote $(STUDENT_SRC)/$(dir $*) -c $< -o $@

$(BUILD)/obj/cuda/student/$(STUDENT_KEY)/%.o: $(STUDENT_SRC)/%.cu | $(STUDENT_INC) $(if $(filter 1,$(GRADE_VIEW)),$(GRADE_CONFINE))
	@mkdir -p $(@D)
	@echo "  NVCC  $<"
	$(Q)$(call grade_view) $(NVCC) $(NVCCFLAGS_STUDENT) -Xcompiler -save-temps=obj -MD -MF $(@:.o=.d) -c $< -o $@

# The headers a student file may include: links to lib/ and kernels/ only.
$(STUDENT_INC):
	@mkdir -p $@
	@ln -sfn $(CURDIR)/lib $@/lib
	@ln -sfn $(CURDIR)/kernels $@/kernels

# What the grader links of a student's file: checked first (tests/graded/allow/README.md).
# An include outside lib/ and kernels/ fails this step; an exercise that calls what it
# may not is replaced by a stub that fails its cases with the reason.
CHECK_SCRIPTS := tests/graded/allow/check_student.pl tests/graded/allow/check_source.pl
CHECK_STUDENT = perl tests/graded/allow/check_student.pl --root . --cc "$(CC)" --lib $(LIB_A) \
                $(foreach k,$(SIM_A) $(SIM_KOBJ) $(CUDA_KOBJ),--lib $(k))
$(BUILD)/obj/student/$(STUDENT_KEY)/%/exercises.checked.o: \
        $(BUILD)/obj/student/$(STUDENT_KEY)/%/exercises.o $(CHECK_SCRIPTS) \
        $(wildcard tests/graded/allow/*.txt) $(LIB_A)
	@echo "  CHECK "$(call sq,$(STUDENT_DIR))"/$*/exercises.c"
	$(Q)$(CHECK_STUDENT) --lesson $(firstword $(subst _, ,$*)) --kind c --object $< \
	  --deps $(<:.o=.d) --asm $(<:.o=.s) --source $(STUDENT_SRC)/$*/exercises.c --out $@
define cu_check_rule
$(BUILD)/obj/$(1)/student/$(STUDENT_KEY)/%/exercises.checked.o: \
        $(BUILD)/obj/$(1)/student/$(STUDENT_KEY)/%/exercises.o $(CHECK_SCRIPTS) \
        $(wildcard tests/graded/allow/*.txt) $(LIB_A)
	@echo "  CHECK "$$(call sq,$$(STUDENT_DIR))"/$$*/exercises.cu ($(1))"
	$$(Q)$$(CHECK_STUDENT) --lesson $$(firstword $$(subst _, ,$$*)) --kind cu --object $$< \
	  --deps $$(<:.o=.d) --asm $$(<:.o=.s) --source $(STUDENT_SRC)/$$*/exercises.cu --out $$@
endef
$(eval $(call cu_check_rule,sim))
$(eval $(call cu_check_rule,cuda))


# C code that calls the CUDA runtime: against the simulator's headers or CUDA's.
$(BUILD)/obj/simc/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC    $< (simulator)"
	$(Q)$(CC) $(CFLAGS_SIMC) -c $< -o $@

$(BUILD)/obj/cudac/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC    $< (CUDA)"
	$(Q)$(CC) $(CFLAGS_CUDAC) -c $< -o $@

$(SIM_TESTS): $(SIM_TEST_OBJ) $(call flavor_objs,solutions,sim)
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)$(CXX) $(OPT) $^ -o $@ $(CHECK_LIBS) $(call flavor_libs,sim)

# The same kernels for real GPUs.
$(BUILD)/obj/cuda/%.o: %.cu
	@mkdir -p $(@D)
	@echo "  NVCC  $<"
	$(Q)$(NVCC) $(NVCCFLAGS) -c $< -o $@

$(GPU_TESTS): $(GPU_TEST_OBJ) $(call flavor_objs,solutions,cuda)
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)$(CXX) $(OPT) $^ -o $@ $(CHECK_LIBS) $(call flavor_libs,cuda)

# The benchmarks: tests/bench/bench_NAME.c, linked as the lessons are.
$(BENCH_BIN) $(BENCH_GEMM) $(BENCH_TRAINER): $(BUILD)/solutions/bench_%: \
        $(BUILD)/obj/tests/bench/bench_%.o $(call flavor_objs,solutions,$(APP_FLAVOR))
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)$(call flavor_link,$(APP_FLAVOR)) $(OPT) $^ -o $@ $(call flavor_libs,$(APP_FLAVOR))

ALL_OBJ := $(LIB_OBJ) $(UNIT_OBJ) $(PART_OBJ) $(BUILD)/obj/tests/hostile/run_hostile.o \
           $(FUZZ_TARGETS:%=$(BUILD)/obj/tests/fuzz/fuzz_%.o) $(call EX_OBJ,solutions) $(call EX_OBJ,lessons) \
           $(BACKEND_cpu) $(BACKEND_sim) $(BACKEND_cuda) $(GPU_TEST_OBJ) $(SIM_TEST_OBJ) \
           $(call EXCU_OBJ,solutions,sim) $(call EXCU_OBJ,lessons,sim) \
           $(BUILD)/obj/lessons/lesson37-solutions.o $(BUILD)/obj/lessons/lesson37-lessons.o \
           $(BUILD)/obj/tests/bench/bench_iris.o $(BUILD)/obj/tests/bench/bench_sgemm.o \
           $(BUILD)/obj/tests/bench/bench_trainer.o $(GRADE_RUN_OBJ) $(GRADE_JUDGE_OBJ) \
           $(BUILD)/obj/tests/graded/judge/driver.o $(BUILD)/obj/tests/graded/sandbox/intake.o \
           $(BUILD)/obj/tests/graded/sandbox/container_like.o \
           $(foreach l,$(GRADED),$(call grade_case_obj,$(l),cpu,judge)) \
           $(foreach l,$(GRADED),$(call grade_case_obj,$(l),$(call grade_flavor,$(l)),run) \
             $(call grade_case_obj,$(l),$(call grade_flavor,$(l)),reference)) $(SIM_OBJ) $(SIM_KOBJ)
-include $(ALL_OBJ:.o=.d)
