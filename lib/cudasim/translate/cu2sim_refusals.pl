# cu2sim_refusals.pl: what a CUDA program may need that the CUDA simulator
# cannot give (texture references, mipmaps, graphics interop, the driver API,
# several GPUs, several processes, OpenMP), and the CUDA toolkit's
# headers that the simulator does not stand in for. cu2sim.pl refuses each
# with one line per file, naming what it found and where:
#
#   prog.cu:41: error: cudaBindTexture: the program needs texture references (removed in CUDA 12), which ...
#
# so that such a program stops before it is compiled, instead of failing in
# a header of the real toolkit or deep in g++'s messages.
package Cu2simRefusals;
use strict;
use warnings;

# [what is needed, a pattern that finds it in code (comments and strings
# masked), what to do instead]
my @needs = (
    ['texture references (removed in CUDA 12)',
     qr/\b(?:(?:texture|surface)\s*<|cuda(?:Bind|Unbind)(?:Texture|Surface)\w*|cudaGet(?:Texture|Surface)Reference
          |cudaGetTextureAlignmentOffset)/x,
     'use a texture object (cudaCreateTextureObject, then tex2D<T>(tex, x, y) in the kernel), '
     . 'which the simulator has'],
    ['mipmapped textures',
     qr/\bcuda(?:MallocMipmappedArray|GetMipmappedArrayLevel|FreeMipmappedArray|MipmappedArrayGet\w*)\b/,
     'the simulator\'s textures have one level: use a cudaArray (cudaMallocArray, cudaMalloc3DArray)'],
    ['texture gather (tex2Dgather)',
     qr/\btex2Dgather\s*[<(]/,
     'fetch the four texels with tex2D and cudaFilterModePoint'],
    ['graphics interop',
     qr/\bcuda(?:Graphics|GL|EGL|D3D9|D3D10|D3D11|VDPAU|Vulkan)\w*\s*\(|\bcudaImportExternal\w*/,
     'the simulator has no display or graphics API to share memory with'],
    ['the CUDA driver API',
     qr/\bcu(?:Init|DriverGetVersion|Device(?:Get|Primary|Total|Compute|CanAccess)|Ctx|Module|Mem(?:Alloc|Free|cpy|set|Get|Host|Create|Map|Address|Release|Export|Import|Prefetch|Advise|Pool)
          |Launch|Stream|Event|Func|Graph|Tex|Surf|Array|Ipc|Pointer|Occupancy|Link|Library|Kernel|GetErrorString|GetErrorName
          |GetProcAddress|Profiler|Mipmapped|External|Import|Destroy|Signal|Wait|Coredump|Multicast|TensorMap|Flush|UserObject)\w*\s*\(/x,
     'write it with the runtime API (cudaMalloc, kernel<<<...>>>, ...), which the simulator has'],
    ['a graph built node by node (the explicit graph API)',
     qr/\bcuda(?:GraphCreate|GraphAdd\w+|GraphClone|Graph(?:Kernel|Memcpy|Memset|Host|Child|EventRecord|EventWait|MemAlloc|MemFree)Node\w*
          |GraphNode(?!_t\b)\w+|GraphExec(?!Destroy\b|_t\b)\w+|GraphConditionalHandle\w*|GraphSetConditional|GraphMem\w+
          |DeviceGetGraphMemAttribute|DeviceSetGraphMemAttribute|DeviceGraphMemTrim|MemsetParams|KernelNodeParams
          |MemAllocNodeParams|HostNodeParams)\b/x,
     'build the graph by capturing a stream (cudaStreamBeginCapture ... cudaStreamEndCapture, then '
     . 'cudaGraphInstantiate and cudaGraphLaunch), which the simulator has'],
    ['peer access between several GPUs',
     qr/\bcuda(?:DeviceCanAccessPeer|DeviceEnablePeerAccess|DeviceDisablePeerAccess|MemcpyPeer\w*|Memcpy3DPeer\w*|DeviceGetP2PAttribute)\b/,
     'the simulator runs one GPU at a time and no memory is shared between its devices'],
    ['memory shared between processes',
     qr/\bcuda(?:Ipc\w+|MemPoolExportToShareableHandle|MemPoolImportFromShareableHandle|MemPoolExportPointer|MemPoolImportPointer)\b/,
     'the simulator\'s device memory belongs to one process'],
    ['OpenMP',
     qr/^[ \t]*#[ \t]*pragma[ \t]+omp\b/m,
     'make sim-run builds without g++\'s -fopenmp; host threads of std::thread or pthreads may call CUDA '
     . 'at once, and take turns'],
    ['thread-block tiles of more than 32 threads (cg::block_tile_memory)',
     qr/\bblock_tile_memory\s*</,
     'the simulator\'s tiles have up to 32 threads (tiled_partition<32>): combine the warps\' results '
     . 'through shared memory'],
);

# #include names: [pattern, what is needed]. The simulator's own headers
# (lib/cudasim/include) are never refused, whatever their names.
my @include_needs = (
    [qr{^(?:GL|GLES\d?|EGL|vulkan)/|^(?:cuda_gl_interop|cuda_egl_interop|cudaGL|cudaEGL|cuda_vdpau_interop|cudaVDPAU|helper_gl|rendercheck_\w+|cuda_d3d\w+)\.h$},
     'graphics interop'],
    [qr{^(?:helper_cuda_drvapi\.h|drvapi_error_string\.h|cudaTypedefs\.h|cudaProfiler\.h)$}, 'the CUDA driver API'],
    [qr{^(?:nvrtc\.h|nvrtc_helper\.h|nvJitLink\.h|nvvm\.h)$}, 'compiling CUDA at run time (NVRTC)'],
    [qr{^helper_multiprocess\.h$}, 'memory shared between processes'],
    [qr{^omp\.h$}, 'OpenMP (make sim-run builds without g++\'s -fopenmp)'],
    [qr{^(?:texture_fetch_functions|surface_functions|cuda_texture_types|cuda_surface_types)\.h$},
     'texture references (removed in CUDA 12)'],
    [qr{^cuda/|^nv/|^cuda_(?:awbarrier|pipeline)\w*\.h$}, 'the rest of the CUDA C++ standard library (libcu++; the simulator has <cuda/atomic>, <cuda/barrier>, <cuda/pipeline>, <cuda/std/atomic> and the <cuda/std/...> headers that C++17 has)'],
);

# The names of the CUDA toolkit's own headers (its include folder): one the
# simulator does not provide is refused by name, never looked up on the
# system's include path (where a toolkit's real header would be mixed with
# the simulator's).
my $toolkit_header = qr{^(?:cu\w*\.h|cuda\w*\.h|nv\w*\.h|npp\w*\.h|nccl\w*\.h|sm_\d+_\w+\.h(?:pp)?
    |(?:builtin_types|channel_descriptor|common_functions|device_\w+|driver_\w+|host_\w+|library_types
       |math_\w+|mma|surface_\w+|texture_\w+|vector_\w+|fatbinary_section|generated_\w+)\.h(?:pp)?
    |crt/|nv/|cuda/|nvtx3/|thrust/|cub/|cooperative_groups)}x;

# Macros some file defines: the simulator's headers (read once, when a group
# must be judged), and those the program's files define or its -D options give
# (cu2sim.pl adds them, file by file, as it reads them).
our %defined;
my $own_read = 0;
sub simulator_defines
{
    return if $own_read++;
    require FindBin;
    my $inc = "$FindBin::RealBin/../include";
    my @todo = ($inc);
    while (defined(my $d = shift @todo)) {
        opendir(my $dh, $d) or next;
        for my $e (grep { !/^\./ } readdir $dh) {
            my $f = "$d/$e";
            if (-d $f) { push @todo, $f; next; }
            open(my $fh, '<', $f) or next;
            while (<$fh>) { $defined{$1} = 1 if /^\s*#\s*define\s+(\w+)/; }
        }
    }
}

# Whether $pos lies in a conditional group that no build compiles: the group of
# `#ifdef NAME` or `#if defined(NAME)` whose NAME no file defines (helper_cuda.h's
# driver API part, under CUDA_DRIVER_API, say). Other groups are taken as compiled.
sub dead
{
    my ($m, $pos) = @_;
    my @stack; # per open group: 1 when it is a dead branch
    while ($m =~ /^[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif)\b([^\n]*)/mg) {
        last if $-[0] >= $pos;
        my ($d, $rest) = ($1, $2);
        if ($d eq 'ifdef' || $d eq 'if') {
            my $dead = 0;
            if ($d eq 'ifdef' ? $rest =~ /^\s*(\w+)\s*$/ : $rest =~ /^\s*defined\s*\(?\s*(\w+)\s*\)?\s*$/) {
                my $name = $1;
                simulator_defines() unless $defined{$name};
                $dead = $defined{$name} ? 0 : 1;
            }
            push @stack, $dead;
        } elsif ($d eq 'ifndef') {
            push @stack, 0;
        } elsif ($d eq 'elif' || $d eq 'else') {
            $stack[-1] = 0 if @stack;
        } else {
            pop @stack;
        }
    }
    return grep({ $_ } @stack) ? 1 : 0;
}

# check(masked code, bad(pos, msg), includes): refuse
# what the code needs and the simulator cannot give, one line per need.
# includes is a list of [position, name, found (1 when the simulator or the
# program's folders have it, or it was refused already)]. An include no
# folder has whose name is one of the toolkit's is refused by name.
sub check
{
    my ($m, $bad, $includes) = @_;
    my %said;
    for my $inc (@$includes) {
        my ($at, $name, $found) = @$inc;
        next if $found;
        my ($need) = grep { $name =~ $_->[0] } @include_needs;
        if ($need) {
            $bad->($at, "#include <$name>: the program needs $need->[1], which the CUDA simulator "
                        . 'does not have') unless $said{$need->[1]}++;
        } elsif ($name =~ $toolkit_header) {
            $bad->($at, "#include <$name>: a header of the CUDA toolkit that the CUDA simulator "
                        . 'does not provide (lib/cudasim/include has those it does)');
        }
    }
    for my $n (@needs) {
        my ($need, $re, $advice) = @$n;
        next if $said{$need};
        my ($at, $what);
        while ($m =~ /$re/g) {
            next if dead($m, $-[0]);
            ($at, $what) = ($-[0], $&);
            last;
        }
        next unless defined $at;
        $what =~ s/\s*[<(]$//;
        $said{$need} = 1;
        $bad->($at, "$what: the program needs $need, which the CUDA simulator does not have: "
                    . $advice);
    }
    return \%said;
}

1;
