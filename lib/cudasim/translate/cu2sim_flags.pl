# cu2sim_flags.pl: the part of cu2sim.pl that reads nvcc's options
# (make sim-run's NVCCFLAGS, each word given as --nvcc WORD) where they change
# what nvcc accepts, and refuses what nvcc would refuse without them, one line
# each, naming the option that is missing:
#
#   -arch=sm_XX, --gpu-architecture, -gencode arch=compute_XX,code=sm_XX, -code:
#       the oldest architecture the program is built for (nvcc 13's default,
#       sm_75, without one); an intrinsic of a newer one is refused
#       (__reduce_add_sync needs sm_80: nvcc says the identifier is undefined)
#       and the value of __CUDA_ARCH__ (device_arch below)
#   --extended-lambda (or --expt-extended-lambda): a lambda marked __device__
#       or __host__ __device__ is refused without it, as nvcc refuses it
#   -I DIR: a folder for #include, as cu2sim.pl's -I
package Cu2simFlags;
use strict;
use warnings;

my $default_arch = 75;  # nvcc 13's default architecture, and the oldest it builds for
my $simulated_arch = 80; # the device the simulator presents (-arch=native)
our @archs;             # the architectures named
our $extended_lambda = 0;
our @include_dirs;

# One word of nvcc's options.
sub option
{
    my ($word) = @_;
    if ($word =~ /^-I(.+)$/s) { push @include_dirs, $1; return; }
    if ($word =~ /^--?(?:expt-)?extended-lambda$/) { $extended_lambda = 1; return; }
    push @archs, $1 while $word =~ /\b(?:sm|compute|lto)_(\d+)[a-z]?\b/g;
    if ($word =~ /^(?:-arch|--gpu-architecture)=(native|all|all-major)$/) {
        push @archs, $1 eq 'native' ? $simulated_arch : ($default_arch, $simulated_arch);
    }
}

# The folders -I named.
sub include_dirs { return @include_dirs; }

# The oldest architecture the program is built for, and how it was chosen.
sub oldest
{
    return ($default_arch, "sm_$default_arch, nvcc's default") unless @archs;
    my ($min) = sort { $a <=> $b } @archs;
    return ($min, "sm_$min (NVCCFLAGS)");
}

# __CUDA_ARCH__ of the code that runs: of the architectures the program is built
# for, the newest the simulated device (compute capability 8.0) can run, as the
# CUDA driver picks; nvcc's default (sm_75) without any; the oldest named when
# none is 8.0 or older. Times 10, as nvcc defines it (750, 800).
sub device_arch
{
    return $default_arch * 10 unless @archs;
    my @runnable = sort { $b <=> $a } grep { $_ <= $simulated_arch } @archs;
    return (@runnable ? $runnable[0] : (sort { $a <=> $b } @archs)[0]) * 10;
}

# Intrinsics of a newer architecture than nvcc's default: [pattern, the
# compute capability (times 10) they need].
my @newer = ([qr/\b__reduce_(?:add|min|max|and|or|xor)_sync\b/, 80]);

# check(masked code, bad(pos, msg)): refuse what nvcc refuses with these options.
sub check
{
    my ($m, $bad) = @_;
    my ($arch, $how) = oldest();
    for my $n (@newer) {
        my ($re, $need) = @$n;
        next if $arch >= $need;
        my %said;
        while ($m =~ /$re/g) {
            next if $said{$&}++;
            $bad->($-[0], sprintf("%s needs compute capability %d.%d, and the program is built for %s: "
                                  . "give NVCCFLAGS=-arch=sm_%d (nvcc, without it: identifier \"%s\" "
                                  . "is undefined)", $&, $need / 10, $need % 10, $how, $need, $&));
        }
    }
    return if $extended_lambda;
    # [captures] __device__ (...) or [captures] __host__ __device__ (...): the
    # annotation follows a lambda's ] (not an attribute's ]]).
    if ($m =~ /(?<!\])\]\s*(?:mutable\s*)?(?:__host__\s*)?__device__\b|(?<!\])\]\s*__host__\b/) {
        $bad->($-[0], "a lambda marked __device__ needs nvcc's --extended-lambda: give "
                      . "NVCCFLAGS=--extended-lambda (nvcc, without it: __host__ or __device__ "
                      . "annotation on lambda requires --extended-lambda nvcc flag)");
    }
}

1;
