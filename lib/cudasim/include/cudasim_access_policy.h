/*
 * cudasim_access_policy.h: the L2 cache hints a stream can carry (an access
 * policy window: which bytes should persist in L2), as CUDA 11 and later
 * have them (cuda_runtime_api.h includes it). The simulated device has no L2
 * to set aside (cudaDeviceProp::persistingL2CacheMaxSize is 0), so the hints
 * are kept and reported back but change nothing (api_access_policy.cpp).
 * The launch attributes are cudaLaunchKernelEx's too, with its configuration.
 */
#ifndef CUDASIM_ACCESS_POLICY_H
#define CUDASIM_ACCESS_POLICY_H

enum cudaAccessProperty {
    cudaAccessPropertyNormal = 0,
    cudaAccessPropertyStreaming = 1,
    cudaAccessPropertyPersisting = 2
};

struct cudaAccessPolicyWindow {
    void *base_ptr;
    size_t num_bytes;
    float hitRatio;
    enum cudaAccessProperty hitProp;
    enum cudaAccessProperty missProp;
};
typedef struct cudaAccessPolicyWindow cudaAccessPolicyWindow;

typedef enum cudaLaunchAttributeID {
    cudaLaunchAttributeIgnore = 0,
    cudaLaunchAttributeAccessPolicyWindow = 1,
    cudaLaunchAttributeCooperative = 2,
    cudaLaunchAttributeSynchronizationPolicy = 3,
    cudaLaunchAttributeClusterDimension = 4,
    cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
    cudaLaunchAttributeProgrammaticStreamSerialization = 6,
    cudaLaunchAttributeProgrammaticEvent = 7,
    cudaLaunchAttributePriority = 8,
    cudaLaunchAttributeMemSyncDomainMap = 9,
    cudaLaunchAttributeMemSyncDomain = 10,
    cudaLaunchAttributePreferredClusterDimension = 11
} cudaLaunchAttributeID;

typedef union cudaLaunchAttributeValue {
    char pad[64];
    struct cudaAccessPolicyWindow accessPolicyWindow;
    int cooperative;
    int syncPolicy;
    struct {
        unsigned int x, y, z;
    } clusterDim;
    int clusterSchedulingPolicyPreference;
    int programmaticStreamSerializationAllowed;
    struct {
        cudaEvent_t event;
        int flags;
        int triggerAtBlockStart;
    } programmaticEvent;
    int priority;
    struct {
        unsigned char default_, remote;
    } memSyncDomainMap;
    int memSyncDomain;
    struct {
        unsigned int x, y, z;
    } preferredClusterDim;
} cudaLaunchAttributeValue;

/* cudaLaunchKernelEx's launch: its configuration and attributes (CUDA 12). The
 * simulator takes a cooperative launch, and accepts the hints (priority, L2
 * window, programmatic serialization, memory sync domains) as changing nothing
 * it can show; a cluster of more than one block it refuses
 * (exec/kernel_registry.cpp). */
typedef struct cudaLaunchAttribute_st {
    cudaLaunchAttributeID id;
    char pad[8 - sizeof(cudaLaunchAttributeID)];
    cudaLaunchAttributeValue val;
} cudaLaunchAttribute;

typedef struct cudaLaunchConfig_st {
#ifdef CUDASIM_KERNEL_SOURCE
    /* In a translated file gridDim and blockDim are kernel.h's macros, which name
     * these (the same struct, its fields spelt as a program's config.gridDim reaches them). */
    dim3 cudasim_grid_dim;
    dim3 cudasim_block_dim;
#else
    dim3 gridDim;
    dim3 blockDim;
#endif
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute *attrs;
    unsigned int numAttrs;
} cudaLaunchConfig_t;

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);

#define cudaStreamAttrID cudaLaunchAttributeID
#define cudaStreamAttrValue cudaLaunchAttributeValue
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributePriority cudaLaunchAttributePriority

cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaLaunchAttributeID attr,
                                   const cudaLaunchAttributeValue *value);
cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaLaunchAttributeID attr,
                                   cudaLaunchAttributeValue *value_out);
cudaError_t cudaCtxResetPersistingL2Cache(void);

#endif /* CUDASIM_ACCESS_POLICY_H */
