# cu2sim_variables.pl: the part of cu2sim.pl that translates the __device__,
# __constant__ and __managed__ variables of a file (namespace scope), so that
# kernels' accesses to them are checked (lib/cudasim/runtime/variables.cpp: memcheck
# and races):
#
#   __constant__ float taps[5] = {...};
#
# becomes (on one line, so lines stay where they were)
#
#   typedef float cudasim_vt_taps[5];
#   struct cudasim_vboxt_taps { alignas(256) char lo[256]; cudasim_vt_taps v; char hi[256]; };
#   extern cudasim_vboxt_taps cudasim_vbox_UNIT_taps;
#   cudasim_vboxt_taps cudasim_vbox_UNIT_taps = {{}, {...}, {}};
#   static cudasim_vt_taps &taps = cudasim_vbox_UNIT_taps.v;
#   static const int cudasim_vreg_taps = cudasim_register_variable(..., 256, ...);
#
# The variable keeps its name, type, size and initial value (sizeof, &, and
# cudaMemcpyToSymbol see the same); it now lies 256-byte aligned, as on a GPU,
# between two red zones of 256 bytes. A declaration this cannot rewrite
# (const or constexpr, __managed__, a struct named with its keyword, an array
# of unknown size not given by a list, ...) is left as it is and registered
# without red zones (its accesses are checked for races, not for bounds); one
# that names no variable the registration can take the address of (extern, a
# template, a struct defined in it, a function pointer) is left as it is.
use strict;
use warnings;

package Cu2simVariables;

# The file being translated, as a word (cu2sim.pl sets it): the boxes have external
# linkage, each named for its file, so that the kernels' uninstrumented twin
# (lib/cudasim/exec/twins.cpp), a shared object, reaches the program's own boxes,
# not copies of its own.
our $unit = 'u';

