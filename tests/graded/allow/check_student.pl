#!/usr/bin/perl
# check_student.pl: what a student object may contain, checked before it is linked.
# (One script, read top to bottom: the steps below, in their order, on one student
# object; the later ones share what is read of it once, its sections, symbols,
# relocations and disassembly.)
#
#   check_student.pl --lesson 01 --kind c|cu --object OBJ --deps DEPFILE --root DIR
#                    --out OUT.o --cc CC [--asm OBJ.s] [--lib ARCHIVE ...]
#
# 1. Includes: every file its compilation read (DEPFILE, from -MD) is the student's
#    source, a header under lib/ or kernels/, or a system header. Anything else (an
#    answer under solutions/, a test under tests/, a .c or .cu of lib) refuses the
#    whole file.
# 1a. Names written verbatim into the assembly (check_source.pl): in the preprocessed
#    source beside ASM (.i or .ii, from -save-temps), the student's lines have no asm
#    label, no section, constructor, destructor, alias, weakref, ifunc or symver
#    attribute, and the student's file no line directive that would pass its lines off
#    as a header's.
# 1b. No assembly: the compiler's assembly output (ASM, from -save-temps) has no
#    inline or top-level asm. What the check below reads is the disassembly, and
#    assembly can hide what it does from it (a system call in the bytes of another
#    instruction, a jump through `ret`), so a file with any is refused whole, but for
#    the block in which nvcc's host code carries the device code (.nv_fatbin data).
# 1c. Names and constructors, read from the ELF file itself: every section and symbol
#    name is a plain identifier (with the compiler's suffixes), or the file is refused
#    whole (a name with a newline or a space was assembler source). A C file has no
#    constructor or destructor (no slot in .init_array, .fini_array, .preinit_array,
#    .ctors, .dtors) but a sanitizer's; a CUDA file only its build's registration code,
#    told by its name and by everything its code refers to (see below).
# 2. Calls: the object is compiled with -ffunction-sections, so its relocations give
#    a call graph. For each exercise function, everything reachable from it (static
#    helpers, tables of pointers) may call only what tests/graded/allow/ lists for
#    the lesson; a system call instruction (inline assembly) counts as a call to
#    "a system call". An exercise that reaches anything else is refused: it is
#    replaced by a stub that fails its cases with the reason. What a constructor
#    reaches must be allowed too, or the whole file is refused. So is a file with code
#    or data that the linker or the loader would act on without a call: a section a
#    compiler does not make (.init and .fini run before and after main; an allocated
#    .rela.* section becomes relocations the loader applies), an IFUNC (its resolver
#    runs while the program loads) or a common symbol (objcopy cannot make it local).
#    In a C file, what an exercise reaches must also name functions only to call
#    them: a function's address (its own or lib's, in code or stored in data) is
#    refused, since an address plus a constant reaches any function of the
#    program, listed or not. And it may not call through a pointer (call *, jmp *;
#    student code is compiled with -fno-jump-tables, so the compiler makes none of
#    its own), except in the exercises a lesson's list names with indirect-calls:
#    there only in the exercise's own code (a pointer the caller hands in). In a
#    CUDA file, whose kernels, registration code and launches take addresses of its
#    own functions and call through pointers, only the addresses of functions it
#    does not define (lib's, the C library's) are refused.
# 3. Exports: OUT.o is the object with every global symbol but the lesson's
#    exercise functions made local, so a student file cannot replace a function
#    of lib, the C library or the grader, plus the stubs of refused exercises.
#
# Messages start with "refused:" and name the file, the function or the line (where the
# source or the assembly's .loc gives one), the call and why.
# Exit status 1 when the whole file is refused, 0 otherwise (refused exercises
# included).
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname basename);
use File::Temp qw(tempdir);
use Getopt::Long;
require(dirname(abs_path($0)) . '/check_source.pl');

my ($lesson, $kind, $object, $deps, $root, $out, $cc, $source, $asm) = ('', 'c');
my @libs;
GetOptions('lesson=s' => \$lesson, 'kind=s' => \$kind, 'object=s' => \$object,
           'deps=s' => \$deps, 'root=s' => \$root, 'out=s' => \$out, 'cc=s' => \$cc,
           'source=s' => \$source, 'asm=s' => \$asm, 'lib=s' => \@libs)
    or die "usage: see the top of $0\n";
die "check_student: --lesson, --object, --root, --out and --cc are needed\n"
    unless $lesson && $object && $root && $out && $cc;
$root = abs_path($root);
$source //= $object;
my $allow_dir = "$root/tests/graded/allow";

# ---- the lists ------------------------------------------------------------------------

sub read_list {
    my ($file, $lists) = @_;
    open my $fh, '<', $file or die "check_student: cannot read $file: $!\n";
    while (my $line = <$fh>) {
        $line =~ s/#.*//;
        next unless $line =~ /^\s*([a-z-]+):\s*(.*?)\s*$/;
        my ($key, $rest) = ($1, $2);
        if ($key eq 'refuse') {
            my ($names, $why) = split /\s+--\s+/, $rest, 2;
            push @{$lists->{refuse}}, [$_, $why] for split ' ', $names;
        } else {
            push @{$lists->{$key}}, split ' ', $rest;
        }
    }
    close $fh;
}

my %mine;
read_list("$allow_dir/common.txt", \%mine);
read_list("$allow_dir/$lesson.txt", \%mine);
my $ex_key = $kind eq 'cu' ? 'cu-exercises' : 'exercises';
my %exercise = map { $_ => 1 } @{$mine{$ex_key} || []};
die "check_student: no $ex_key for lesson $lesson in $allow_dir/$lesson.txt\n" unless %exercise;
my @calls = (@{$mine{calls} || []}, $kind eq 'cu' ? @{$mine{'cu-calls'} || []} : ());
my %indirect_ok = map { $_ => 1 } @{$mine{'indirect-calls'} || []};

