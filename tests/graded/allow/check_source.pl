# check_source.pl: what a student's source says that its object does not show
# (loaded by check_student.pl).
#
# GCC writes some names of a C or CUDA file verbatim into the assembly it hands to the
# assembler: an asm label's (`int f(void) __asm__("name")`, also on variables), a
# section attribute's, and those of weakref and symver attributes (alias and ifunc
# name symbols too). A
# name with a newline in it is assembler source with no #APP around it, which the check
# for asm statements never sees; with overlapping instructions the disassembly shows no
# system call either. Constructor and destructor attributes run code that no call
# reaches. These are found in the compiler's preprocessed source (the .i or .ii that
# -save-temps keeps beside the .s), in the lines that come from the student's files:
# every line but those of the headers the include check allows. So that no line can
# pass itself off as a header's, a line directive (#line, or a GCC line marker
# `# 1 "/usr/include/stdio.h" 3`) is refused in the student's file itself, where no
# macro can make one.
package CheckSource;
use strict;
use warnings;

# What each refused attribute does, for the message.
my %attribute_why = (
    section => "puts code or data in a section named by the student, and GCC writes that "
             . "name verbatim into the assembly",
    constructor => "runs code when the runner loads the file, before any exercise is called "
                 . "and reached by no call",
    destructor => "runs code when the runner ends, after the exercises, reached by no call",
    alias => "gives a symbol a second name of the student's choosing",
    weakref => "names a symbol that GCC writes verbatim into the assembly",
    ifunc => "has a resolver that the loader runs before any exercise is called",
    symver => "gives a symbol a version name written verbatim into the assembly",
);

