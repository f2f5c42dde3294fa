# What CUDASIM_PROFILE=FILE must write for profile_patterns.cu: one line per
# launch (its ID and kernel name), then the value of each column named on the
# `columns` line, under the names `ncu --csv --metrics` gives them; `-` is not
# checked. Worked out by hand (the comments in profile_patterns.cu say how):
# 32 warps per global kernel, so 32 requests per access; a warp's 32 floats
# are 4 sectors when consecutive, 8 at stride 2, 32 at stride 32, 5 when
# shifted by one float, 1 when all lanes read the same one; float2 and float4
# are 8 and 16; half the lanes active at stride 2 still take 4; shared memory:
# 32 wavefronts for a 32-way conflict, 4 for a warp's float4s, 1 per
# instruction for a padded tile's column and 32 for an unpadded one.
columns: l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum smsp__inst_executed_op_shared_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum smsp__inst_executed_op_shared_st.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum launch__shared_mem_per_block_static
#                    ld  ld-sect  st st-sect atom atom-sect shld shld-wf shst shst-wf static
0  copy_coalesced    32  128      32 128     0    0         0    0       0    0       0
1  copy_stride2      32  256      32 128     0    0         0    0       0    0       0
2  copy_stride32     32  1024     32 128     0    0         0    0       0    0       0
3  copy_offset1      32  160      32 128     0    0         0    0       0    0       0
4  read_broadcast    32  32       32 128     0    0         0    0       0    0       0
5  copy_float2       32  256      32 256     0    0         0    0       0    0       0
6  copy_float4       32  512      32 512     0    0         0    0       0    0       0
7  copy_even_lanes   32  128      32 128     0    0         0    0       0    0       0
8  count_atomic      0   0        0  0       32   32        0    0       0    0       0
9  shared_conflict32 1   4        1  4       0    0         1    32      1    32      4096
10 shared_float4     1   16       1  16      0    0         1    4       1    4       512
11 transpose_tile<0> 128 512      128 512    0    0         128  4096    128  128     4096
12 transpose_tile<1> 128 512      128 512    0    0         128  128     128  128     4224
