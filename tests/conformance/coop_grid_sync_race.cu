// A bug: coop_grid_sync_ordered.cu without its grid syncs. Block 1 reads what
// block 0 writes, and nothing orders the two: a race between blocks.
#define WITHOUT_SYNC
#include "coop_grid_sync_ordered.cu"
