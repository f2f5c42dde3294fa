#!/usr/bin/env perl
# twin_parallel.pl OBJECT.o... > twin_parallel.c
#
# Which functions of the uninstrumented twin (twin_link.sh) may run a launch's
# blocks on several cores at once (lib/cudasim/exec/parallel.cpp): those whose
# code, followed through every function and table it refers to, at any depth,
# calls nothing of the simulator or the C library but what gives the same
# result in any order of the blocks: barriers, warp operations and shared
# memory (the block's own), the thread's coordinates, memcpy and the like, and
# the math library. An atomic, printf, malloc, assert, a grid sync, a clock, a
# warp-wide library collective (WMMA, memcpy_async, cuda::barrier), a texture
# fetch, or any function this cannot see into, keeps a kernel's blocks one at a
# time. The objects are compiled with -ffunction-sections, so that each
# function's references are those of its own section.
#
# Prints a C file: the names (as the linker knows them) of the functions that
# may, in cudasim_twin_parallel, ending with NULL.
use strict;
use warnings;

my $SAFE = qr/^(?:cudasim_(?:syncthreads|syncthreads_op|warp_op|shared_alloc|dynamic_shared
                             |thread_idx|block_idx|block_dim|grid_dim|shared_base|launch_serial)
               |_ZTH\d+cudasim_\w+
               |mem(?:cpy|move|set|cmp)|fe[gs]etround|__stack_chk_fail
               |(?:sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|exp|exp2
                  |exp10|expm1|log|log2|log10|log1p|pow|sqrt|cbrt|hypot|fma|fmod|remainder|remquo
                  |floor|ceil|trunc|round|lround|llround|rint|lrint|llrint|nearbyint|fabs|fmin
                  |fmax|fdim|frexp|ldexp|scalbn|scalbln|ilogb|logb|modf|erf|erfc|lgamma|tgamma
                  |copysign|nextafter|sincos|j0|j1|jn|y0|y1|yn)[fl]?
               |_ZGV\w+)$/x;

my (%sections, %relocs, %defined, @functions);
for my $obj (@ARGV) {
    # section index -> name
    my %sec;
    open(my $s, '-|', 'readelf', '-SW', $obj) or die "readelf $obj: $!\n";
    while (<$s>) { $sec{$1} = $2 if /^\s*\[\s*(\d+)\]\s+(\S+)/; }
    close $s;
    # symbols: where each is defined
    open(my $y, '-|', 'readelf', '-sW', $obj) or die "readelf $obj: $!\n";
    while (<$y>) {
        my @f = split;
        next unless @f >= 8 && $f[0] =~ /^\d+:$/;
        my ($type, $bind, $ndx, $name) = @f[3, 4, 6, 7];
        next if $ndx eq 'UND' || $ndx !~ /^\d+$/ || !defined $sec{$ndx};
        my $node = "$obj\0$sec{$ndx}";
        if ($bind ne 'LOCAL') {
            $defined{$name} //= $node;
            push @functions, $name if $type eq 'FUNC';
        } else {
            $defined{"$obj\0$name"} = $node; # a local symbol: only this object's
        }
    }
    close $y;
    # relocations: what each section refers to
    open(my $r, '-|', 'readelf', '-rW', $obj) or die "readelf $obj: $!\n";
    my $in;
    while (<$r>) {
        if (/^Relocation section '\.rela?(\S+)'/) { $in = "$obj\0$1"; $sections{$in} = 1; next; }
        next unless defined $in;
        my @f = split;
        next unless @f >= 5 && $f[0] =~ /^[0-9a-f]+$/;
        push @{$relocs{$in}}, [$obj, $f[4]];
    }
    close $r;
}

# What a name referred to from obj is: a node (section) to follow, or undef
# for a name defined nowhere here (outside: the simulator, the C library).
sub target
{
    my ($obj, $name) = @_;
    return "$obj\0$name" if $name =~ /^\./;    # a section symbol
    return $defined{"$obj\0$name"} // $defined{$name};
}

my %verdict;
sub safe
{
    my ($start) = @_;
    my @todo = ($start);
    my %seen = ($start => 1);
    while (defined(my $node = shift @todo)) {
        for my $ref (@{$relocs{$node} || []}) {
            my ($obj, $name) = @$ref;
            my $t = target($obj, $name);
            if (!defined $t) {
                return 0 unless $name =~ $SAFE;
                next;
            }
            push @todo, $t unless $seen{$t}++;
        }
    }
    return 1;
}

print "/* The twin's functions whose launches may run their blocks on several cores\n"
    . " * (twin_parallel.pl). */\n#include <stddef.h>\n"
    . "const char *const cudasim_twin_parallel[] = {\n";
my %printed;
for my $name (sort @functions) {
    next if $printed{$name}++;
    next unless safe($defined{$name});
    print "    \"$name\",\n";
}
print "    NULL,\n};\n";
