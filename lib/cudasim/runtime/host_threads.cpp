/*
 * host_threads.cpp: the lock that makes the runtime's calls run one at a time
 * when a program's host threads call CUDA at once (internal.h, "host threads").
 * A GPU takes calls from every host thread; the simulator, whose state (streams,
 * allocations, the checkers' tables) is one, takes them in turn. A call that
 * runs a kernel holds the lock for the whole kernel, so another thread's call
 * waits for it, as a call issued behind it in one stream would.
 */
#include "../internal.h"

namespace cudasim::internal {

std::recursive_mutex &api_mutex()
{
    /* never destroyed: the leak check at exit, and threads still running then, take it */
    static std::recursive_mutex *m = new std::recursive_mutex;
    return *m;
}

} // namespace cudasim::internal