# Why a name is not plain (undef: it is): what in it makes it assembler source.
sub not_plain {
    my ($name) = @_;
    return undef if $name =~ /^[A-Za-z0-9_.\$]+\z/;
    return 'a newline' if $name =~ /[\n\r]/;
    return 'a space' if $name =~ /[ \t\f\x0b]/;
    return 'a quote' if $name =~ /["']/;
    return "a $1" if $name =~ /([#;,:\@()\\])/;
    return 'a byte that is not a letter, digit, _, . or $';
}

# A C string literal's text, escapes decoded (enough to show what the assembler reads).
sub c_string {
    my ($lit) = @_;
    $lit =~ s/^(?:u8|u|U|L)?R"([^(]*)\((.*)\)\1"\z/$2/s and return $lit;
    $lit =~ s/^(?:u8|u|U|L)?"//;
    $lit =~ s/"\z//;
    my %esc = (n => "\n", t => "\t", r => "\r", f => "\f", v => "\x0b", a => "\x07",
               b => "\x08", e => "\x1b", '"' => '"', "'" => "'", '\\' => '\\', '?' => '?');
    $lit =~ s/\\(?:([0-7]{1,3})|x([0-9A-Fa-f]+)|(.))/
        defined $1 ? chr(oct $1) : defined $2 ? chr(hex $2) : ($esc{$3} \/\/ $3)/ges;
    return $lit;
}

# A name as a message shows it: in quotes, escaped, cut short.
sub shown {
    my ($name) = @_;
    my $s = length($name) > 48 ? substr($name, 0, 45) . '...' : $name;
    $s =~ s/([\\"])/\\$1/g;
    $s =~ s/\n/\\n/g;
    $s =~ s/\t/\\t/g;
    $s =~ s/([^\x20-\x7e])/sprintf('\\x%02x', ord $1)/ge;
    return "\"$s\"";
}

# The line directives of a student's file, as [line, text]: #line, a GCC line marker,
# spelled with a digraph (%:) or a trigraph (??=), spliced with backslashes, with
# comments around: a directive starts a line (or follows the end of a comment).
sub line_directives {
    my ($path) = @_;
    open my $fh, '<:raw', $path or return ();
    local $/;
    my $text = <$fh> // '';
    close $fh;
    $text =~ s/^\xEF\xBB\xBF//;
    $text =~ s/\?\?=/#/g;
    $text =~ s{\?\?/}{\\}g;
    my @lines = split /\n/, $text, -1;
    my $gap = qr{(?:[ \t\f\x0b\r]|/\*.*?\*/)*};
    my @found;
    for (my $i = 0; $i < @lines;) {
        my ($first, $l) = ($i + 1, $lines[$i++]);
        while ($l =~ /\\[ \t]*\r?\z/ && $i < @lines) {
            $l =~ s/\\[ \t]*\r?\z//;
            $l .= $lines[$i++];
        }
        push @found, [$first, $l] if $l =~ m{(?:^|\*/)$gap(?:#|%:)$gap(?:line\b|\d)};
    }
    return @found;
}

# The tokens of the student's lines of a preprocessed file, each [text, line, file];
# also the files those lines come from and the #pragma lines, as [text, line, file].
# $trusted: a sub that says whether a file named by a line marker is a header the
# include check allows.
sub student_tokens {
    my ($ii, $trusted) = @_;
    open my $fh, '<', $ii or return;
    my (@text, @where);    # the student's lines and where each comes from
    my (@pragmas, %files, %trust);
    my ($file, $line) = ('', 0);
    my $mine = 0;
    while (my $l = <$fh>) {
        if ($l =~ /^#\s*(\d+)\s+"((?:[^"\\]|\\.)*)"/) {
            ($line, $file) = ($1, $2);
            $file =~ s/\\(.)/$1/g;
            $mine = !($trust{$file} //= $trusted->($file) ? 1 : 0);
            $files{$file} = $line if $mine && !exists $files{$file};
            next;
        }
        if ($mine) {
            if ($l =~ /^\s*#\s*pragma\b(.*)/) {
                push @pragmas, [$1, $line, $file];
            } else {
                push @text, $l;
                push @where, [$line, $file];
            }
        }
        $line++;
    }
    close $fh;
    # Tokens, over the lines joined (a raw string may span some).
    my (@tokens, @starts);
    my $all = '';
    for my $i (0 .. $#text) { push @starts, length $all; $all .= $text[$i] }
    my $at_line = sub {
        my ($pos) = @_;
        my ($lo, $hi) = (0, $#starts);
        while ($lo < $hi) {
            my $mid = int(($lo + $hi + 1) / 2);
            if ($starts[$mid] <= $pos) { $lo = $mid } else { $hi = $mid - 1 }
        }
        return @{$where[$lo]};
    };
    pos($all) = 0;
    while (pos($all) < length $all) {
        next if $all =~ /\G\s+/gc;
        my $start = pos($all);
        if ($all =~ /\G((?:u8|u|U|L)?R"([^()\\\s]{0,16})\(.*?\)\2")/gcs
            || $all =~ /\G((?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*")/gc
            || $all =~ /\G((?:u8|u|U|L)?'(?:[^'\\\n]|\\.)*')/gc
            || $all =~ /\G([A-Za-z_\$][\w\$]*)/gc
            || $all =~ /\G(\.?\d(?:[eEpP][+-]|[\w.'])*)/gc
            || $all =~ /\G(::|->|\S)/gc) {
            push @tokens, [$1, $at_line->($start)];
        } else {
            pos($all) = $start + 1;
        }
    }
    return (\@tokens, \%files, \@pragmas);
}

# The index of the token that closes the bracket opened at $i (undef: none).
sub closing {
    my ($t, $i) = @_;
    my %pair = ('(' => ')', '[' => ']', '{' => '}');
    my $open = $t->[$i][0];
    my $depth = 0;
    for my $j ($i .. $#$t) {
        $depth++ if $t->[$j][0] eq $open;
        $depth-- if $t->[$j][0] eq $pair{$open};
        return $j if $depth == 0;
    }
    return undef;
}

# The attributes of an attribute list (tokens $from .. $to), as [name, arguments, the
# string among them decoded].
sub attributes {
    my ($t, $from, $to) = @_;
    my @out;
    my $i = $from;
    # C++: [[using gnu: a, b]]
    $i += 3 if $i + 2 <= $to && $t->[$i][0] eq 'using' && $t->[$i + 2][0] eq ':';
    while ($i <= $to) {
        my $name = $t->[$i][0];
        if ($i + 2 <= $to && $t->[$i + 1][0] eq '::') { $i += 2; $name = $t->[$i][0] }
        my ($args, $value) = ('', undef);
        my $next = $i + 1;
        if ($next <= $to && $t->[$next][0] eq '(') {
            my $end = closing($t, $next) // $to;
            my @in = @{$t}[$next + 1 .. $end - 1];
            $args = join ' ', map { $_->[0] } @in;
            $value = string_at(\@in, 0) if grep { $_->[0] =~ /^(?:u8|u|U|L)?R?"/ } @in;
            $next = $end + 1;
        }
        (my $bare = $name) =~ s/^__(.*)__\z/$1/;
        push @out, [$bare, $args, $value] if $name =~ /^[A-Za-z_]/;
        # on to the next comma at this level
        $i = $next;
        $i++ while $i <= $to && $t->[$i][0] ne ',';
        $i++;
    }
    return @out;
}

# The first string literal (adjacent ones joined) from token $i on, decoded.
sub string_at {
    my ($t, $i) = @_;
    $i++ while $i <= $#$t && $t->[$i][0] !~ /^(?:u8|u|U|L)?R?"/;
    my $s = '';
    while ($i <= $#$t && $t->[$i][0] =~ /^(?:u8|u|U|L)?R?"/) { $s .= c_string($t->[$i][0]); $i++ }
    return $s;
}

# Refusals of a student's preprocessed file: ($ii, $source, $file as shown, $cplusplus,
# $trusted) -> (reasons, whether an asm statement was among them).
sub refusals {
    my ($ii, $source, $file, $cplusplus, $trusted) = @_;
    my @why;
    for my $d (line_directives($source)) {
        (my $text = $d->[1]) =~ s/^\s+|\s+$//g;
        push @why, "$file, line $d->[0], has a line directive ($text): it tells the compiler "
            . "that the lines after it come from another file, which would hide them from the "
            . "grader's reading of the source; leave line numbers to the compiler";
    }
    my ($t, $files, $pragmas) = student_tokens($ii, $trusted);
    return (\@why, 0) unless $t;
    my $at = sub {
        my ($line, $f) = @_;
        my $b = $f =~ m{([^/]+)\z} ? $1 : $f;
        my $src = $source =~ m{([^/]+)\z} ? $1 : $source;
        return $b eq $src ? "$file, line $line," : "$file (in $f, line $line)";
    };
    for my $f (sort keys %$files) {
        my $b = $f =~ m{([^/]+)\z} ? $1 : $f;
        my $src = $source =~ m{([^/]+)\z} ? $1 : $source;
        next if $b eq $src;
        push @why, "$file reads $f, a file outside lib/ and kernels/: a student file may "
                 . "include only the headers of lib/ and kernels/ and system headers";
    }
    for my $p (@$pragmas) {
        next unless $p->[0] =~ /^\s*(redefine_extname)\b/;
        push @why, $at->($p->[1], $p->[2]) . " has #pragma $1, which gives a function another "
            . "symbol name, as an asm label does: name functions in C alone";
    }
    my $asm_statement = 0;
    my $depth = 0;
    my %statement_kw = map { $_ => 1 } qw(if while for switch);
    for my $i (0 .. $#$t) {
        my ($tok, $line, $f) = @{$t->[$i]};
        $depth++ if $tok eq '{';
        $depth-- if $tok eq '}' && $depth > 0;
        if ($tok =~ /^(?:__asm__|__asm)\z/ || ($cplusplus && $tok eq 'asm')) {
            # A label follows a declarator; a statement stands alone (or after if (...)).
            my $prev = $i > 0 ? $t->[$i - 1][0] : ';';
            my $k = $i + 1;
            my $qualified = 0;
            my $qualifier = qr/^(?:volatile|__volatile__|__volatile|goto|inline|__inline__|__inline)\z/;
            while ($k <= $#$t && $t->[$k][0] =~ $qualifier) {
                $k++;
                $qualified = 1;
            }
            my $label = !$qualified
                && ($prev eq ']' || $prev =~ /^[A-Za-z_]/ && $prev !~ /^(?:else|do|return)\z/);
            if (!$qualified && $prev eq ')') {
                my $j = $i - 1;
                my $d = 0;
                for (; $j >= 0; $j--) {
                    $d++ if $t->[$j][0] eq ')';
                    $d-- if $t->[$j][0] eq '(';
                    last if $d == 0;
                }
                $label = $depth == 0 || !($j > 0 && $statement_kw{$t->[$j - 1][0]});
            }
            if ($label) {
                my $name = string_at($t, $k);
                my $odd = not_plain($name);
                push @why, $at->($line, $f) . " has an asm label ($tok(" . shown($name) . ")): it "
                    . "gives a function or variable a symbol name of its own, which GCC writes "
                    . "verbatim into the assembly"
                    . (defined $odd ? "; this name holds $odd, so it is assembler source in "
                                    . "disguise, which no asm check sees"
                                    : ", where it can stand for a name of lib or the C library")
                    . ": name functions and variables in C alone";
            } else {
                $asm_statement = 1;
                push @why, $at->($line, $f) . " has assembly ($tok): the grader checks the "
                    . "compiled code, and assembly can hide from it a system call or a jump "
                    . "that no call shows, so an exercise is written in C (or CUDA) alone";
            }
            next;
        }
        my ($from, $to);
        if ($tok =~ /^(?:__attribute__|__attribute)\z/ && $i + 2 <= $#$t
            && $t->[$i + 1][0] eq '(' && $t->[$i + 2][0] eq '(') {
            my $end = closing($t, $i + 2);
            ($from, $to) = ($i + 3, defined $end ? $end - 1 : $#$t);
        } elsif ($tok eq '[' && $i + 1 <= $#$t && $t->[$i + 1][0] eq '['
                 && ($i == 0 || $t->[$i - 1][0] ne '[')) {
            my $end = closing($t, $i + 1);
            ($from, $to) = ($i + 2, defined $end ? $end - 1 : $#$t);
        }
        next unless defined $from;
        for my $a (attributes($t, $from, $to)) {
            my ($name, $args, $value) = @$a;
            next unless $attribute_why{$name};
            my $odd = defined $value ? not_plain($value) : undef;
            push @why, $at->($line, $f) . ($name =~ /^[aeiou]/ ? " has an" : " has a")
                . " $name attribute"
                . ($args ne '' ? " ($name(" . (defined $value ? shown($value) : $args) . "))" : '')
                . ", which $attribute_why{$name}"
                . (defined $odd ? "; this name holds $odd, so it is assembler source in "
                                . "disguise, which no asm check sees" : '')
                . ": a student file holds plain functions and variables in the compiler's own "
                . "sections";
        }
    }
    return (\@why, $asm_statement);
}

1;