# The other lessons' exercises, to say so when one is called.
my %others;
for my $f (glob "$allow_dir/[0-9][0-9].txt") {
    my $id = basename($f, '.txt');
    next if $id eq $lesson;
    my %l;
    read_list($f, \%l);
    $others{$_} = $id for @{$l{exercises} || []}, @{$l{'cu-exercises'} || []};
}

sub glob_re { my $g = quotemeta shift; $g =~ s/\\\*/.*/g; qr/^$g$/ }
my @allowed = map { glob_re($_) } @calls;
my @refused = map { [glob_re($_->[0]), $_->[1]] } @{$mine{refuse} || []};
my @data_names = map { glob_re($_) } @{$mine{data} || []};

# lib's and the kernels' functions, to name them as such.
my %libsym;
for my $a (@libs) {
    next unless -e $a;
    for (`nm -g --defined-only "$a" 2>/dev/null`) {
        $libsym{$2} = $1 if /^\S+\s+([TDBRWVGSi])\s+(\S+)$/;
    }
}

# Why an exercise may not call sym (undef: it may).
sub why_refused {
    my ($sym) = @_;
    return "a system call with inline assembly: exercises may not reach the operating "
         . "system" if $sym eq '(a system call)';
    return undef if grep { $sym =~ $_ } @allowed;
    for my $r (@refused) { return $r->[1] if $sym =~ $r->[0] }
    return "an exercise of Lesson $others{$sym}: write this one without it"
        if $others{$sym};
    return "a function of lib/ or kernels/ that this exercise may not call: it may do the "
         . "exercise's work for you (tests/graded/allow/$lesson.txt lists what it may call)"
        if $libsym{$sym};
    return "which is not on Lesson ${lesson}'s list of what an exercise may call "
         . "(tests/graded/allow/$lesson.txt)";
}

# How a refusal reads: "it calls exit (ends the process: ...)".
sub calls_text {
    my ($sym, $why) = @_;
    return "it makes $why" if $sym eq '(a system call)';
    return "it calls $sym, $why";
}

my $file = $source;
$file =~ s{^\Q$root\E/}{};
my @whole;   # reasons to refuse the whole file

# ---- 1. includes ------------------------------------------------------------------------

