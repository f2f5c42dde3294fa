# What CUDASIM_PROFILE=FILE must write for wmma_profile.cu (the comments there
# work the counts out): WMMA's loads and stores counted as the lanes' 16-byte
# pieces, shared or global by the address. The simulator's counting, not ncu's
# (a GPU's WMMA instructions are its own).
columns: l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum smsp__inst_executed_op_shared_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum smsp__inst_executed_op_shared_st.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum launch__shared_mem_per_block_static
#               ld ld-sect st st-sect shld shld-wf shst shst-wf static
0 wmma_counts   2  32      2  64      1    4       1    4       512
