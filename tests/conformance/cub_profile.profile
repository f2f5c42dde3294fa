# What CUDASIM_PROFILE=FILE must write for cub_profile.cu, worked out by hand
# in its comments: one launch per line (its ID and kernel name), then the
# columns named below, under ncu's names; `-` is not checked (the static
# shared memory, whose size CUB's own TempStorage types set otherwise).
columns: l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum smsp__inst_executed_op_shared_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum smsp__inst_executed_op_shared_st.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum launch__shared_mem_per_block_static
#                                                                          ld  ld-sect st  st-sect shld shld-wf shst shst-wf static
0 copy_tile<cub::BLOCK_LOAD_DIRECT,cub::BLOCK_STORE_DIRECT>                16  256     16  256     0    0       0    0       -
1 copy_tile<cub::BLOCK_LOAD_STRIPED,cub::BLOCK_STORE_STRIPED>              16  64      16  64      0    0       0    0       -
2 copy_tile<cub::BLOCK_LOAD_VECTORIZE,cub::BLOCK_STORE_VECTORIZE>          4   64      4   64      0    0       0    0       -
3 copy_tile<cub::BLOCK_LOAD_TRANSPOSE,cub::BLOCK_STORE_TRANSPOSE>          16  64      16  64      32   80      32   80      -
4 copy_tile<cub::BLOCK_LOAD_WARP_TRANSPOSE,cub::BLOCK_STORE_WARP_TRANSPOSE> 16 64      16  64      32   80      32   80      -
5 block_sum                                                                4   16      1   1       3    3       4    4       -
6 block_scan                                                               4   16      4   16      16   16      4    4       -
