# cu2sim_kernels.pl: the part of cu2sim.pl that has each kernel register
# itself with the runtime (lib/cudasim/exec/kernel_registry.cpp), by its
# address: its name, its __launch_bounds__, its static __shared__ variables
# and how to launch it from cudaLaunchKernel's array of argument pointers.
# At the top of a kernel's body, on the line of its `{`:
#
#   template <int BS, typename T> __global__ void __launch_bounds__(BS) k(T *x, int n) {
#
# gains
#
#   static constexpr char cudasim_kname[] = "k";
#   (void)&cudasim::KernelEntry<static_cast<void (*)(T *x, int n)>(&k<BS, T>),
#                               cudasim_kname, (BS), CUDASIM_DYNAMIC_SHARED_ALIGN>::reg;
#   cudasim_launch_bound((BS));
#
# and after a __shared__ variable of static size (cu2sim.pl's cudasim_st_NAME
# type), in a kernel
#
#   (void)&cudasim::SharedEntry<...the kernel's address..., cudasim_st_tile, ID>::reg;
#
# or in a __device__ function f, by its name,
#
#   static constexpr char cudasim_fn_tile[] = "f";
#   (void)&cudasim::SharedNamed<cudasim_fn_tile, cudasim_st_tile, ID>::reg;
#
# The address is spelled with the kernel's own parameters (so an overloaded
# kernel is told apart) and its template's (so each instantiation registers
# its own; naming reg instantiates the registration with the body, and nothing
# of it runs in the kernel). ID is a hash of the declaration's file, line and
# name: the same in every file that includes it. A kernel whose address cannot
# be spelled (a template parameter without a name) is not registered: it runs
# as before, but cudaLaunchKernel cannot launch it from a void pointer and
# cudaFuncGetAttributes does not know its bounds.
package Cu2simKernels;
use strict;
use warnings;
use Digest::SHA qw(sha1_hex);

# Whether the translated files declare extern __shared__ memory: nvcc then
# rounds each kernel's static shared memory up to 16 bytes, where the dynamic
# begins (CUDASIM_DYNAMIC_SHARED_ALIGN, which cu2sim.pl defines).
our $extern_shared = 0;
# Whether kernels register by address at all (cu2sim.pl --no-entries: not).
our $enabled = 1;

# Split $s at its commas outside brackets.
sub split_top
{
    my ($s) = @_;
    my @parts;
    my ($cur, $d) = ('', 0);
    for my $c (split //, $s) {
        $d++ if $c =~ /[(\[{<]/;
        $d-- if $c =~ /[)\]}>]/;
        if ($c eq ',' && $d == 0) { push @parts, $cur; $cur = ''; } else { $cur .= $c; }
    }
    push @parts, $cur if $cur =~ /\S/ || @parts;
    return @parts;
}

# The text of the balanced <...> that starts at $i of $s, without its
# brackets, or undef.
sub angle_list
{
    my ($s, $i) = @_;
    my $d = 0;
    for (my $j = $i; $j < length $s; $j++) {
        my $c = substr($s, $j, 1);
        $d++ if $c =~ /[<(\[{]/;
        $d-- if $c =~ /[>)\]}]/;
        return substr($s, $i + 1, $j - $i - 1) if $d == 0;
    }
    return undef;
}

# The kernel's address as an expression of its body: $head is its
# declaration up to its parameters (masked), $params their text as written,
# $explicit the template arguments after its name (an explicit
# specialization), or undef where it cannot be spelled.
sub address
{
    my ($head, $name, $explicit, $params) = @_;
    return undef unless $enabled;
    my $spelled = $name;
    if (defined $explicit) {
        $spelled .= $explicit;
    } elsif ($head =~ /\btemplate\s*</g) {
        my $list = angle_list($head, pos($head) - 1);
        return undef unless defined $list;
        my @names;
        for my $p (split_top($list)) {
            $p =~ s/=.*//s;           # a default
            my $pack = $p =~ /\.\.\./;
            $p =~ s/\.\.\.//g;
            return undef unless $p =~ /\S\s+(\w+)\s*$/ || $p =~ /[*&>]\s*(\w+)\s*$/;
            my $n = $1;
            return undef if $n =~ /^(?:typename|class|int|unsigned|long|short|char|bool|auto|size_t)$/;
            push @names, $n . ($pack ? '...' : '');
        }
        $spelled .= '<' . join(', ', @names) . '>';
    }
    # The parameters as a function type: their default values left out.
    my @ps = map { (my $p = $_) =~ s/(?<![=!<>])=(?!=).*//s; $p } split_top($params);
    my $list = join(',', @ps);
    $list =~ s/\s+/ /g;
    return "static_cast<void (*)($list)>(&$spelled)";
}

# __launch_bounds__(max[, min[, cluster]]) in $decl (masked): its first value.
sub bound
{
    my ($decl) = @_;
    return undef unless $decl =~ /\b__launch_bounds__\s*\(/g;
    my $open = pos($decl) - 1;
    my $d = 0;
    for (my $j = $open; $j < length $decl; $j++) {
        my $c = substr($decl, $j, 1);
        $d++ if $c eq '(';
        $d-- if $c eq ')';
        if ($d == 0) {
            my ($first) = split_top(substr($decl, $open + 1, $j - $open - 1));
            return defined $first && $first =~ /\S/ ? $first =~ s/^\s+|\s+$//gr : undef;
        }
    }
    return undef;
}

# What goes after the `{` of kernel $name's body.
sub entry
{
    my ($name, $address, $bound) = @_;
    my $max = defined $bound ? "($bound)" : '0';
    my $text = "static constexpr char cudasim_kname[] = \"$name\"; "
             . "(void)&cudasim::KernelEntry<$address, cudasim_kname, $max, "
             . "CUDASIM_DYNAMIC_SHARED_ALIGN>::reg;";
    $text .= " cudasim_launch_bound($max);" if defined $bound;
    return $text;
}

# The id of the __shared__ variable $var declared at $file:$line.
sub shared_id
{
    my ($file, $line, $var) = @_;
    return hex(substr(sha1_hex("$file:$line:$var"), 0, 7)) . 'u';
}

# What follows the __shared__ variable $var (type cudasim_st_$var) of the
# function $fn: its registration.
sub shared_entry
{
    my ($fn, $var, $id) = @_;
    return "(void)&cudasim::SharedEntry<$fn->{address}, cudasim_st_$var, $id>::reg;"
        if $fn->{kernel};
    return "static constexpr char cudasim_fn_$var\[] = \"$fn->{name}\"; "
         . "(void)&cudasim::SharedNamed<cudasim_fn_$var, cudasim_st_$var, $id>::reg;";
}

1;
