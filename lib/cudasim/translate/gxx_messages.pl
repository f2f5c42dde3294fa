#!/usr/bin/perl
# gxx_messages.pl: what make sim-run shows of g++'s messages on a translated
# program. A program's own errors are shown as g++ gives them; an error that
# arises inside the simulator's own headers (lib/cudasim: a template of
# kernel.h instantiated by the program, a declaration the program's call does
# not fit) becomes one line at the program's line that caused it, saying what
# g++ said, so that no raw compiler error of the simulator's headers, with its
# instantiation chain and its lists of candidates, reaches the user:
#
#   prog.cu:12: error: the CUDA simulator cannot build this: static assertion
#       failed: wrong number of kernel arguments (at lib/cudasim/exec/kernel.h:211)
#
# The notes that point into the simulator's headers (candidates, "declared
# here") are left out, and so are its warnings; of the errors one cause gives
# (a template's follow-on errors), the first. Messages give no column (the
# translation adds text to some lines, the kernel's registration after its
# `{`), as nvcc's give none. The full messages stay in the log, which the last
# line names when anything was left out.
#
#   perl gxx_messages.pl SIM_DIR LOG < /dev/null   (prints to standard error)
use strict;
use warnings;
use Cwd qw(realpath);

my ($sim, $log) = @ARGV;
die "usage: gxx_messages.pl SIM_DIR LOG\n" unless defined $log;
$sim = realpath($sim) // $sim;
open my $in, '<', $log or exit 0;
my @lines = <$in>;
close $in;

# Whether a file of a message is one of the simulator's own.
my %own;
sub in_sim
{
    my ($file) = @_;
    return $own{$file} //= do {
        my $r = realpath($file) // $file;
        index($r, "$sim/") == 0 ? 1 : 0;
    };
}

# Where g++ says a message is: "FILE: In function 'f':" and the like.
my $scopes = join '|', 'instantiation of', 'substitution of', 'function', 'member function',
                       'static member function', 'constructor', 'lambda function';
my $scope_re = qr/^(.+?): (?:In (?:$scopes)|At global scope)/;
# A message: "FILE:LINE[:COL]: KIND: TEXT".
my $msg_re = qr/^(.+?):(\d+)(?::\d+)?: (error|warning|note|fatal error): (.*)$/;
my ($left_out, @out, @context, $last_where, %said) = (0);
my $group_skip = 0; # the current error or warning is left out (its notes and excerpts go too)
my $skip = 0;       # the lines of a left-out message (its excerpt)
for my $line (@lines) {
    chomp(my $l = $line);
    if ($l =~ $msg_re) {
        my ($file, $num, $kind, $text) = ($1, $2, $3, $4);
        $line = "$file:$num: $kind: $text\n";
        if ($kind eq 'note') {
            $skip = $group_skip || in_sim($file) || grep { $_->[2] } @context;
            $left_out++ if $skip;
            push @out, map { $_->[3] } @context unless $skip;
            @context = ();
            push @out, $line unless $skip;
            next;
        }
        my @ctx = @context;
        @context = ();
        # Where the program caused it: the message's place, or the last place of
        # its context outside the simulator (required from here, included from).
        my $sim_here = in_sim($file) || grep { $_->[2] } @ctx;
        if (!$sim_here) {
            # (g++ says some twice: once is enough)
            $group_skip = $skip = $said{$line}++ ? 1 : 0;
            push @out, map { $_->[3] } @ctx unless $skip;
            push @out, $line unless $skip;
            next;
        }
        $group_skip = $skip = 1;
        $left_out++;
        next if $kind eq 'warning';
        my ($at) = grep { defined $_->[0] && !in_sim($_->[0]) } reverse @ctx;
        my $where = $at ? "$at->[0]:$at->[1]" : !in_sim($file) ? "$file:$num" : @ctx ? undef : $last_where;
        # (a follow-on error of the same cause: said already)
        next if defined $where && $said{$where}++;
        $last_where = $where;
        my $sim_at = in_sim($file) ? "$file:$num" : (map { "$_->[0]:$_->[1]" }
                                                    grep { defined $_->[0] && in_sim($_->[0]) } @ctx)[0];
        $sim_at =~ s{^.*?(lib/cudasim/)}{$1} if defined $sim_at;
        push @out, ($where // 'g++') . ": $kind: the CUDA simulator cannot build this: $text"
                   . (defined $sim_at ? " (at $sim_at)" : '') . "\n";
        next;
    }
    # Context: where a message comes from.
    if ($l =~ /^(?:In file included from|\s+from) (.+?):(\d+)[:,]$/) {
        push @context, [$1, $2, in_sim($1), $line];
        next;
    }
    if ($l =~ /^(?:In file included from|\s+from) <command-line>[:,]$/) {
        push @context, [undef, undef, 0, $line];
        next;
    }
    if ($l =~ /^(.+?):(\d+)(?::\d+)?:\s+required (?:from|by)\b/) {
        push @context, [$1, $2, in_sim($1), $line];
        next;
    }
    if ($l =~ $scope_re) {
        push @context, [undef, undef, in_sim($1), $line];
        next;
    }
    next if $skip;
    push @out, $line;
}
push @out, map { $_->[3] } @context; # (context of nothing: as it came)
print STDERR @out;
print STDERR "make sim-run: of g++'s messages, those about the CUDA simulator's own headers are "
           . "summed up above; all of them are in $log\n" if $left_out;