if ($deps && -e $deps) {
    open my $fh, '<', $deps or die "check_student: cannot read $deps: $!\n";
    local $/;
    my $text = <$fh>;
    close $fh;
    $text =~ s/\\\n/ /g;
    my %seen;
    for my $line (split /\n/, $text) {
        next unless $line =~ /^[^:]+:(?!\S)\s*(.*)$/;
        for my $dep (split ' ', $1) {
            next if $seen{$dep}++;
            my $path = abs_path($dep) // $dep;
            next if $path eq (abs_path($source) // '');
            next if $path =~ m{^/usr/(include|lib|local/cuda[^/]*)/};
            next if $path =~ m{^/usr/local/cuda[^/]*/};
            if ($path =~ m{^\Q$root\E/(lib|kernels)/.*\.(h|cuh)$}) { next }
            # the simulator's translation of the student's .cu is read too
            next if $kind eq 'cu' && $path =~ m{^\Q$root\E/.*/sim/student/.*\.cpp$};
            next if $kind eq 'cu' && $path =~ m{/sim/student/.*\.cpp$};
            my $shown = $path;
            $shown =~ s{^\Q$root\E/}{};
            my $what = $shown =~ m{^solutions/} ? 'the answers'
                     : $shown =~ m{^tests/}     ? "the grader's tests"
                     : $shown =~ m{^(lib|kernels)/} ? 'a source file of lib (only its headers are for you)'
                     : 'a file outside lib/ and kernels/';
            push @whole, "$file includes $shown, $what: a student file may include only "
                       . "the headers of lib/ and kernels/ and system headers";
        }
    }
}

# ---- 1a. the preprocessed source ---------------------------------------------------------

# Asm labels, section, constructor and like attributes, line directives (check_source.pl).
my $asm_statement_found = 0;
if (defined $asm) {
    (my $ii = $asm) =~ s/\.s\z//;
    ($ii) = grep { -e } "$ii.i", "$ii.ii";
    die "check_student: no preprocessed source (.i or .ii) beside $asm\n"
        unless defined $ii || $kind ne 'c';
    my $src_abs = abs_path($source) // $source;
    my $trusted = sub {
        my ($f) = @_;
        # <built-in>, <command-line>, the folder it was compiled in (with -g: "DIR//")
        return 1 if $f =~ /^<[^>]*>\z/ || $f =~ m{//\z};
        my $p = abs_path($f) // $f;
        return 0 if $p eq $src_abs;
        return 1 if $p =~ m{^/usr/(include|lib|lib64|local/cuda[^/]*)/};
        return 1 if $p =~ m{^\Q$root\E/(lib|kernels)/.*\.(h|cuh)\z};
        # nvcc's own files: the host code it makes of the .cu, its stubs and device code
        return 1 if $kind eq 'cu'
            && $f =~ m{(^|/)tmpxft_[0-9a-f]+_[0-9a-f]+-\d+_[^/]*\.
                       (cudafe1\.(cpp|stub\.c)|fatbin\.c)\z}x;
        # the simulator's translation of the .cu (cu2sim.pl), whose lines name the .cu
        return 1 if $kind eq 'cu' && $p =~ m{/sim/student/.*\.cpp\z};
        return 0;
    };
    if (defined $ii) {
        my ($why, $stmt) = CheckSource::refusals($ii, $source, $file, $ii =~ /\.ii\z/ ? 1 : 0,
                                                 $trusted);
        push @whole, @$why;
        $asm_statement_found = $stmt;
    }
}

# ---- 1b. assembly ------------------------------------------------------------------------

if (defined $asm) {
    if (open my $fh, '<', $asm) {
        my (%file_no, $line, @block);
        my $in_block = 0;
        while (my $l = <$fh>) {
            $file_no{$1} = $2 if $l =~ /^\s*\.file\s+(\d+)\s+"([^"]*)"/;
            $line = "line $2" . ($file_no{$1} && basename($file_no{$1}) ne basename($source)
                                 ? " of $file_no{$1}" : '')
                if $l =~ /^\s*\.loc\s+(\d+)\s+(\d+)/;
            if ($l =~ /^#APP\b/) { ($in_block, @block) = (1); next }
            next unless $in_block;
            if ($l !~ /^#NO_APP\b/) { push @block, $l; next unless eof $fh }
            $in_block = 0;
            # nvcc's own: the device code, as data of .nv_fatbin, and back to .text
            my $text = join '', grep { /\S/ } @block;
            next if $kind eq 'cu' && $text =~ /\A\s*\.section\s+\.nv_fatbin,\s*"a"\s*\n
                (\.align\s+\d+\s*\n)?fatbinData:\s*\n(\.quad\s+0x[0-9a-f]+(,\s*0x[0-9a-f]+)*\s*\n)+
                \.text\s*\n?\z/x;
            last if $asm_statement_found;    # said with its line above
            push @whole, "$file has assembly (asm" . ($line ? ", near $line" : '') . "): "
                . "the grader checks the compiled code, and assembly can hide from it a "
                . "system call or a jump that no call shows, so an exercise is written in C "
                . "(or CUDA) alone";
            last;
        }
        close $fh;
    } elsif ($kind eq 'c') {
        die "check_student: cannot read $asm, the assembly of $source: $!\n";
    }
}

# ---- 2. the call graph --------------------------------------------------------------------

# What a compiler puts in an object, by name and type. The linker places input sections
# by name, so a section named otherwise can do what no call shows: code in .init or .fini
# runs before main or after it, and an allocated section named .rela.* becomes
# relocations that the loader applies (an IRELATIVE one calls any address) - none of it
# reached from an exercise. Relocation sections are the object's own (not allocated,
# applying to a section of it); the constructor sections are checked below.
sub section_ok {
    my ($name, $type, $flags, $info) = @_;
    return 1 if $type eq 'NULL';
    # Code is where the disassembly below looks: the .text sections, and only there
    # (bytes put in a .text section as data would run unread; code in a data section
    # could be written to first).
    my $code_name = $name =~ /^\.text(\..+)?$/;
    return 0 if ($flags =~ /X/) != $code_name;
    if ($type =~ /^RELA?$/ || $name =~ /^\.rela?\./) {
        return $type eq 'RELA' && $flags !~ /A/ && ($info // 0) =~ /^[1-9]\d*$/;
    }
    return 1 if $name =~ /^\.(symtab|strtab|shstrtab|symtab_shndx|comment|group|llvm_addrsig)$/
        && $type =~ /^(SYMTAB|STRTAB|SYMTAB SECTION INDICES|SYMTAB_SHNDX|PROGBITS|GROUP|LLVM_ADDRSIG|LOOS\+\w+)$/;
    return 1 if $name =~ /^\.note\.(GNU-stack|gnu\.property)$/ && $flags !~ /[XA]/
        || $name eq '.note.gnu.property';
    return 1 if $name =~ /^\.debug_\w+$/ && $flags !~ /A/;
    return 1 if $name =~ /^\.(init_array|fini_array|preinit_array|ctors|dtors)(\..+)?$/
        && $type =~ /^(INIT_ARRAY|FINI_ARRAY|PREINIT_ARRAY|PROGBITS)$/;
    return 0 if $type =~ /^(INIT_ARRAY|FINI_ARRAY|PREINIT_ARRAY)$/;
    return 1 if $name =~ /^\.(text|rodata|data|bss|tdata|tbss|gcc_except_table|eh_frame)(\..+)?$/;
    # nvcc's host object: the device code and its registration
    return 1 if $name =~ /^(\.nv_fatbin|\.nvFatBinSegment|__nv_module_id)$/ && $flags !~ /X/;
    return 0;
}

# The object as the linker reads it: its sections, symbols and relocations, from the ELF
# file itself (readelf's listing, read below, shows a name with a space as two fields).
# undef: not a 64-bit little-endian ELF object whose tables lie inside the file.
sub read_elf {
    my ($path) = @_;
    open my $fh, '<:raw', $path or die "check_student: cannot read $path: $!\n";
    local $/;
    my $d = <$fh> // '';
    close $fh;
    return undef unless length $d >= 64 && substr($d, 0, 6) eq "\x7fELF\x02\x01"
        && unpack('v', substr($d, 0x10, 2)) == 1;    # ET_REL: an object file
    my $shoff = unpack 'Q<', substr($d, 0x28, 8);
    my ($entsize, $shnum, $shstrndx) = unpack 'v3', substr($d, 0x3a, 6);
    return undef if $entsize != 64 || $shnum == 0 || $shstrndx >= $shnum
        || $shoff + $shnum * 64 > length $d;
    my @sh;
    for my $i (0 .. $shnum - 1) {
        my @f = unpack 'V V Q< Q< Q< Q< V V Q< Q<', substr($d, $shoff + 64 * $i, 64);
        push @sh, { name => $f[0], type => $f[1], flags => $f[2], offset => $f[4],
                    size => $f[5], link => $f[6], info => $f[7], entsize => $f[9] };
        return undef if $f[1] != 8 && $f[4] + $f[5] > length $d;    # 8: NOBITS
    }
    my $str = sub {
        my ($sec, $off) = @_;
        my $s = $sh[$sec];
        return undef if !$s || $off >= $s->{size};
        my $t = substr($d, $s->{offset} + $off, $s->{size} - $off);
        return $t =~ /\A([^\0]*)\0/ ? $1 : undef;
    };
    $_->{name} = $str->($shstrndx, $_->{name}) // return undef for @sh;
    my (@syms, @relocs);
    for my $i (grep { $sh[$_]{type} == 2 } 0 .. $#sh) {    # SYMTAB
        my $s = $sh[$i];
        for (my $o = 0; $o + 24 <= $s->{size}; $o += 24) {
            my ($name, $info, $other, $shndx, $value, $size)
                = unpack 'V C C v Q< Q<', substr($d, $s->{offset} + $o, 24);
            my $n = $str->($s->{link}, $name) // return undef;
            push @syms, { name => $n, type => $info & 15, bind => $info >> 4, shndx => $shndx,
                          value => $value, size => $size };
        }
    }
    for my $i (grep { $sh[$_]{type} == 4 } 0 .. $#sh) {    # RELA
        my $s = $sh[$i];
        for (my $o = 0; $o + 24 <= $s->{size}; $o += 24) {
            my ($offset, $info, $addend) = unpack 'Q< Q< q<', substr($d, $s->{offset} + $o, 24);
            push @relocs, { section => $s->{info}, offset => $offset, type => $info & 0xffffffff,
                            sym => $info >> 32, addend => $addend };
        }
    }
    return { sections => \@sh, symbols => \@syms, relocs => \@relocs, data => $d };
}

my $elf = read_elf($object);
unless ($elf) {
    print "refused: $file compiles to an object whose tables the grader cannot read (not a "
        . "64-bit ELF object as GCC makes them)\n";
    exit 1;
}
# Names: the assembler reads a section's or a symbol's name as GCC writes it, so a name
# that is not a plain identifier (with the compiler's own suffixes: .text.NAME,
# .rodata.str1.1, .part.N, .cold, C++ mangled names) was assembler source in disguise.
# A file symbol names a source file (nvcc's has a dash in it).
{
    my %said;
    my @odd;
    for my $s (@{$elf->{sections}}[1 .. $#{$elf->{sections}}]) {
        next if $s->{name} eq '.note.GNU-stack';
        my $why = CheckSource::not_plain($s->{name}) // next;
        push @odd, "a section named " . CheckSource::shown($s->{name}) . " ($why in it)";
    }
    for my $y (@{$elf->{symbols}}) {
        next if $y->{name} eq '' || $y->{type} == 4 && $y->{name} =~ /^[\w.+-]+\z/;    # 4: FILE
        my $why = CheckSource::not_plain($y->{name}) // next;
        push @odd, "a symbol named " . CheckSource::shown($y->{name}) . " ($why in it)";
    }
    for my $o (grep { !$said{$_}++ } @odd) {
        push @whole, "$file has $o: the names of an object are identifiers (and the "
            . "compiler's own suffixes), and GCC writes a section's or a symbol's name "
            . "verbatim into the assembly, so a name with a newline, space, quote, # or ; is "
            . "assembler source in disguise";
    }
    if (@odd) {
        # What follows reads readelf's listing, which such names garble.
        print "refused: $_\n" for @whole;
        print "refused: every exercise of $file scores 0 until this is changed\n";
        exit 1;
    }
}

my (@sections, %sym_section, %sym_bind, %sym_type, %sec_index_of_sym, @symtab);
my @sec_exec;    # by index: the section holds code
my @odd_sections;    # sections the linker or the loader would do something with
for (`readelf -SW "$object"`) {
    # [Nr] Name Type Address Off Size ES Flg Lk Inf Al (Flg may be empty)
    next unless /^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+(.*)$/;
    my ($n, $name, $type, $rest) = ($1, $2, $3, $4);
    $sections[$n] = $name;
    my @rest = split ' ', $rest;
    my $flags = @rest == 4 ? $rest[0] : '';
    $sec_exec[$n] = $flags =~ /X/ ? 1 : 0;
    push @odd_sections, [$name, $type, $flags] unless $n == 0 || section_ok($name, $type, $flags, $rest[-2]);
}
my %sec_index = map { defined $sections[$_] ? ($sections[$_] => $_) : () } 0 .. $#sections;
for (`readelf -sW "$object"`) {
    # Num: Value Size Type Bind Vis Ndx Name
    next unless /^\s*\d+:\s+\S+\s+\S+\s+(\S+)\s+(\S+)\s+\S+\s+(\S+)\s*(\S*)/;
    my ($type, $bind, $ndx, $name) = ($1, $2, $3, $4);
    push @symtab, [$name, $type, $bind, $ndx];
    next if $name eq '';
    $sym_section{$name} = $ndx;
    $sym_bind{$name} = $bind;
    $sym_type{$name} = $type;
}

for my $odd (@odd_sections) {
    my ($name, $type, $flags) = @$odd;
    push @whole, "$file has a section $name ($type" . ($flags ? ", flags $flags" : '')
        . "), which no compiler makes of C or CUDA code: the linker or the loader would "
        . "act on it without a call (code in .init runs before main, a .rela section "
        . "becomes relocations the loader applies), so a student file holds only code and "
        . "data in the compiler's own sections";
}
for my $s (@symtab) {
    my ($name, $type, $bind, $ndx) = @$s;
    push @whole, "$file puts the variable $name in a section of code ($sections[$ndx]): its "
               . "bytes would run as instructions that the grader does not read as code; "
               . "variables belong in data"
        if $type =~ /^(OBJECT|TLS|COMMON|NOTYPE)$/ && $name ne '' && $ndx =~ /^\d+$/
            && $sec_exec[$ndx];
    push @whole, "$file defines $name as an IFUNC, whose resolver the loader runs before "
               . "main, reached by no call: define functions as plain functions"
        if $type eq 'IFUNC';
    push @whole, "$file defines $name as a common symbol, which the grader cannot make "
               . "local: it would stand for lib's or the C library's variable of that name; "
               . "define it (static, or with an initializer) instead"
        if $ndx eq 'COM';
}

# Edges: section -> sections and undefined symbols its relocations name.
my (%edges, %undef_refs, @relocs);
my $current;
for (`readelf -rW "$object"`) {
    if (/^Relocation section '\.rela?([^']*)'/) {
        $current = $1;
        next;
    }
    next unless defined $current && /^([0-9a-f]+)\s+[0-9a-f]+\s+(\S+)\s+[0-9a-f]+\s+(\S+)/;
    my ($offset, $rtype, $name) = (hex $1, $2, $3);
    $name =~ s/@.*//;
    push @relocs, [$current, $offset, $rtype, $name];
    my $ndx = $sym_section{$name};
    if (defined $ndx && $ndx =~ /^\d+$/) {
        $edges{$current}{$sections[$ndx]} = 1;
    } elsif (defined $sections[0] && grep { $_ && $_ eq $name } @sections) {
        $edges{$current}{$name} = 1;    # a section symbol, printed by name
    } else {
        $undef_refs{$current}{$name} = 1;
    }
}
# System call instructions, by section.
{
    my $sec;
    for (`objdump -d --no-show-raw-insn "$object" 2>/dev/null`) {
        $sec = $1 if /^Disassembly of section (\S+):/;
        $undef_refs{$sec}{'(a system call)'} = 1
            if defined $sec && /\s(syscall|sysenter|int\s+\$0x80)\b/;
    }
}

# Addresses of functions and calls through pointers, by section. In the CUDA file
# only the addresses of functions it does not define: its registration code, its
# launches and the C++ runtime take addresses of its own functions (kernels, virtual
# methods) and call through pointers; but lib's or the C library's address plus a
# constant is any function of theirs (system() from printf's address), so those are
# refused there too, but for the C++ runtime's own (thread-local wrappers, type
# information, the personality routine).
my (%address_refs, %indirect_calls, %insn_at);
{
    (my $src_abs = abs_path($source) // $source) =~ s{^\Q$root\E/}{};
    # Where an instruction is: the function (its label) and the line of the source.
    my ($sec, $label, $where);
    for (`objdump -drlw "$object" 2>/dev/null`) {
        chomp;
        if (/^Disassembly of section (\S+):/) { ($sec, $label, $where) = ($1, undef, undef); next }
        next unless defined $sec;
        if (/^[0-9a-f]+ <(.+)>:$/) { $label = $1; next }
        if (m{^(/?\S+?):(\d+)(?: \(discriminator \d+\))?$}) {
            my ($path, $line) = ($1, $2);
            my $abs = abs_path($path) // $path;
            $abs =~ s{^\Q$root\E/}{};
            # (the simulator's translation of a .cu keeps its lines)
            $where = ($abs eq $src_abs || basename($path) eq basename($source)
                      || $kind eq 'cu' && $abs =~ m{/sim/student/.*\.cpp\z})
                   ? "line $line" : "$abs:$line";
            next;
        }
        next unless /^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t([^\t]*)(.*)$/;
        my ($at, $bytes, $text, $tail) = (hex $1, $2, $3, $4);
        my @w = split ' ', $text;
        shift @w while @w && $w[0] =~ /^(notrack|bnd|lock|rep\w*|data16|addr32|[c-gs]s|rex\S*)$/;
        my ($op, $arg) = ($w[0] // '', $w[1] // '');
        my @b = split ' ', $bytes;
        my $insn = { sec => $sec, at => $at, len => scalar @b, op => $op,
                     arg => $arg, func => $label // $sec, where => $where };
        $insn_at{$sec}{$at} = $insn;
        my $branch = $op =~ /^(call|jmp|j[a-z]{1,3}|lcall|ljmp)[lqw]?$/;
        if ($branch && $arg =~ /^\*/ && $tail !~ /R_X86_64_(REX_)?GOTPCRELX?\b/) {
            push @{$indirect_calls{$sec}}, $insn if $kind eq 'c';
        }
    }
    # Which instruction holds the byte at offset (for a relocation).
    my $insn_of = sub {
        my ($s, $off) = @_;
        for my $back (0 .. 15) {
            my $i = $insn_at{$s}{$off - $back};
            return $i if $i && $off < $i->{at} + $i->{len};
        }
        return undef;
    };
    my $is_code = sub {
        my ($name) = @_;
        my $ndx = $sym_section{$name};
        $ndx = $sec_index{$name} if !defined $ndx && defined $sec_index{$name};
        return $sec_exec[$ndx] if defined $ndx && $ndx =~ /^\d+$/;
        return 0 if grep { $name =~ $_ } @data_names;
        return 0 if $libsym{$name} && $libsym{$name} =~ /^[DBRVGS]$/;
        return 1;    # an undefined name: a function unless it is known to be data
    };
    my %object_in;   # data section -> the variable it holds
    for my $s (@symtab) {
        my ($name, $type, $bind, $ndx) = @$s;
        $object_in{$sections[$ndx]} //= $name if $type eq 'OBJECT' && $ndx =~ /^\d+$/;
    }
    for my $r (@relocs) {
        my ($rsec, $off, $rtype, $name) = @$r;
        next if $rsec =~ /^\.(debug|eh_frame|note|init_array|fini_array|preinit_array|ctors|dtors)/;
        next unless $is_code->($name);
        if ($kind eq 'cu') {
            my $ndx = $sym_section{$name} // $sec_index{$name};
            next if defined $ndx && $ndx =~ /^\d+$/;    # a function of the file itself
            next if $name =~ /^(_ZTH|_ZTV|_ZTI|_ZTS|__gxx_personality_v0$)/;
        }
        my $ndx = $sec_index{$rsec};
        (my $shown = $name) =~ s/^\.text(\.unlikely|\.hot|\.startup)?\.//;
        if (defined $ndx && $sec_exec[$ndx]) {
            my $i = $insn_of->($rsec, $off);
            next if $i && $rtype =~ /^R_X86_64_(PLT32|PC32)$/ && $i->{arg} !~ /^\*/
                && $i->{op} =~ /^(call|jmp|j[a-z]{1,3})[lqw]?$/ && $off + 4 == $i->{at} + $i->{len};
            next if $i && $rtype =~ /GOTPCREL/ && $i->{arg} =~ /^\*/
                && $i->{op} =~ /^(call|jmp)[lqw]?$/;    # a call through the GOT (-fno-plt)
            my $in = $i ? "in $i->{func}" . ($i->{where} ? ", $i->{where}" : '') : "in $rsec";
            push @{$address_refs{$rsec}}, "it takes the address of $shown ($in) instead of "
                . "calling it: a function's address plus a constant is any function of the "
                . "program, so an exercise may name a function only to call it";
        } else {
            (my $var = $object_in{$rsec} // $rsec) =~ s/^\.(data\.rel\.ro|data\.rel|data|rodata|bss)(\.local)?\.//;
            push @{$address_refs{$rsec}}, "it stores the address of $shown in data ($var): "
                . "a function's address plus a constant is any function of the program, so "
                . "an exercise may name a function only to call it";
        }
    }
}

# The first reason to refuse an exercise's code (or a constructor's, $ex undefined)
# for the addresses it takes or the calls it makes through pointers: sections reached.
sub pointer_problem {
    my ($ex, @secs) = @_;
    for my $s (@secs) { return $address_refs{$s}[0] if $address_refs{$s} }
    for my $s (@secs) {
        next unless $indirect_calls{$s};
        next if defined $ex && $indirect_ok{$ex}
            && $s =~ /^\.text(\.unlikely|\.hot)?\.\Q$ex\E(\.(part|cold|constprop|isra)\.\d+)*$/;
        my $i = $indirect_calls{$s}[0];
        my $in = "in $i->{func}" . ($i->{where} ? ", $i->{where}" : '');
        return "it calls through a pointer ($in): a computed target can be any function of "
             . "the program, so an exercise of Lesson $lesson calls by name what "
             . "tests/graded/allow/$lesson.txt lists"
             . (defined $ex && $indirect_ok{$ex}
                ? " (only $ex itself may call the pointer it is handed)" : '');
    }
    return undef;
}

# The sections reachable from the given ones (themselves included), in no order.
sub closure {
    my @todo = @_;
    my %seen;
    while (defined(my $s = shift @todo)) {
        next if $seen{$s}++;
        push @todo, keys %{$edges{$s} || {}};
    }
    return keys %seen;
}

# ... sorted, the first given section first.
sub reach_sections {
    my $first = $_[0];
    return sort { ($a eq $first ? 0 : 1) <=> ($b eq $first ? 0 : 1) || $a cmp $b } closure(@_);
}

# The undefined symbols those sections refer to.
sub reach {
    my %calls;
    for my $s (closure(@_)) { $calls{$_} = 1 for keys %{$undef_refs{$s} || {}} }
    return sort keys %calls;
}

sub first_problem {
    for my $sym (@_) {
        my $why = why_refused($sym);
        return ($sym, $why) if defined $why;
    }
    return;
}

# Constructors and destructors: each slot of an init or fini array (or of .ctors, .dtors)
# names a function that runs when the runner loads the file or ends, reached by no call.
# The only ones allowed are the compiler's, told by their names and by all that their
# code refers to: a sanitizer's (_sub_I_00099_N, _sub_D_00099_N in .init_array.00099,
# .fini_array.00099: AddressSanitizer's in a SAN=1 build, ThreadSanitizer's in the
# simulator's), which calls its runtime; and in a CUDA file its build's registration
# code: nvcc's __sti____cudaRegisterAll (in a file with nvcc's device code, .nv_fatbin),
# which registers that code, its kernels and device variables by name and hands atexit
# __cudaUnregisterBinaryUtil; or g++'s initializer of the simulator's translation
# (cu2sim.pl), _GLOBAL__sub_I_<file>, which registers the kernels by name
# (cudasim_register_kernel) into the translation's cudasim_kernel_N, and its variables
# (cudasim_register_variable, into cudasim_vreg_NAME, of cudasim_vbox_NAME). A student's
# constructor, or a C++ variable whose value is computed at start (g++ puts that code
# into _GLOBAL__sub_I_ too), is refused.
my $ctor_refused = 0;
{
    my ($S, $Y) = ($elf->{sections}, $elf->{symbols});
    my %rel_of;    # section index -> its relocations
    push @{$rel_of{$_->{section}}}, $_ for @{$elf->{relocs}};
    my ($file_sym) = map { $_->{name} } grep { $_->{type} == 4 } @$Y;
    my $nvcc = grep { $_->{name} eq '.nv_fatbin' } @$S;
    my $defined = sub { my ($y) = @_; $y->{shndx} > 0 && $y->{shndx} < 0xff00 };
    # What a relocation refers to: [section index, offset] or an undefined name. A
    # PC-relative one's addend counts from the end of its instruction (-4 from the
    # displacement, -8 when an immediate follows).
    my $target = sub {
        my ($r) = @_;
        my $y = $Y->[$r->{sym}] or return '(nothing)';
        return $y->{name} unless $defined->($y);
        my $off = $y->{value} + $r->{addend};
        if ($r->{type} =~ /^(2|4|9|41|42)\z/) {    # PC32, PLT32, GOTPCREL(X)
            my $end = $r->{offset} + 4;
            my $in = $insn_at{$S->[$r->{section}]{name}} || {};
            for my $back (0 .. 15) {
                my $i = $in->{$r->{offset} - $back} or next;
                $end = $i->{at} + $i->{len} if $r->{offset} < $i->{at} + $i->{len};
                last;
            }
            $off += $end - $r->{offset};
        }
        return [$y->{shndx}, $off];
    };
    my $func_at = sub {
        my ($sec, $off) = @_;
        my ($f) = grep { $_->{type} == 2 && $_->{shndx} == $sec && $_->{value} == $off } @$Y;
        return $f;
    };
    my $line_of = sub {    # the source line of the instruction at a section's offset
        my ($sec, $off) = @_;
        my $name = $S->[$sec]{name};
        for my $back (0 .. 15) {
            my $i = $insn_at{$name}{$off - $back} or next;
            return $i->{where} if $off < $i->{at} + $i->{len};
        }
        return undef;
    };
    my $strings = sub {    # the strings of a section of strings
        my ($sec) = @_;
        return split /\0/, substr($elf->{data}, $S->[$sec]{offset}, $S->[$sec]{size});
    };
    my $holds_only = sub {    # a data section's symbols all match re
        my ($sec, $re) = @_;
        my @in = grep { $_->{shndx} == $sec && $_->{type} != 3 } @$Y;
        return @in && !grep { $_->{name} !~ $re } @in;
    };
    my $string_sec = sub { $S->[$_[0]]{name} =~ /^\.rodata(\..*)?\.str1\.\d+\z/ };
    # (line, why) when f, in an init or fini array, is none of the compiler's own; () when
    # it is one.
    my ($registration, $unregister);
    $unregister = sub {
        my ($f) = @_;
        for my $r (@{$rel_of{$f->{shndx}} || []}) {
            my $t = $target->($r);
            next if !ref $t && $t eq '__cudaUnregisterFatBinary';
            next if ref $t && $holds_only->($t->[0], qr/^_ZL20__cudaFatCubinHandle\z/);
            return ($line_of->($f->{shndx}, $r->{offset}),
                    'refers to ' . (ref $t ? $S->[$t->[0]]{name} : $t));
        }
        return;
    };
    my $not_ours = "is not its build's registration code";
    $registration = sub {
        my ($f, $array) = @_;
        my @rel = @{$rel_of{$f->{shndx}} || []};
        my ($calls, $data);    # what it may call; what else of the file it may refer to
        if ($f->{name} =~ /^_sub_([ID])_00099_\d+\z/
            && $array eq ($1 eq 'I' ? '.init_array.00099' : '.fini_array.00099')) {
            # a sanitizer's (a SAN=1 build, the simulator's ThreadSanitizer): its runtime,
            # and AddressSanitizer's table of the file's variables
            $calls = qr/^__(asan|tsan|ubsan)_\w+\z/;
            $data = sub { $S->[$_[0]]{name} =~ /^\.data\.rel\.local\.\.LASAN\d+\z/ };
        } elsif ($kind ne 'cu') {
            return (undef, $not_ours);
        } elsif ($nvcc && $f->{name} eq '_ZL24__sti____cudaRegisterAllv'
                 && $array eq '.init_array') {
            $calls = qr/^(__cudaRegister(FatBinary|FatBinaryEnd|Function|Var|ManagedVar)|atexit)\z/;
            my %names = map { $_ => 1 }
                        map { ref $_ && $string_sec->($_->[0]) ? $strings->($_->[0]) : () }
                        map { $target->($_) } @rel;
            $data = sub {
                my ($sec, $off) = @_;
                return 1 if $S->[$sec]{name} eq '.nvFatBinSegment'
                    || $holds_only->($sec, qr/^_ZL20__cudaFatCubinHandle\z/);
                # a __device__ or __constant__ variable's host copy, registered by its name
                my @vars = grep { $_->{shndx} == $sec && $_->{type} == 1 } @$Y;
                return 1 if @vars && !grep { ($_->{name} =~ s/^_ZL\d+//r) !~ /^\w+\z/
                                             || !$names{$_->{name} =~ s/^_ZL\d+//r} } @vars;
                my $g = $func_at->($sec, $off) or return 0;
                # handed to atexit: it may only unregister
                return !$unregister->($g) if $g->{name} eq '_ZL26__cudaUnregisterBinaryUtilv';
                # a kernel, registered by the name nvcc gives its device code
                (my $device = $g->{name}) =~ s/^_ZL/_Z/;
                return $names{$device};
            };
        } elsif (!$nvcc && defined $file_sym && $f->{name} eq "_GLOBAL__sub_I_$file_sym"
                 && $array eq '.init_array') {
            # its kernels (cudasim_kernel_N) and its __device__, __constant__ and __managed__
            # variables (cu2sim_variables.pl: each in a box between red zones, its
            # registration's result kept in cudasim_vreg_NAME)
            $calls = qr/^cudasim_register_(kernel|variable)\z/;
            $data = sub {
                $holds_only->($_[0], qr/^(_ZL\d+)?(cudasim_kernel_\d+|cudasim_v(box|reg)_\w+)\z/)
            };
        } elsif ($f->{name} =~ /^_GLOBAL__sub_I_/ && @rel) {
            # nvcc makes no initializer of its own: this one is the student's, told by its call
            ($calls, $data) = (qr/(?!)/, sub { 0 });
        } else {
            return (undef, $not_ours);
        }
        return (undef, $not_ours) unless $f->{bind} == 0
            && !grep { $_->{type} == 2 && $_->{shndx} == $f->{shndx} && $_ != $f } @$Y;
        for my $r (@rel) {
            my $t = $target->($r);
            next if ref $t ? $string_sec->($t->[0]) || $data->(@$t) : $t =~ $calls;
            my $g = ref $t ? $func_at->(@$t) : undef;
            return ($line_of->($f->{shndx}, $r->{offset}),
                    !ref $t ? "calls $t" : 'refers to ' . ($g ? $g->{name} : $S->[$t->[0]]{name}));
        }
        return;
    };
    my $arrays = qr/^\.(init_array|fini_array|preinit_array|ctors|dtors)(\..*)?\z/;
    for my $a (grep { $S->[$_]{name} =~ $arrays || $S->[$_]{type} =~ /^1[456]\z/ } 1 .. $#$S) {
        my $array = $S->[$a]{name};
        my $what = $array =~ /fini|dtors/ ? 'a destructor' : 'a constructor';
        my $when = $array =~ /fini|dtors/ ? 'when the runner ends, after the exercises'
                 : 'when the runner loads the file, before any exercise is called';
        my %slot = map { $_->{offset} => $_ } @{$rel_of{$a} || []};
        for (my $o = 0; $o < $S->[$a]{size}; $o += 8) {
            my $r = $slot{$o};
            my $t = $r ? $target->($r) : undef;
            my $f = ref $t ? $func_at->(@$t) : undef;
            my $fname = $f ? $f->{name} : ref $t ? "$S->[$t->[0]]{name}+$t->[1]"
                      : $t // 'a fixed address';
            my ($where, $bad);
            if ($f) {
                ($where, $bad) = $registration->($f, $array);
                next unless defined $bad;
            }
            $where //= $f ? $line_of->($f->{shndx}, $f->{value}) : undef;
            my $shown = $fname;
            if ($fname =~ /^_Z/ && open my $dm, '-|', 'c++filt', $fname) {
                chomp($shown = <$dm> // $fname);
                close $dm;
            }
            $ctor_refused = 1;
            if ($kind eq 'cu' && $f && $f->{name} =~ /^_GLOBAL__sub_I_/ && $bad ne $not_ours) {
                push @whole, "$file has a variable whose value is computed when the program "
                    . "starts"
                    . ($where ? " ($where)" : '') . ": g++ puts that code in the file's "
                    . "initializer, which runs $when, reached by no call, and it $bad; give "
                    . "variables constant values, and compute in the exercise";
                next;
            }
            push @whole, "$file has $what, $shown" . ($where ? " ($where)" : '') . " in $array"
                . (defined $bad && ($kind eq 'cu' || $bad ne $not_ours) ? ", which $bad" : '')
                . ": it runs $when, reached by no "
                . "call, so a student file has none (no constructor or destructor attribute, no "
                . "pointer put in an init or fini array)"
                . ($kind eq 'cu' ? "; the CUDA file's own registration code stays allowed" : '');
        }
    }
}

# What the constructors left (registration, sanitizers) reach must be allowed.
my @ctor = grep { defined && /^\.(init_array|fini_array|preinit_array|ctors|dtors)/ } @sections;
if (@ctor && !$ctor_refused) {
    my ($sym, $why) = first_problem(reach(@ctor));
    push @whole, "$file has code that runs when the program starts or ends, and "
               . calls_text($sym, $why) if defined $sym;
    my $ptr = defined $sym ? undef : pointer_problem(undef, reach_sections(@ctor));
    push @whole, "$file has code that runs when the program starts or ends, and $ptr"
        if defined $ptr;
}

if (@whole) {
    print "refused: $_\n" for @whole;
    print "refused: every exercise of $file scores 0 until this is changed\n";
    exit 1;
}

my %refused_ex;
for my $ex (sort keys %exercise) {
    my $ndx = $sym_section{$ex};
    next unless defined $ndx && $ndx =~ /^\d+$/;    # not defined here: lib's stub message
    my ($sym, $why) = first_problem(reach($sections[$ndx]));
    my $text = defined $sym ? calls_text($sym, $why)
             : pointer_problem($ex, reach_sections($sections[$ndx]));
    next unless defined $text;
    $refused_ex{$ex} = "$ex (in $file) was refused by the grader: $text";
    print "refused: $refused_ex{$ex}\n";
}

# ---- 3. the object the runner links -------------------------------------------------------

my $tmp = tempdir(CLEANUP => 1);
my @localize;
for my $s (@symtab) {
    my ($name, $type, $bind, $ndx) = @$s;
    next if $name eq '' || $ndx eq 'UND' || $bind eq 'LOCAL';
    next if $exercise{$name} && !$refused_ex{$name};
    # The C++ runtime's pointer to its personality routine, which every object with
    # exception tables shares (one definition in a COMDAT group): not the student's.
    next if $name =~ /^DW\.ref\.__gxx_personality_v0$/;
    push @localize, $name;
}
my %u;
@localize = grep { !$u{$_}++ } @localize;
open my $lf, '>', "$tmp/localize" or die;
print $lf "$_\n" for @localize;
close $lf;
# The refused code stays in the object but can no longer reach what it called: each
# forbidden symbol it names becomes a trap that fails the case (nothing reaches that
# code anyway: the refused exercises are local and replaced by stubs).
my @trap;
for my $s (@symtab) {
    my ($name, $type, $bind, $ndx) = @$s;
    push @trap, "$name graded_trap_" . scalar(@trap) if $ndx eq 'UND' && $name ne ''
        && defined why_refused($name);
}
open my $rf, '>', "$tmp/redefine" or die;
print $rf "$_\n" for @trap;
close $rf;
# The student's copies of template code and inline functions (a kernel's argument pack,
# say) come in COMDAT groups; now that their symbols are local, the groups go too, or the
# linker would keep this file's local copy of a group and drop lib's, whose code refers
# to it by its global name. (objcopy fails on an empty list of symbols, so none is
# passed then.)
system('objcopy', '--remove-section=.group',
       (@localize ? ("--localize-symbols=$tmp/localize") : ()),
       (@trap ? ("--redefine-syms=$tmp/redefine") : ()), $object, "$tmp/student.o") == 0
    or die "check_student: objcopy failed on $object\n";

my @parts = ("$tmp/student.o");
if (%refused_ex || @trap) {
    open my $cf, '>', "$tmp/refused.c" or die;
    print $cf "/* Stubs of the exercises check_student.pl refused, and the traps. */\n";
    print $cf "void graded_refused(const char *why) __attribute__((noreturn));\n";
    print $cf "void graded_refused_call(void) __attribute__((noreturn));\n";
    for my $i (0 .. $#trap) {
        print $cf "void graded_trap_$i(void);\nvoid graded_trap_$i(void) { graded_refused_call(); }\n";
    }
    for my $ex (sort keys %refused_ex) {
        (my $msg = $refused_ex{$ex}) =~ s/(["\\])/\\$1/g;
        $msg =~ s/\n/ /g;
        print $cf "int $ex(void);\nint $ex(void) { graded_refused(\"$msg\"); }\n";
    }
    close $cf;
    system(split(' ', $cc), '-c', '-O1', "$tmp/refused.c", '-o', "$tmp/refused.o") == 0
        or die "check_student: cannot compile the refusal stubs\n";
    push @parts, "$tmp/refused.o";
}
system('ld', '-r', '-o', $out, @parts) == 0 or die "check_student: ld -r failed\n";
exit 0;
