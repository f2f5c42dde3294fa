#!/usr/bin/perl
# cu2sim.pl: translate a CUDA .cu file so that g++ can build it for the CUDA
# simulator (lib/cudasim). Line numbers are kept (with #line where a local
# header is pulled in), so compiler messages and simulator reports point at
# the original files.
#
#   perl lib/cudasim/translate/cu2sim.pl [-I DIR]... [--nvcc OPTION]... [--deps FILE] \
#       [--no-entries] kernels/relu.cu > build/.../relu.sim.cpp
#
#   k<<<grid, block[, shared[, stream]]>>>(args)   cudasim::launch("k", k, grid, block, ...)(args)
#   __shared__ T a[N], b;                           a and b become references into the block's
#                                                   shared memory (cudasim::shared_var)
#   extern __shared__ T name[];                     T *name = (T *)cudasim_dynamic_shared(...)
#   (either at namespace scope)                     declared so in each function that uses it
#   __device__ T v[N]; (and __constant__,           v is placed between red zones and registered
#   __managed__, at namespace scope)                (cu2sim_variables.pl)
#   __global__ void k(...) {                        k registers itself by its address: its name,
#                                                   __launch_bounds__, static shared memory
#                                                   (cu2sim_kernels.pl)
#
# Launches may be written with any spacing, over several lines, with template
# arguments (`k<float, 256><<<g, b>>>`) or without (a template kernel whose
# arguments deduce its parameters), in a macro whose parameters name the
# kernel or paste its name. Every local header (`#include "x.cuh"`, or one
# found in a -I folder or on CPATH, as g++ finds it) is translated the same
# way, at any depth, and pulled in where the translation changes it
# (cu2sim_headers.pl). --deps FILE writes the files read as a make rule.
# --nvcc gives one word of nvcc's options (cu2sim_flags.pl: -arch, -gencode,
# --extended-lambda and -I change what is accepted). --no-entries leaves the
# kernels' registration by address out (the grader's build of a student's
# file, whose initializer may only register kernels and variables by name).
#
# It also notes which kernels need fibers: those whose body, or a __device__
# function they call, uses __syncthreads, __syncwarp, a warp vote or shuffle,
# or cooperative groups.
# Everything else runs as a plain loop over the threads.
#
# What the simulator cannot run (inline PTX, texture references, dynamic parallelism,
# cuFFT, the parts of cuRAND, Thrust and cooperative groups it lacks, the
# driver API, ...: also cu2sim_refusals.pl) is refused here, one line each:
# FILE:LINE: error: ...
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Spec;
use Cwd qw(realpath);
use FindBin;
require "$FindBin::RealBin/cu2sim_variables.pl";
require "$FindBin::RealBin/cu2sim_refusals.pl";
require "$FindBin::RealBin/cu2sim_headers.pl";
require "$FindBin::RealBin/cu2sim_kernels.pl";
require "$FindBin::RealBin/cu2sim_flags.pl";

