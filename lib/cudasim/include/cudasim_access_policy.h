/*
 * cudasim_access_policy.h: the L2 cache hints a stream can carry (an access
 * policy window: which bytes should persist in L2), as CUDA 11 and later
 * have them (cuda_runtime_api.h includes it). The simulated device has no L2
 * to set aside (cudaDeviceProp::persistingL2CacheMaxSize is 0), so the hints
 * are kept and reported back but change nothing (api_access_policy.cpp).
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
    cudaLaunchAttributePriority = 8
} cudaLaunchAttributeID;

typedef union cudaLaunchAttributeValue {
    char pad[64];
    struct cudaAccessPolicyWindow accessPolicyWindow;
    int cooperative;
    int syncPolicy;
    int priority;
} cudaLaunchAttributeValue;

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