# The edits for the file: [start, end, replacement], on masked text $m (no
# comments or string contents) and the file's text $text.
sub edits
{
    my ($m, $text) = @_;
    my @edits;
    # Braces of namespaces and extern "C" are transparent; a declaration at
    # depth 0 of the others is at namespace scope.
    my (@opaque, %scope_ok);
    my ($depth, $last) = (0, 0);
    while ($m =~ /([{};])|\b(?:__device__|__constant__|__managed__)\b/g) {
        my $at = $-[0];
        if (!defined $1) {
            $scope_ok{$at} = 1 if $depth == 0;
            next;
        }
        if ($1 eq '{') {
            my $before = substr($m, $last, $at - $last);
            my $transparent = $before =~ /\bnamespace\b[\w\s:]*$/ || $before =~ /\bextern\s*"\s*"\s*$/;
            push @opaque, !$transparent;
            $depth++ unless $transparent;
        } elsif ($1 eq '}') {
            my $opaque = pop @opaque;
            $depth-- if $opaque;
        }
        $last = $at + 1;
    }
    my (%done, @rewritten);
    for my $at (sort { $a <=> $b } keys %scope_ok) {
        my $s = $at;
        $s-- while $s > 0 && substr($m, $s - 1, 1) !~ /[;{}]/;
        my $prefix = substr($m, $s, $at - $s);
        while ($prefix =~ /^(\s*#[^\n]*\n)/) { # preprocessor lines before it
            $s += length $1;
            $prefix = substr($m, $s, $at - $s);
        }
        $s++ while $s < $at && substr($m, $s, 1) =~ /\s/;
        next if $done{$s}++;
        # (alignment and attributes do not make a declaration a function's)
        (my $mm = substr($m, $s)) =~ s{\b(?:__align__|alignas)\s*\([^()]*\)|\b__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)}{' ' x length $&}ge;
        my ($e, $d, $first) = ($at, 0, '');
        for (; $e < length $m; $e++) {
            my $c = substr($mm, $e - $s, 1);
            $first ||= $c if $d == 0 && $c =~ /[;{(=]/;
            $d++ if $c =~ /[(\[{]/;
            $d-- if $c =~ /[)\]}]/;
            last if $c eq ';' && $d == 0;
        }
        next unless $first =~ /^[;=]$/; # (a function, or a struct defined here)
        my $rewritten = rewrite(substr($m, $s, $e - $s), substr($text, $s, $e - $s));
        if (defined $rewritten) {
            my $newlines = (substr($text, $s, $e - $s) =~ tr/\n//);
            push @edits, [$s, $e + 1, $rewritten . ("\n" x $newlines)];
            push @rewritten, [$s, $e + 1];
        } else {
            my $line = 1 + (substr($text, 0, $at) =~ tr/\n//);
            my $reg = register_as_written(substr($m, $s, $e - $s), $line);
            push @edits, [$e + 1, $e + 1, $reg] if $reg ne '';
        }
    }
    # Elsewhere `static __constant__`: __constant__ alone already means static here (kernel.h).
    while ($m =~ /\bstatic\s+(__constant__)\b/g) {
        my ($a, $b) = ($-[1], $+[1]);
        push @edits, [$a, $b, ''] unless grep { $a >= $_->[0] && $a < $_->[1] } @rewritten;
    }
    return @edits;
}

# The declaration (masked $dm, as written $dt, without its ';') rewritten, or
# undef where it is left as it is.
sub rewrite
{
    my ($dm, $dt) = @_;
    return undef if $dm =~ /\b(?:extern|template|typedef|using|const|constexpr|thread_local|__shared__|__managed__|__global__|operator|struct|class|union|enum)\b/;
    my $constant = $dm =~ /\b__constant__\b/ ? 1 : 0;
    my $static = $dm =~ /\bstatic\b/ || $constant ? 'static ' : '';
    # Split at the commas outside brackets, in both texts alike.
    my (@parts, $from);
    my $d = 0;
    $from = 0;
    for my $i (0 .. length($dm) - 1) {
        my $c = substr($dm, $i, 1);
        $d++ if $c =~ /[(\[{<]/;
        $d-- if $c =~ /[)\]}>]/;
        if ($c eq ',' && $d == 0) {
            push @parts, [$from, $i];
            $from = $i + 1;
        }
    }
    push @parts, [$from, length $dm];
    my $out = '';
    my $type;
    for my $k (0 .. $#parts) {
        my ($a, $b) = @{$parts[$k]};
        my ($pm, $pt) = (substr($dm, $a, $b - $a), substr($dt, $a, $b - $a));
        my ($init, $eq) = ('', index($pm, '='));
        if ($eq >= 0) {
            $init = substr($pt, $eq + 1);
            $pm = substr($pm, 0, $eq);
        }
        $init =~ s/^\s+|\s+$//g;
        # qualifiers the rewrite replaces: alignment (the red zone aligns to 256)
        $pm =~ s/\b(?:__device__|__constant__|static|__align__\s*\([^()]*\)|alignas\s*\([^()]*\))/ /g;
        $pm =~ s/\b__attribute__\s*\(\([^()]*(?:\([^()]*\)[^()]*)*\)\)/ /g;
        return undef if $pm =~ /[()]/; # a function pointer, a direct initializer
        my ($stars, $name, $dims);
        if ($k == 0) {
            return undef unless $pm =~ /^\s*(.*?)\s*((?:\*\s*)*)\b(\w+)\s*((?:\[[^\]]*\]\s*)*)$/s && $1 ne '';
            ($type, $stars, $name, $dims) = ($1, $2, $3, $4);
        } else {
            return undef unless $pm =~ /^\s*((?:\*\s*)*)\b(\w+)\s*((?:\[[^\]]*\]\s*)*)$/s;
            ($stars, $name, $dims) = ($1, $2, $3);
        }
        $type =~ s/\s+/ /g;
        $stars =~ s/\s+//g;
        $dims =~ s/\s+$//;
        if ($dims =~ /^\[\s*\]/) { # the size from the list: {a, b, c}
            return undef unless $dims =~ /^\[\s*\]\s*$/ && $init =~ /^\{(.*)\}$/s;
            my $list = $1;
            my ($n, $dd, $any) = (1, 0, 0);
            for my $c (split //, $list) {
                $dd++ if $c =~ /[(\[{]/;
                $dd-- if $c =~ /[)\]}]/;
                $n++ if $c eq ',' && $dd == 0;
                $any = 1 if $c =~ /\S/;
            }
            $n-- if $list =~ /,\s*$/;
            return undef unless $any;
            $dims = "[$n]";
        }
        my $t = "cudasim_vt_$name";
        my $value = $init eq '' ? '{}' : $init =~ /^[{"]/ ? $init : "static_cast<$t>($init)";
        my $box = "cudasim_vbox_${unit}_$name";
        $out .= "typedef $type $stars$t$dims; "
              . "struct cudasim_vboxt_$name { alignas(256) char lo[256]; $t v; char hi[256]; }; "
              . "extern cudasim_vboxt_$name $box; cudasim_vboxt_$name $box = {{}, $value, {}}; "
              . "$static$t &$name = $box.v; "
              . "static const int cudasim_vreg_$name __attribute__((unused)) = "
              . "cudasim_register_variable(&$box.v, sizeof($t), \"$name\", $constant, "
              . "256, __FILE__, __LINE__);";
    }
    return $out;
}


# The registration, without red zones, of the variables of a declaration
# (masked $dm, without its ';') that rewrite() leaves as it is, declared at
# $line; '' where it names none that can be registered.
sub register_as_written
{
    my ($dm, $line) = @_;
    return '' if $dm =~ /\b(?:extern|template|typedef|using|__shared__|__global__|operator)\b/;
    my $kind = $dm =~ /\b__managed__\b/ ? 2 : $dm =~ /\b__constant__\b/ ? 1 : 0;
    (my $decl = $dm) =~ s/\b(?:__device__|__constant__|__managed__|static|volatile|const|constexpr|inline)\b/ /g;
    $decl =~ s{\b(?:__align__|alignas)\s*\([^()]*\)|\b__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)}{ }g;
    my @parts;
    my ($cur, $d) = ('', 0);
    for my $c (split //, $decl) {
        $d++ if $c =~ /[(\[{<]/;
        $d-- if $c =~ /[)\]}>]/;
        if ($c eq ',' && $d == 0) { push @parts, $cur; $cur = ''; } else { $cur .= $c; }
    }
    push @parts, $cur;
    my $reg = '';
    for my $part (@parts) {
        $part =~ s/=.*//s;
        1 while $part =~ s/\[[^\[\]]*\]\s*$//;
        next unless $part =~ /(\w+)\s*$/;
        my $name = $1;
        $reg .= " static const int cudasim_vreg_$name __attribute__((unused)) = "
              . "cudasim_register_variable((const void *)__builtin_addressof($name), sizeof($name), "
              . "\"$name\", $kind, 0, __FILE__, $line);";
    }
    return $reg;
}

1;