# Where #include looks, after the including file's own folder for "x.h":
# the simulator's headers (which g++ finds first), then -I folders, then
# CPATH and CPLUS_INCLUDE_PATH (the Makefile leaves out a toolkit's folder).
my $include_dir = dirname(dirname(realpath(__FILE__))) . "/include"; # the simulator's headers
my @include_dirs;
my $deps_file;
while (@ARGV && $ARGV[0] =~ /^-/) {
    my $opt = shift @ARGV;
    if ($opt =~ /^-I(.*)$/s) { push @include_dirs, $1 ne '' ? $1 : shift @ARGV; }
    elsif ($opt eq '--deps') { $deps_file = shift @ARGV; }
    elsif ($opt eq '--nvcc') {
        my $w = shift @ARGV // '';
        $Cu2simRefusals::defined{$1} = 1 if $w =~ /^-D(\w+)/;
        Cu2simFlags::option($w);
    }
    elsif ($opt eq '--no-entries') { $Cu2simKernels::enabled = 0; }
    else { die "cu2sim.pl: unknown option $opt\n"; }
}
push @include_dirs, Cu2simFlags::include_dirs();
push @include_dirs, grep { $_ ne '' } map { split /:/, ($ENV{$_} // '') } qw(CPATH CPLUS_INCLUDE_PATH);
my $path = shift @ARGV
    or die "usage: cu2sim.pl [-I DIR]... [--nvcc OPTION]... [--deps FILE] [--no-entries] FILE.cu\n";
{
    no warnings 'once'; # (set here, read in cu2sim_variables.pl)
    require Digest::MD5;
    $Cu2simVariables::unit = substr(Digest::MD5::md5_hex(realpath($path) // $path), 0, 12);
}

# The file an #include names: [path, 1 when it is the simulator's own], or
# an empty list when none of the folders has it.
sub find_include
{
    my ($dir, $name, $quoted) = @_;
    my $own = File::Spec->catfile($dir, $name);
    return ($own, 0) if $quoted && -f $own;
    return (File::Spec->catfile($include_dir, $name), 1) if -f File::Spec->catfile($include_dir, $name);
    for my $d (@include_dirs) {
        my $f = File::Spec->catfile($d, $name);
        return ($f, 0) if -f $f;
    }
    return ();
}
my $errors = 0;
my (%body, %is_kernel, %template_kernel, %default_args, %kernel_defs, %has_shared, @ns_shared, %kw_macro,
    %host_macro);

sub fail
{
    my ($file, $line, $msg) = @_;
    print STDERR "$file:$line: error: $msg\n";
    $errors++;
}

# Comments become spaces, string and character literals keep their quotes
# and lose their contents; newlines stay, so positions and lines match.
sub mask
{
    my ($t) = @_;
    $t =~ s{(//[^\n]*)|(/\*.*?\*/)|("(?:\\.|[^"\\\n])*")|('(?:\\.|[^'\\\n])*')}{
        my $x = defined $1 ? $1 : defined $2 ? $2 : defined $3 ? $3 : $4;
        if (defined $3 || defined $4) {
            my $in = substr($x, 1, length($x) - 2);
            $in =~ s/[^\n]/ /g;
            substr($x, 0, 1) . $in . substr($x, -1);
        } else {
            $x =~ s/[^\n]/ /g;
            $x;
        }
    }gse;
    return $t;
}

# The position of the bracket that matches the one at $i (forwards).
sub match_forward
{
    my ($s, $i, $open, $close) = @_;
    my $depth = 0;
    for (my $j = $i; $j < length $s; $j++) {
        my $c = substr($s, $j, 1);
        $depth++ if $c eq $open;
        $depth-- if $c eq $close;
        return $j if $depth == 0;
    }
    return -1;
}

sub translate
{
    my ($file, $shown) = @_;
    open my $in, '<', $file or die "cu2sim: cannot open $file: $!\n";
    local $/;
    my $text = <$in>;
    close $in;
    $text .= "\n" unless $text =~ /\n\z/;
    my $m = mask($text);
    my @nl = (0);
    while ($text =~ /\n/g) { push @nl, pos($text); }
    my $line_of = sub {
        my ($pos) = @_;
        my ($lo, $hi) = (0, $#nl);
        while ($lo < $hi) {
            my $mid = int(($lo + $hi + 1) / 2);
            if ($nl[$mid] <= $pos) { $lo = $mid; } else { $hi = $mid - 1; }
        }
        return $lo + 1;
    };
    my $bad = sub { fail($shown, $line_of->($_[0]), $_[1]); };
    # Whether $pos is on a preprocessor line (a #define's body, say).
    my $on_directive = sub {
        my ($pos) = @_;
        my $ls = rindex($m, "\n", $pos - 1) + 1;
        while ($ls > 1 && substr($m, $ls - 2, 1) eq '\\') { $ls = rindex($m, "\n", $ls - 2) + 1; }
        return substr($m, $ls, $pos - $ls) =~ /^\s*#/ ? 1 : 0;
    };
    my @edits; # [start, end, replacement]

    # ---- functions: kernels, device functions, their bodies ----------------
    (my $an = $m) =~ s{__launch_bounds__\s*\([^()]*(?:\([^()]*\)[^()]*)*\)}{' ' x length $&}ge;
    # Object-like macros that stand for __global__ or __device__
    # (`#define KERNEL extern "C" __global__ void`): their uses are those words.
    while ($m =~ /^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]*)/mg) {
        my ($macro, $what) = ($1, $2);
        $kw_macro{$macro} = $what =~ /\b__global__\b/ ? '__global__' : '__device__'
            if $what =~ /\b(?:__global__|__device__)\b/;
        $host_macro{$macro} = 1 if $what =~ /\b__host__\b/;
    }
    my $host_kw = join '|', '__host__', map { quotemeta } sort keys %host_macro;
    my $kw = join '|', '__global__', '__device__', map { quotemeta } sort keys %kw_macro;
    my $global_kw = join '|', '__global__',
                         map { quotemeta } grep { $kw_macro{$_} eq '__global__' } sort keys %kw_macro;
    my (@device_ranges, @hd_ranges, @fns);
    while ($an =~ /\b($kw)\b/g) {
        my ($kind, $at) = ($kw_macro{$1} // $1, $-[0]);
        # (the words in such a #define are not a function)
        my $ls = rindex($an, "\n", $at) + 1;
        next if substr($an, $ls, $at - $ls) =~ /^\s*#\s*define\s+\w+\s/;
        my $after = pos($an);
        my $seg = substr($an, $after, 4000);
        next unless $seg =~ /^([^;{}()=]*?)\b(\w+)\s*(<[^;{}()]*>\s*)?\(/;
        my ($name, $explicit, $open) = ($2, $3, $after + $+[0] - 1);
        $explicit =~ s/\s+$// if defined $explicit;
        next if $name =~ /^(?:__\w+__|operator|if|for|while|switch|return|sizeof)$/;
        my $close = match_forward($an, $open, '(', ')');
        next if $close < 0;
        my $head_start = $at;
        $head_start-- while $head_start > 0 && substr($an, $head_start - 1, 1) !~ /[;{}]/;
        my $head = substr($an, $head_start, $close - $head_start);
        $is_kernel{$name} = 1 if $kind eq '__global__' || $head =~ /\b(?:$global_kw)\b/;
        $template_kernel{$name} = 1 if $is_kernel{$name} && $head =~ /\btemplate\s*</;
        # Parameters with default values: a launch may leave them out.
        my $params = substr($an, $open + 1, $close - $open - 1);
        my $params_text = $params;
        1 while $params =~ s/\([^()]*\)|<[^<>]*>|\{[^{}]*\}/ /g;
        $default_args{$name} = 1 if $is_kernel{$name} && $params =~ /(?<![=!<>])=(?!=)/;
        my $rest = substr($an, $close + 1, 400);
        next unless $rest =~ /^\s*(?:const\s*|noexcept\s*|->\s*[\w:<>\s*&]+)?\{/;
        my $start = $close + 1 + $+[0] - 1;
        my $end = match_forward($an, $start, '{', '}');
        $end = length($an) - 1 if $end < 0;
        $body{$name} .= substr($an, $start, $end - $start + 1);
        $kernel_defs{$name}++ if $is_kernel{$name};
        if ($head =~ /\b(?:$host_kw)\b/) {
            push @hd_ranges, [$start, $end];
            # A __host__ __device__ function's body is compiled once and runs on both
            # sides: it sees __CUDA_ARCH__ undefined, as nvcc's host pass does (the
            # simulator's device is the CPU, so the host path runs on it too).
            unless ($on_directive->($start) || $on_directive->($end)) {
                my $shown_c = c_string($shown);
                push @edits, [$start + 1, $start + 1, "\n#undef __CUDA_ARCH__\n#line "
                              . $line_of->($start) . " \"$shown_c\"\n"];
                push @edits, [$end, $end, "\n#define __CUDA_ARCH__ " . Cu2simFlags::device_arch()
                              . "\n#line " . $line_of->($end) . " \"$shown_c\"\n"];
            }
        }
        else { push @device_ranges, [$start, $end]; }
        # Kernels register themselves by address (cu2sim_kernels.pl).
        my $fn = { name => $name, kernel => $is_kernel{$name} ? 1 : 0, start => $start, end => $end };
        if ($fn->{kernel}) {
            $fn->{address} = Cu2simKernels::address($head, $name, $explicit, $params_text);
            my $bound = Cu2simKernels::bound(substr($m, $head_start, $open - $head_start));
            $fn->{address} = undef if $on_directive->($start); # (a kernel a macro defines)
            push @edits, [$start + 1, $start + 1, Cu2simKernels::entry($name, $fn->{address}, $bound)]
                if defined $fn->{address};
        }
        push @fns, $fn;
        pos($an) = $start + 1;
    }
    my $enclosing = sub { # the innermost function whose body holds $pos
        my ($pos) = @_;
        my $found;
        for my $f (@fns) { $found = $f if $pos > $f->{start} && $pos < $f->{end}; }
        return $found;
    };
    my $in_device = sub {
        my ($pos) = @_;
        for my $r (@device_ranges) { return 1 if $pos > $r->[0] && $pos < $r->[1]; }
        return 0;
    };
    my $in_hd = sub {
        my ($pos) = @_;
        for my $r (@hd_ranges) { return 1 if $pos > $r->[0] && $pos < $r->[1]; }
        return 0;
    };

    # ---- printf in device code: printed lane by lane, as a GPU prints it ----
    while ($m =~ /(?<![\w.>:])(?:std\s*::\s*|::\s*)?printf\s*\(/g) {
        my ($s, $e) = ($-[0], $+[0]);
        next unless $in_device->($s) || $in_hd->($s);
        push @edits, [$s, $e, 'cudasim_printf('];
    }

    # ---- what the simulator cannot run --------------------------------------
    while ($m =~ /\b(asm|__asm__)\b\s*(?:volatile\s*|__volatile__\s*)?\(/g) {
        $bad->($-[0], "inline PTX assembly (asm) cannot run on the CUDA simulator; write it in "
                      . "CUDA C++") if $in_device->($-[0]);
    }
    while ($m =~ /\b(__shfl|__shfl_up|__shfl_down|__shfl_xor|__ballot|__any|__all)\s*\(/g) {
        $bad->($-[0], "$1 without _sync was removed in CUDA 9 (nvcc refuses it for current "
                      . "GPUs): use ${1}_sync(0xffffffff, ...)");
    }
    my %libraries = (
        'cufft'            => 'cuFFT',
        'cusparse'         => 'cuSPARSE',
        'cusolver'         => 'cuSOLVER',
        'cudnn'            => 'cuDNN',
    );
    my (@includes, %library_said);
    INCLUDE: while ($text =~ /^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]/mg) {
        my ($inc, $at) = ($2, $-[0]);
        my ($found) = find_include(dirname($file), $inc, $1 eq '"');
        push @includes, [$at, $inc, $found ? 1 : 0];
        next if $found;
        $includes[-1][2] = 1; # said here (unless no branch below says it)
        if ($inc =~ m{(?:^|/)helper_\w+\.h$}) {
            $bad->($at, "#include <$inc>: not found in the program's folder, INCLUDE or CPATH; the "
                        . "CUDA samples' helpers are in their Common folder: make sim-run "
                        . "CU=... INCLUDE=path/to/cuda-samples/Common");
            next;
        }
        if ($inc =~ m{^cooperative_groups/}) {
            $bad->($at, "#include <$inc>: this part of cooperative groups is not in the CUDA "
                        . "simulator, which has <cooperative_groups.h>, "
                        . "<cooperative_groups/reduce.h> and <cooperative_groups/memcpy_async.h>")
                unless $library_said{'cg/'}++;
            next;
        }
        if ($inc =~ m{^thrust/}) {
            $bad->($at, "#include <$inc>: this part of Thrust is not in the CUDA simulator, whose "
                        . "Thrust has device_vector, host_vector, device_ptr, tuple and pair, the "
                        . "counting, constant, zip, transform, permutation, reverse and discard "
                        . "iterators, the algorithms of copy, fill, sequence, generate, tabulate, "
                        . "transform, transform_scan, for_each, reduce (by key too), "
                        . "transform_reduce, inner_product, count, extrema, equal, mismatch, find, "
                        . "logical, binary_search, scan (by key too), sort, unique, remove, "
                        . "replace, reverse, partition, gather, scatter, adjacent_difference, merge "
                        . "and set_operations, and thrust::random's minstd engines and uniform "
                        . "distributions") unless $library_said{'thrust/'}++;
            next;
        }
        if ($inc =~ m{(?:^|/)cub/}) {
            $bad->($at, "#include <$inc>: this part of CUB is not in the CUDA simulator, whose CUB "
                        . "has <cub/cub.cuh> and the headers of BlockReduce, BlockScan, BlockLoad, "
                        . "BlockStore, BlockExchange, WarpReduce, WarpScan, DeviceReduce, DeviceScan, "
                        . "DeviceRadixSort and CachingDeviceAllocator") unless $library_said{'cub/'}++;
            next;
        }
        for my $k (sort keys %libraries) {
            if (index($inc, $k) == 0 || $inc =~ m{(?:^|/)\Q$k\E}) {
                $bad->($at, "#include <$inc>: $libraries{$k} is not part of the CUDA simulator, "
                            . "which has the runtime API, cuBLAS, cuRAND (curand.h, "
                            . "curand_kernel.h), CUB, Thrust, cooperative groups, cuda_fp16.h and "
                            . "cuda_bf16.h") unless $library_said{$libraries{$k}}++;
                next INCLUDE;
            }
        }
        $includes[-1][2] = 0; # for cu2sim_refusals.pl to say
    }
    $Cu2simRefusals::defined{$1} = 1 while $m =~ /^[ \t]*#[ \t]*define[ \t]+(\w+)/mg;
    Cu2simRefusals::check($m, $bad, \@includes);
    Cu2simFlags::check($m, $bad);

    # The parts of the libraries it has that it does not have, by name.
    my $curand = "its cuRAND has XORWOW (curandState) and Philox4_32_10 "
               . "(curandStatePhilox4_32_10_t) with uniform, normal and log-normal numbers";
    my %missing = (
        'curandStateMRG32k3a'         => "cuRAND's MRG32k3a generator|$curand",
        'curandStateMtgp32'           => "cuRAND's MTGP32 generator|$curand",
        'curandStateSobol32'          => "cuRAND's Sobol generators|$curand",
        'curandStateSobol64'          => "cuRAND's Sobol generators|$curand",
        'curandStateScrambledSobol32' => "cuRAND's Sobol generators|$curand",
        'curandStateScrambledSobol64' => "cuRAND's Sobol generators|$curand",
        'curand_poisson'              => "cuRAND's Poisson distribution|$curand",
        'curand_discrete'             => "cuRAND's discrete distributions|$curand",
        'curandCreatePoissonDistribution' => "cuRAND's Poisson distribution|$curand",
        'thrust::placeholders'        => "Thrust's placeholder expressions _1, _2|write a "
                                         . "functor or a lambda instead",
        'thrust::cuda::par'           => "Thrust's CUDA execution policy|use thrust::device",
        'thrust::cuda::par_nosync'    => "Thrust's CUDA execution policy|use thrust::device",
    );
    my $missing_re = join '|', map { quotemeta } sort { length $b <=> length $a } keys %missing;
    while ($m =~ /\b($missing_re)\w*/g) {
        my ($what, $has) = split /\|/, $missing{$1};
        $bad->($-[0], "$1 is not in the CUDA simulator ($what): $has");
    }

    # ---- launches ----------------------------------------------------------
    while ($m =~ /<<</g) {
        my $lt = $-[0];
        my $gt = index($m, '>>>', $lt + 3);
        if ($gt < 0) {
            $bad->($lt, "a kernel launch <<< without its >>>");
            last;
        }
        pos($m) = $gt + 3;
        unless (substr($m, $gt + 3) =~ /^\s*\(/) {
            $bad->($gt, "a kernel launch <<< ... >>> must be followed by the kernel's arguments "
                        . "in parentheses");
            next;
        }
        # The kernel: a name with ::, and template arguments in balanced < >.
        my $j = $lt - 1;
        $j-- while $j >= 0 && substr($m, $j, 1) =~ /\s/;
        my $end = $j + 1;
        my $templated = 0;
        if ($j >= 0 && substr($m, $j, 1) eq '>') {
            # Back to the matching <; a parenthesized part is passed whole,
            # as its < and > compare (k<(N > 4) ? 8 : 4><<<...>>>).
            my $depth = 0;
            for (; $j >= 0; $j--) {
                my $c = substr($m, $j, 1);
                if ($c eq ')') {
                    my $close = 0;
                    for (; $j >= 0; $j--) {
                        my $d = substr($m, $j, 1);
                        $close++ if $d eq ')';
                        $close-- if $d eq '(';
                        last if $close == 0 || $d =~ /[;{}]/;
                    }
                    last if $j < 0 || substr($m, $j, 1) ne '(';
                    next;
                }
                last if $c =~ /[;{}]/;
                $depth++ if $c eq '>';
                $depth-- if $c eq '<';
                last if $depth == 0;
            }
            if ($j < 0 || substr($m, $j, 1) ne '<') {
                $bad->($lt, "cannot tell which kernel this <<< >>> launches (its template "
                            . "arguments do not balance)");
                next;
            }
            $j--;
            $j-- while $j >= 0 && substr($m, $j, 1) =~ /\s/;
            $templated = 1;
        }
        # (a name pasted in a macro, `name ## _kernel`, is one name)
        for (;;) {
            $j-- while $j >= 0 && substr($m, $j, 1) =~ /[\w:]/;
            my $k = $j;
            $k-- while $k >= 0 && substr($m, $k, 1) =~ /[ \t]/;
            last unless $k >= 1 && substr($m, $k - 1, 2) eq '##';
            $j = $k - 2;
            $j-- while $j >= 0 && substr($m, $j, 1) =~ /[ \t]/;
        }
        my $start = $j + 1;
        my $expr = substr($text, $start, $end - $start);
        unless ($expr =~ /^(?:::)?(?:\w+::)*(\w+)/) {
            $bad->($lt, "cannot tell which kernel this <<< >>> launches");
            next;
        }
        my $base = $1;
        if ($in_device->($lt)) {
            $bad->($lt, "a kernel launch inside device code (dynamic parallelism) is not "
                        . "supported by the CUDA simulator: launch $base from the host");
            next;
        }
        (my $label = $expr) =~ s/\s+//g;
        # A launch in a macro whose parameter is the kernel
        # (#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)): which kernel
        # is known only where the macro is used.
        # A kernel named by a macro's parameters, or pasted (k ## _f32), is named by
        # its text where the macro is used: CUDASIM_STR (the prelude below).
        my $macro_param = 0;
        {
            my $ls = rindex($m, "\n", $lt) + 1;
            while ($ls > 1 && substr($m, $ls - 2, 1) eq '\\') { $ls = rindex($m, "\n", $ls - 2) + 1; }
            if (substr($m, $ls, $lt - $ls) =~ /^\s*#\s*define\s+\w+\(([^()]*)\)/) {
                my %params = map { s/^\s+|\s+$//gr => 1 } split /,/, $1;
                $macro_param = 1 if $params{$base} && $expr eq $base;
                $label = "CUDASIM_STR($expr)" if !$macro_param && grep { $params{$_} } $expr =~ /\w+/g;
            }
            $label = "CUDASIM_STR($expr)" if $expr =~ /##/;
        }
        my $quoted = $label =~ /^CUDASIM_STR\(/ ? $label : "\"$label\"";
        my $call;
        my $lambda = "[](auto &&...cudasim_a) { $expr("
                   . "static_cast<decltype(cudasim_a) &&>(cudasim_a)...); }, ";
        if ($macro_param || $expr =~ /##/) {
            # (which kernel, and whether a template, is known only where the macro is used)
            $call = $macro_param ? "cudasim::launch_deduced(#$base, $lambda"
                                 : "cudasim::launch_deduced($quoted, $lambda";
        } elsif (!$templated && ($template_kernel{$base} || ($kernel_defs{$base} || 0) > 1)) {
            # Template arguments deduced from the call's arguments (or overloads).
            $call = "cudasim::launch_deduced($quoted, $lambda";
        } elsif (!$templated && $default_args{$base}) {
            # Parameters left to their default values: the call supplies them.
            $call = "cudasim::launch_deduced($quoted, reinterpret_cast<const void *>(&$expr), "
                  . $lambda;
        } else {
            $call = "cudasim::launch($quoted, $expr, ";
        }
        push @edits, [$start, $lt + 3, $call], [$gt, $gt + 3, ')'];
    }

    # ---- __shared__ declarations -------------------------------------------
    # Which braces hold code (function bodies and their blocks), to tell a
    # declaration in a function from one at namespace scope.
    my (@stack, %code_at);
    my $last_stmt = 0;
    my $code_depth = 0;
    while ($m =~ /([{};])|\b__shared__\b/g) {
        my $at = $-[0];
        if (!defined $1) {
            $code_at{$at} = $code_depth;
            next;
        }
        if ($1 eq '{') {
            my $before = substr($m, $last_stmt, $at - $last_stmt);
            1 while $before =~ s/<[^<>]*>|\([^()]*\)/ /g; # template and parameter lists
            my $code = $before !~ /\b(?:namespace|struct|class|union|enum)\b/
                    && $before !~ /\bextern\s*"\s*"\s*$/;
            $code = 1 if $code_depth > 0;
            push @stack, $code;
            $code_depth++ if $code;
        } elsif ($1 eq '}') {
            my $code = pop @stack;
            $code_depth-- if $code;
        }
        $last_stmt = $at + 1;
    }
    while ($m =~ /\b__shared__\b/g) {
        my $at = $-[0];
        my $s = $at;
        $s-- while $s > 0 && substr($m, $s - 1, 1) !~ /[;{}]/;
        # Skip whole preprocessor lines (#pragma unroll, say) before the declaration.
        my $prefix = substr($m, $s, $at - $s);
        while ($prefix =~ /^(\s*#[^\n]*\n)/) {
            $s += length $1;
            $prefix = substr($m, $s, $at - $s);
        }
        $s++ while substr($m, $s, 1) =~ /\s/ && $s < $at;
        $prefix = substr($m, $s, $at - $s);
        my $semi = $at;
        my $depth = 0;
        for (; $semi < length $m; $semi++) {
            my $c = substr($m, $semi, 1);
            $depth++ if $c =~ /[(\[{]/;
            $depth-- if $c =~ /[)\]}]/;
            last if $c eq ';' && $depth == 0;
        }
        pos($m) = $semi + 1;
        my $decl = substr($m, $s, $semi - $s);
        my $newlines = ($decl =~ tr/\n//);
        # At namespace scope, each function that uses it declares it (below).
        my $ns = !$code_at{$at};
        my $quals = $prefix . ' ' . substr($m, $at + 10, $semi - $at - 10);
        my $extern = $quals =~ s/\bextern\b/ /g;
        $Cu2simKernels::extern_shared = 1 if $extern;
        $quals =~ s/\bstatic\b/ /g;
        my $align = '0';
        while ($quals =~ s/\b(?:__align__|alignas)\s*\(((?:[^()]|\([^()]*\))*)\)/ /) { $align = "($1)"; }
        # Qualifiers, or the type itself: `extern float __shared__ smem[];`
        # is `extern __shared__ float smem[];` (the type stays in $quals).
        if ($prefix =~ /[^\s]/ && $prefix !~ /^\s*(?:(?:extern|static|volatile|const|(?:__align__|alignas)\s*\((?:[^()]|\([^()]*\))*\))\s*)*(?:(?>[\w:]+)(?:\s*<[\w\s:,*]*>)?[\s*]*)*$/) {
            $bad->($at, "cannot translate this __shared__ declaration for the CUDA simulator; "
                        . "write it as `__shared__ TYPE NAME[SIZE];`");
            next;
        }
        $quals =~ s/\s+/ /g;
        $quals =~ s/^ | $//g;
        # Split the declarators at commas outside brackets.
        my @parts;
        my ($cur, $d) = ('', 0);
        for my $c (split //, $quals) {
            $d++ if $c =~ /[(\[<]/;
            $d-- if $c =~ /[)\]>]/;
            if ($c eq ',' && $d == 0) { push @parts, $cur; $cur = ''; } else { $cur .= $c; }
        }
        push @parts, $cur;
        my $first = shift @parts;
        unless ($first =~ /^(.*?)\s*((?:\*\s*)*)\b(\w+)\s*((?:\[[^\]]*\]\s*)*)$/ && $1 ne '') {
            $bad->($at, "cannot translate this __shared__ declaration for the CUDA simulator; "
                        . "write it as `__shared__ TYPE NAME[SIZE];`");
            next;
        }
        my $type = $1;
        my @decls = ([$2, $3, $4]);
        my $ok = 1;
        for my $p (@parts) {
            if ($p =~ /^\s*((?:\*\s*)*)(\w+)\s*((?:\[[^\]]*\]\s*)*)$/) { push @decls, [$1, $2, $3]; }
            else { $ok = 0; }
        }
        unless ($ok) {
            $bad->($at, "cannot translate this __shared__ declaration for the CUDA simulator; "
                        . "declare one variable at a time");
            next;
        }
        my $out = '';
        for my $dcl (@decls) {
            my ($stars, $name, $dims) = @$dcl;
            $stars =~ s/\s+//g;
            $dims =~ s/\s+$//;
            if ($extern) {
                unless ($dims =~ /^\[\s*\](.*)$/) {
                    $bad->($at, "extern __shared__ $name must be an array of unknown size: "
                                . "extern __shared__ TYPE $name" . "[];");
                    next;
                }
                my $inner = $1;
                my $where = $ns ? '"' . c_string($shown) . '", ' . $line_of->($at) : '__FILE__, __LINE__';
                my $local = $inner eq ''
                    ? "$type $stars*$name = ($type $stars*)cudasim_dynamic_shared(\"$name\", "
                      . "sizeof($type $stars), $where); "
                    : "$type $stars(*$name)$inner = ($type $stars(*)$inner)"
                      . "cudasim_dynamic_shared(\"$name\", sizeof($type $stars$inner), $where); ";
                if ($ns) { push @ns_shared, { name => $name, local => $local, file => $file, at => $at }; }
                else { $out .= $local; }
            } else {
                if ($dims =~ /\[\s*\]/) {
                    $bad->($at, "__shared__ $name" . "[] needs a size (or extern, for dynamic "
                                . "shared memory)");
                    next;
                }
                $out .= "typedef $type $stars cudasim_st_$name$dims; "
                      . "static cudasim::SharedSlot cudasim_ss_$name;";
                my $id = Cu2simKernels::shared_id(realpath($file) // $file, $line_of->($at), $name);
                if ($ns) {
                    push @ns_shared, { name => $name, file => $file, at => $at, id => $id,
                        local => "cudasim_st_$name &$name = cudasim::shared_var<cudasim_st_$name>("
                               . "cudasim_ss_$name, $align, \"$name\", \"" . c_string($shown) . '", '
                               . $line_of->($at) . ");" };
                    next;
                }
                $out .= " cudasim_st_$name &$name = cudasim::shared_var<cudasim_st_$name>("
                      . "cudasim_ss_$name, $align, \"$name\", __FILE__, __LINE__);";
                # its size, for cudaFuncGetAttributes (cu2sim_kernels.pl)
                my $fn = $on_directive->($at) || !$Cu2simKernels::enabled ? undef : $enclosing->($at);
                if ($fn && ($fn->{address} || !$fn->{kernel})) {
                    $out .= ' ' . Cu2simKernels::shared_entry($fn, $name, $id);
                    $has_shared{$fn->{name}} = 1;
                }
            }
        }
        $out =~ s/ $//;
        push @edits, [$s, $semi + 1, $out . ("\n" x $newlines)];
    }
    # A function that uses a namespace-scope __shared__ variable (declared before
    # it, in this file or one translated before) declares it at its top.
    for my $fn (@fns) {
        next if $on_directive->($fn->{start});
        my $body = substr($m, $fn->{start}, $fn->{end} - $fn->{start});
        for my $v (@ns_shared) {
            next if $v->{file} eq $file && $v->{at} > $fn->{start};
            next unless $body =~ /(?<![\w.>:])\Q$v->{name}\E\b/;
            my $decl = $v->{local};
            if (defined $v->{id} && $Cu2simKernels::enabled && ($fn->{address} || !$fn->{kernel})) {
                $decl .= ' ' . Cu2simKernels::shared_entry($fn, $v->{name}, $v->{id});
                $has_shared{$fn->{name}} = 1;
            }
            push @edits, [$fn->{start} + 1, $fn->{start} + 1, $decl];
        }
    }

    # ---- __device__, __constant__ and __managed__ variables: registered,
    # between red zones where the declaration can be rewritten -------------
    push @edits, Cu2simVariables::edits($m, $text);

    # ---- local headers: the same translation, at any depth -----------------
    # (the program's folder, -I folders and CPATH; never the simulator's own).
    # Each is translated as this file is; one the translation changes (it holds
    # CUDA, or includes a header that does, at any depth) is pulled in here, and
    # one it leaves as it is stays an #include for g++ to read.
    my $dir = dirname($file);
    my $shown_dir = dirname($shown);
    while ($text =~ /^([ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"][^\n]*)/mg) {
        my ($whole, $quoted, $inc, $at) = ($1, $2 eq '"', $3, $-[0]);
        my $hash = index($m, '#', $at);
        next if $hash < 0 || $hash > $at + length $whole; # (in a comment)
        my ($f, $own) = find_include($dir, $inc, $quoted);
        next unless defined $f && !$own;
        my $rel = File::Spec->catfile($dir, $inc) ne $f ? $f
                : $shown_dir eq '.' ? $inc : File::Spec->catfile($shown_dir, $inc);
        my $sub = Cu2simHeaders::translated($f, $rel, \&translate);
        if (!defined $sub) { # it includes itself: its guard makes that empty
            push @edits, [$at, $at + length $whole, ''];
        } elsif ($sub->{changed}) {
            push @edits, [$at, $at + length $whole,
                          Cu2simHeaders::pulled_in($sub, $line_of->($at) + 1, c_string($shown))];
        } elsif ($quoted && $file ne $path && $f eq File::Spec->catfile($dir, $inc) && $f !~ /["\n]/) {
            # Pulled into another file, "x.h" would be looked for next to that file.
            push @edits, [$at, $at + length $whole, '#include "' . File::Spec->rel2abs($f) . '"'];
        }
    }

    # ---- apply, last first -------------------------------------------------
    my $out = $text;
    for my $e (sort { $b->[0] <=> $a->[0] } @edits) {
        substr($out, $e->[0], $e->[1] - $e->[0]) = $e->[2];
    }
    return ('#line 1 "' . c_string($shown) . "\"\n" . $out, scalar @edits, $m);
}

# A file's name in a #line: a path may hold " and \ (and a newline), which a C string escapes.
sub c_string
{
    (my $s = shift) =~ s/([\\"])/\\$1/g;
    $s =~ s/\n/\\n/g;
    return $s;
}

my ($result) = translate($path, $path);
Cu2simHeaders::write_deps($deps_file, $path) if defined $deps_file;

# Which kernels need fibers.
my $collective = qr/\b(?:__syncthreads\w*|__syncwarp|__shfl\w*|__ballot_sync|__any_sync|__all_sync|__reduce_\w+_sync|__match_\w+_sync|__activemask)\b/;
# Cooperative groups' barriers and warp operations (a group's methods, or
# anything of the namespace: taken to need fibers), and CUB's block and warp
# collectives.
my $groups = qr/\.(?:sync|shfl\w*|any|all|ballot)\s*\(|\b(?:cg|cooperative_groups)::|\b(?:this_thread_block|tiled_partition|this_grid|coalesced_threads|labeled_partition|binary_partition)\b|\bcub::(?:Block|Warp)\w+/;
# WMMA's collectives, libcu++'s barriers and pipelines (their waits).
my $libcu = qr/\b(?:wmma|nvcuda|cuda)::|\b(?:load_matrix_sync|store_matrix_sync|mma_sync|memcpy_async)\b|\.(?:arrive\w*|wait\w*|producer_\w+|consumer_\w+)\s*\(/;
my %uses = map { $_ => ($body{$_} =~ $collective || $body{$_} =~ $groups || $body{$_} =~ $libcu ? 1 : 0) } keys %body;
for (my $changed = 1; $changed;) {
    $changed = 0;
    for my $f (keys %body) {
        next if $uses{$f};
        for my $g (keys %body) {
            if ($uses{$g} && $body{$f} =~ /\b\Q$g\E\s*[(<]/) { $uses{$f} = 1; $changed = 1; last; }
        }
    }
}

exit 1 if $errors;
# (the first line names the program: lib/cudasim/check/report.cpp reads it)
print '#line 1 "', c_string($path), "\"\n";
# (the name of a kernel that a macro's arguments name, as a string)
print "#define CUDASIM_STR(...) #__VA_ARGS__\n";
# (a file with dynamic shared memory aligns it to 16 bytes after each kernel's static)
print "#define CUDASIM_DYNAMIC_SHARED_ALIGN ", ($Cu2simKernels::extern_shared ? 16 : 1), "\n";
# (the program is compiled as nvcc's device pass sees it: __CUDA_ARCH__ is defined, for the
# architecture the simulated device would run; __host__ __device__ bodies undefine it)
print "#define __CUDA_ARCH__ ", Cu2simFlags::device_arch(), "\n";
print $result;
print "\n/* cu2sim: kernels of this file and whether they need fibers */\n";
my $k = 0;
for my $name (sort keys %is_kernel) {
    next unless exists $body{$name};
    printf "static const int cudasim_kernel_%d __attribute__((unused)) = "
         . "cudasim_register_kernel(\"%s\", %d, CUDASIM_INSTRUMENTED);\n", $k++, $name, $uses{$name};
    # The __device__ functions it reaches that have __shared__ variables: theirs are its too.
    my %seen;
    my @todo = ($name);
    while (defined(my $f = shift @todo)) {
        for my $g (keys %body) {
            next if $seen{$g} || $g eq $name || $body{$f} !~ /\b\Q$g\E\s*[(<]/;
            $seen{$g} = 1;
            push @todo, $g;
        }
    }
    my @callees = grep { $has_shared{$_} && !$is_kernel{$_} } sort keys %seen;
    printf "static const int cudasim_kernel_%d __attribute__((unused)) = "
         . "cudasim_register_kernel_calls(\"%s\", \"%s\");\n", $k++, $name, "@callees" if @callees;
}
