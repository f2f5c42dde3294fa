# cu2sim_headers.pl: the part of cu2sim.pl that carries the translation into
# the headers a program includes, at any depth. Each local header (found in
# the including file's folder for "x.h", in a -I folder or on CPATH, as g++
# finds it; never the simulator's own) is translated once, as the program is;
# one the translation changes is pulled into the including file in its place:
#
#   #include "kernels.cuh"          (holds no CUDA, includes kernels/1_naive.cuh)
#
# becomes
#
#   #line 1 "src/kernels.cuh"
#   ... kernels.cuh, whose own #include "kernels/1_naive.cuh" became
#   #line 1 "src/kernels/1_naive.cuh"
#   ... 1_naive.cuh, translated ...
#   #line 4 "src/kernels.cuh"
#   ...
#   #line 3 "prog.cu"
#
# so every line keeps its file and number. A header is pulled in wherever it
# is included, as the preprocessor would read it again; `#pragma once`
# becomes a guard of the same effect (CUDASIM_ONCE_<hash of its path>), and a
# header's own include guard works as written. A header the translation
# leaves as it is stays an #include, which g++ reads.
package Cu2simHeaders;
use strict;
use warnings;
use Cwd qw(realpath);
use Digest::SHA qw(sha1_hex);

my %done;     # real path => { text, changed, real } (or 0 while being translated)
my @read;     # every file translated, for --deps

# The translation of header $f (shown as $shown in #line), by $translate
# (cu2sim.pl's translate): { text, changed, real }, or undef where $f is
# being translated already (it includes itself, through its guard).
sub translated
{
    my ($f, $shown, $translate) = @_;
    my $real = realpath($f) // $f;
    return undef if exists $done{$real} && !$done{$real};
    return $done{$real} if $done{$real};
    $done{$real} = 0;
    push @read, $real;
    my ($text, $changed, $masked) = $translate->($f, $shown);
    my $once = $masked =~ /^[ \t]*#[ \t]*pragma[ \t]+once\b/m;
    return $done{$real} = { text => $text, changed => $changed ? 1 : 0, once => $once, real => $real };
}

# What stands in place of the #include: the translated header, then a #line
# back to the including file ($shown_c, escaped for a C string) at $next.
sub pulled_in
{
    my ($sub, $next, $shown_c) = @_;
    my $text = $sub->{text};
    my ($open, $close) = ('', '');
    if ($sub->{once}) {
        $text =~ s/^([ \t]*#[ \t]*pragma[ \t]+once\b)[^\n]*/' ' x length $1/me;
        my $guard = 'CUDASIM_ONCE_' . substr(sha1_hex($sub->{real}), 0, 16);
        ($open, $close) = ("#ifndef $guard\n#define $guard\n", "\n#endif");
    }
    $text =~ s/\n\z//;
    return $open . $text . $close . "\n#line $next \"$shown_c\"";
}

# --deps FILE: the files the translation read, as a make rule for TARGET
# (paths escaped as g++ escapes them in its -MF files).
sub write_deps
{
    my ($file, $main) = @_;
    my @deps = map { my $p = $_; $p =~ s/([ #])/\\$1/g; $p =~ s/\$/\$\$/g; $p } ($main, @read);
    open my $out, '>', $file or die "cu2sim: cannot write $file: $!\n";
    print $out "translated: ", join(" \\\n ", @deps), "\n";
    close $out or die "cu2sim: cannot write $file: $!\n";
}

1;
