# What CUDASIM_PROFILE=FILE must write for profile_divergence.cu: one line per
# launch (its ID and kernel name), then the value of each column named on the
# `columns` line. Worked out by hand (the comments in profile_divergence.cu say
# how): 4 warps; each kernel's lanes part ways, and a warp instruction counts
# the lanes active for it.
columns: l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum smsp__inst_executed_op_shared_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum smsp__inst_executed_op_shared_st.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum launch__shared_mem_per_block_static
#                      ld  ld-sect  st st-sect shld shld-wf shst shst-wf static
0  tail_loop           16  64       4  16      0    0       0    0       0
1  skip_lane0          4   16       4  16      0    0       0    0       0
2  late_divergence     12  48       4  16      0    0       0    0       0
3  halves_at_a_barrier 8   16       4  16      4    4       8    8       256
