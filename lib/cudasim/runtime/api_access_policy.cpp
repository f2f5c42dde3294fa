/*
 * api_access_policy.cpp: the attributes a stream carries (an L2 access
 * policy window, a synchronization policy, a priority:
 * cudasim_access_policy.h). They are kept per stream and given back; none
 * changes how the simulator runs (it has no L2 cache and runs streams in
 * order).
 */
#include <cstring>
#include <map>

#include "../internal.h"

namespace {
std::map<std::pair<cudaStream_t, int>, cudaLaunchAttributeValue> g_stream_attrs;

bool known_attr(cudaLaunchAttributeID a)
{
    return a == cudaLaunchAttributeAccessPolicyWindow ||
           a == cudaLaunchAttributeSynchronizationPolicy || a == cudaLaunchAttributePriority;
}
} // namespace

using namespace cudasim::internal;

extern "C" {

cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaLaunchAttributeID attr,
                                   const cudaLaunchAttributeValue *value)
{
    API_ENTER();
    if (!stream_ok(stream)) return fail(cudaErrorInvalidResourceHandle);
    if (!value || !known_attr(attr)) return fail(cudaErrorInvalidValue);
    g_stream_attrs[{stream, (int)attr}] = *value;
    return cudaSuccess;
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaLaunchAttributeID attr,
                                   cudaLaunchAttributeValue *value_out)
{
    API_ENTER();
    if (!stream_ok(stream)) return fail(cudaErrorInvalidResourceHandle);
    if (!value_out || !known_attr(attr)) return fail(cudaErrorInvalidValue);
    auto it = g_stream_attrs.find({stream, (int)attr});
    if (it != g_stream_attrs.end()) {
        *value_out = it->second;
    } else {
        memset(value_out, 0, sizeof *value_out);
    }
    return cudaSuccess;
}

cudaError_t cudaCtxResetPersistingL2Cache(void)
{
    API_ENTER();
    return cudaSuccess; /* no lines persist: there is no L2 */
}

} // extern "C"
