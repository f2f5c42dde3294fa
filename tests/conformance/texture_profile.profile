# What CUDASIM_PROFILE=FILE must write for texture_profile.cu (its comments
# say how each count is worked out): per launch, global loads and stores, the
# texture path's requests and sectors for fetches, surface reads and surface
# writes. `-`: not checked (a cudaArray's sectors depend on a GPU's layout).
columns: l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum l1tex__t_requests_pipe_tex_mem_texture.sum l1tex__t_sectors_pipe_tex_mem_texture.sum l1tex__t_requests_pipe_tex_mem_surface_op_ld.sum l1tex__t_sectors_pipe_tex_mem_surface_op_ld.sum l1tex__t_requests_pipe_tex_mem_surface_op_st.sum l1tex__t_sectors_pipe_tex_mem_surface_op_st.sum
#                  ld  st  st-sect tex tex-sect sld sld-sect sst sst-sect
0 fetch_coalesced  0   32  128     32  128      0   0        0   0
1 fetch_stride8    0   32  128     32  1024     0   0        0   0
2 fetch_same       0   32  128     32  32       0   0        0   0
3 surface_rows     0   0   0       0   0        0   0        32  -
4 surface_read     0   32  128     0   0        32  -        0   0
5 fetch_pitched    0   32  128     32  128      0   0        0   0
