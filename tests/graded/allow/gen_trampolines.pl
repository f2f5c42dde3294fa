#!/usr/bin/perl
# gen_trampolines.pl: what a runner needs to grade a shared object (tests/graded/runner/student.h).
#
#   gen_trampolines.pl --allow DIR --c "01 02" --cu "02" > trampolines.c
#       a trampoline for each exercise of those lessons (the C file's, and the CUDA
#       file's of the lessons after --cu), the slots they jump through, and the table
#       student.c fills from the shared object
#   gen_trampolines.pl --allow DIR --withheld NN [--objects "a.o b.o"] [--c ... --cu ...]
#       > withheld.c
#       stubs for what lesson NN's runner leaves out: the names of NN.txt's `withhold`
#       lines and the functions the objects of its `withhold-files` define (given as
#       --objects), but the exercises the runner has trampolines for (--c, --cu, as
#       below); each stub fails the case that calls it
#   gen_trampolines.pl --allow DIR --withheld-list NN > weaken.txt
#       the names of NN.txt's `withhold` lines, one a line (for objcopy --weaken-symbols)
#   gen_trampolines.pl --allow DIR --exports --archives "lib.a ..." > runner.keep
#       with --archives: the linker options that pull in from those archives every name
#       of the list they define (--undefined=NAME), since nothing in the runner calls them
#   gen_trampolines.pl --allow DIR --exports > runner.exports
#       the runner's dynamic list: the names a student's object may call (every
#       lesson's `calls` and `cu-calls`, tests/graded/allow/) are exported to it (and
#       kept, though nothing in the runner calls them); the exercises and everything
#       else are not
use strict;
use warnings;
use Getopt::Long;

my ($allow, $c, $cu, $exports, $withheld, $withheld_list, $objects, $archives) =
    ('', '', '', 0, '', '', '', '');
GetOptions('allow=s' => \$allow, 'c=s' => \$c, 'cu=s' => \$cu, 'exports' => \$exports,
           'withheld=s' => \$withheld, 'withheld-list=s' => \$withheld_list,
           'objects=s' => \$objects, 'archives=s' => \$archives)
    or die "usage: see the top of $0\n";
die "gen_trampolines: --allow DIR is needed\n" unless $allow;

sub list {
    my ($file, $key) = @_;
    open my $fh, '<', $file or die "gen_trampolines: cannot read $file: $!\n";
    my @names;
    while (my $line = <$fh>) {
        $line =~ s/#.*//;
        push @names, split ' ', $1 if $line =~ /^\s*\Q$key\E:\s*(.*?)\s*$/;
    }
    return @names;
}

sub withheld_names { return list("$allow/$_[0].txt", 'withhold') }

if ($withheld_list) {
    my %seen;
    print "$_\n" for grep { !$seen{$_}++ } withheld_names($withheld_list);
    exit 0;
}

if ($withheld) {
    my %why;
    $why{$_} = "it would do an exercise of Lesson $withheld" for withheld_names($withheld);
    for my $o (split ' ', $objects) {
        for (`nm -g --defined-only "$o"`) {
            $why{$2} //= "it would do an exercise of Lesson $withheld" if /^\S+\s+([TW])\s+(\S+)$/;
        }
    }
    # what the runner takes from the student's shared object is the student's own (in
    # the grader package, which has no answers, another lesson's exercise may be)
    delete $why{$_} for (map { list("$allow/$_.txt", 'exercises') } split ' ', $c),
                        (map { list("$allow/$_.txt", 'cu-exercises') } split ' ', $cu);
    print "/* What lesson ${withheld}'s runner leaves out (gen_trampolines.pl): each name fails\n"
        . " * the case that calls it. */\n";
    print "void graded_withheld(const char *name, const char *why) __attribute__((noreturn));\n";
    for my $n (sort keys %why) {
        print "int $n(void);\nint $n(void) { graded_withheld(\"$n\", \"$why{$n}\"); }\n";
    }
    exit 0;
}

if ($exports) {
    my (%global, %exercise);
    for my $f ("$allow/common.txt", glob "$allow/[0-9][0-9].txt") {
        $global{$_} = 1 for list($f, 'calls'), list($f, 'cu-calls');
        $exercise{$_} = 1 for list($f, 'exercises'), list($f, 'cu-exercises');
    }
    # the stubs check_student.pl puts in place of refused exercises call these two
    $global{$_} = 1 for qw(graded_refused graded_refused_call);
    delete $global{$_} for keys %exercise;
    if ($archives) {
        my %defined;
        for my $a (split ' ', $archives) {
            for (`nm -g --defined-only "$a" 2>/dev/null`) { $defined{$1} = 1 if /\s[TDBRW]\s+(\S+)$/ }
        }
        print "--undefined=$_\n" for grep { $defined{$_} } sort keys %global;
        exit 0;
    }
    print "/* What the runner exports to the student's shared object, and keeps when the\n"
        . " * linker drops what nothing calls (gen_trampolines.pl; ld's dynamic list). */\n{\n";
    print "  $_;\n" for sort keys %global;
    print "};\n";
    exit 0;
}

my @names;
for my $l (split ' ', $c) { push @names, list("$allow/$l.txt", 'exercises') }
for my $l (split ' ', $cu) { push @names, list("$allow/$l.txt", 'cu-exercises') }
my %seen;
@names = grep { !$seen{$_}++ } @names;
die "gen_trampolines: no exercises for lessons '$c' / '$cu'\n" unless @names;

print <<'HEAD';
/* The exercises' trampolines of one runner (tests/graded/allow/gen_trampolines.pl, student.h). */
#include "tests/graded/runner/student.h"

HEAD
for my $n (@names) {
    print "static void missing_$n(void) { student_missing(\"$n\"); }\n";
    print "__attribute__((visibility(\"hidden\"))) StudentFn wb_slot_$n = missing_$n;\n";
}
print "\n#if defined(__x86_64__)\n";
for my $n (@names) {
    print "__asm__(\".text\\n.globl $n\\n.type $n,\@function\\n$n:\\n"
        . "\\tjmp *wb_slot_$n(%rip)\\n.size $n, .-$n\\n\");\n";
}
print "#elif defined(__aarch64__)\n";
for my $n (@names) {
    print "__asm__(\".text\\n.globl $n\\n.type $n,%function\\n$n:\\n"
        . "\\tadrp x16, wb_slot_$n\\n\\tldr x16, [x16, :lo12:wb_slot_$n]\\n\\tbr x16\\n"
        . ".size $n, .-$n\\n\");\n";
}
print "#else\n#error \"no trampolines for this architecture (tests/graded/allow/gen_trampolines.pl)\"\n#endif\n\n";
print "const StudentSymbol student_symbols[] = {\n";
print "    {\"$_\", &wb_slot_$_},\n" for @names;
print "};\nconst int n_student_symbols = " . scalar(@names) . ";\n";
