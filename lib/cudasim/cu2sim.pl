#!/usr/bin/perl
# cu2sim.pl: translate a CUDA .cu file so that g++ can build it for the CUDA
# simulator (lib/cudasim). Line numbers are kept, so compiler messages and
# simulator reports point at the original .cu file.
#
#   perl lib/cudasim/cu2sim.pl kernels/relu.cu > build/.../relu.sim.cpp
#
#   k<<<grid, block[, shared[, stream]]>>>(args)   cudasim::launch("k", k, grid, block, ...)(args)
#   __shared__ T name[N];                           static T name[N]; CUDASIM_SHARED(name);
#   extern __shared__ T name[];                     T *name = (T *)cudasim_dynamic_shared();
#
# It also notes which kernels need fibers: those whose body, or a __device__
# function they call, uses __syncthreads, __syncwarp or a warp vote or shuffle.
# Everything else runs as a plain loop over the threads.
use strict;
use warnings;

my $path = shift @ARGV or die "usage: cu2sim.pl FILE.cu\n";
open my $in, '<', $path or die "cu2sim: cannot open $path: $!\n";
my @lines = <$in>;
close $in;

my $errors = 0;
sub fail { my ($n, $msg) = @_; print STDERR "$path:$n: error: $msg\n"; $errors++; }

my $text = join '', @lines;
my @out;
my $in_comment = 0;
for my $i (0 .. $#lines) {
    my $line = $lines[$i];
    my $n = $i + 1;
    # What of the line is code (comments blanked), to decide what to rewrite.
    my $code_part = '';
    my $rest = $line;
    while (length $rest) {
        if ($in_comment) {
            if ($rest =~ s{^.*?\*/}{}s) { $in_comment = 0; } else { $rest = ''; }
        } elsif ($rest =~ s{^(.*?)(/\*|//)}{}s) {
            $code_part .= $1;
            if ($2 eq '//') { $rest = ''; } else { $in_comment = 1; }
        } else {
            $code_part .= $rest;
            $rest = '';
        }
    }
    if ($code_part !~ /__shared__|<<</) {
        push @out, $line;
        next;
    }
    # Launches (on one line).
    while ($line =~ /((?:\w+::)*\w+(?:\s*<[^<>;()]*>)?)\s*<<<(.*?)>>>\s*\(/) {
        my ($kernel, $cfg) = ($1, $2);
        (my $label = $kernel) =~ s/\s+//g;
        $line =~ s/\Q$&\E/cudasim::launch("$label", $kernel, $cfg)(/;
    }
    fail($n, "a kernel launch <<< >>> must be written on one line for the simulator")
        if $line =~ /<<<|>>>\s*\(/;
    # Dynamic shared memory.
    if ($line =~ /^(\s*)extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s*)?(.+?)\s*(\w+)\s*\[\s*\]\s*;(.*)$/) {
        $line = "$1$2 *$3 = ($2 *)cudasim_dynamic_shared();$4\n";
    }
    # Static shared memory: one variable per declaration.
    elsif ($line =~ /^(\s*)__shared__\s+(.+?)\s+(\w+)\s*((?:\[[^\]]*\]\s*)*);(.*)$/) {
        my ($indent, $type, $name, $dims, $rest) = ($1, $2, $3, $4, $5);
        fail($n, "declare one __shared__ variable per line for the simulator") if $type =~ /,/;
        $line = "${indent}static $type $name$dims; CUDASIM_SHARED($name);$rest\n";
    } elsif ($line =~ /__shared__/) {
        fail($n, "the simulator understands `__shared__ TYPE NAME[...];` and "
                 . "`extern __shared__ TYPE NAME[];`, one per line, inside a function");
    }
    push @out, $line;
}

# Which kernels need fibers.
(my $code = $text) =~ s{/\*.*?\*/}{ }gs;
$code =~ s{//[^\n]*}{}g;
my $collective = qr/\b(?:__syncthreads|__syncwarp|__shfl\w*|__ballot_sync|__any_sync|__all_sync)\b/;
my (%body, %is_kernel);
while ($code =~ /\b(__global__|__device__)\b[^;{}()]*?\b(\w+)\s*\(/g) {
    my ($kind, $name) = ($1, $2);
    my $pos = pos($code);
    # Skip the parameter list, then expect a body.
    my $depth = 1;
    my $j = $pos;
    while ($j < length($code) && $depth > 0) {
        my $c = substr($code, $j++, 1);
        $depth++ if $c eq '(';
        $depth-- if $c eq ')';
    }
    my $rest = substr($code, $j);
    next unless $rest =~ /^\s*(?:const\s*)?\{/;
    my $start = $j + index($rest, '{');
    $depth = 0;
    my $k = $start;
    do {
        my $c = substr($code, $k++, 1);
        $depth++ if $c eq '{';
        $depth-- if $c eq '}';
    } while ($k < length($code) && $depth > 0);
    $body{$name} .= substr($code, $start, $k - $start);
    $is_kernel{$name} = 1 if $kind eq '__global__';
}
my %uses = map { $_ => ($body{$_} =~ $collective ? 1 : 0) } keys %body;
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
print "#line 1 \"$path\"\n";
print @out;
print "\n/* cu2sim: kernels of this file and whether they need fibers */\n";
my $k = 0;
for my $name (sort keys %is_kernel) {
    printf "static const int cudasim_kernel_%d __attribute__((unused)) = "
         . "cudasim_register_kernel(\"%s\", %d);\n", $k++, $name, $uses{$name};
}
