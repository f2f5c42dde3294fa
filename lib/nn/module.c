/* module.c: the module protocol and the Sequential container. */
#include "lib/nn/module.h"

#include <stdlib.h>
#include <string.h>

#include "lib/device/backend.h"
#include "lib/core/err.h"

static void copy_name(char *dst, const char *src)
{
    snprintf(dst, MODULE_NAME_MAX, "%s", src ? src : "");
}

Module *module_alloc(const ModuleOps *ops, const char *name)
{
    Module *m = calloc(1, sizeof *m);
    if (!m) {
        err_set(ERR_NOMEM, "module %s: out of memory", name ? name : "");
        return NULL;
    }
    m->ops = ops;
    m->training = true;
    copy_name(m->name, name);
    snprintf(m->label, sizeof m->label, "%s %s", ops->kind, m->name);
    int64_t empty[2] = {0, 0};
    m->output = tensor_new(DTYPE_F32, device_cpu(), 2, empty);
    m->grad_input = tensor_new(DTYPE_F32, device_cpu(), 2, empty);
    if (!m->output || !m->grad_input) {
        module_free(m);
        err_set(ERR_NOMEM, "module %s: out of memory", name ? name : "");
        return NULL;
    }
    return m;
}

Param *module_add_param(Module *m, const char *name, int ndim, const int64_t *shape)
{
    if (m->n_params == MODULE_MAX_PARAMS) {
        err_set(ERR_ARG, "module %s: more than %d parameters", m->name, MODULE_MAX_PARAMS);
        return NULL;
    }
    Param *p = &m->params[m->n_params];
    copy_name(p->name, name);
    p->value = tensor_new(DTYPE_F32, device_cpu(), ndim, shape);
    p->grad = tensor_new(DTYPE_F32, device_cpu(), ndim, shape);
    if (!p->value || !p->grad) {
        tensor_free(p->value);
        tensor_free(p->grad);
        p->value = p->grad = NULL;
        return NULL;
    }
    m->n_params++;
    return p;
}

void module_free(Module *m)
{
    if (!m) return;
    if (m->ops && m->ops->destroy) m->ops->destroy(m);
    free(m->pre_hooks);
    free(m->hooks);
    free(m->backward_hooks);
    for (int i = 0; i < m->n_children; i++) module_free(m->children[i]);
    free(m->children);
    for (int i = 0; i < m->n_params; i++) {
        tensor_free(m->params[i].value);
        tensor_free(m->params[i].grad);
    }
    tensor_free(m->output);
    tensor_free(m->grad_input);
    free(m);
}

static bool g_grad_enabled = true;

void module_set_grad_enabled(bool enabled) { g_grad_enabled = enabled; }

bool module_grad_enabled(void) { return g_grad_enabled; }

static int add_hook(Module *m, Callable hook, HookHandle *handle, ModuleHook **list, int *n,
                    const char *what)
{
    if (!m) return err_set(ERR_ARG, "registering a %s on a NULL module", what);
    if (!callable_alive(hook))
        return err_set(ERR_ARG, "%s: registering a %s that is not a live callable", m->label,
                       what);
    ModuleHook *bigger = realloc(*list, (size_t)(*n + 1) * sizeof *bigger);
    if (!bigger) return err_set(ERR_NOMEM, "%s: out of memory for a %s", m->label, what);
    *list = bigger;
    bigger[*n].id = ++m->next_hook_id;
    bigger[*n].fn = hook;
    (*n)++;
    if (handle) {
        handle->module = m;
        handle->id = m->next_hook_id;
    }
    return ERR_OK;
}

int module_register_forward_pre_hook(Module *m, Callable hook, HookHandle *handle)
{
    return add_hook(m, hook, handle, &m->pre_hooks, &m->n_pre_hooks, "forward pre-hook");
}

int module_register_forward_hook(Module *m, Callable hook, HookHandle *handle)
{
    return add_hook(m, hook, handle, &m->hooks, &m->n_hooks, "forward hook");
}

int module_register_backward_hook(Module *m, Callable hook, HookHandle *handle)
{
    return add_hook(m, hook, handle, &m->backward_hooks, &m->n_backward_hooks, "backward hook");
}

static bool drop(ModuleHook *list, int *n, uint32_t id)
{
    for (int i = 0; i < *n; i++)
        if (list[i].id == id) {
            memmove(&list[i], &list[i + 1], (size_t)(*n - i - 1) * sizeof *list);
            (*n)--;
            return true;
        }
    return false;
}

int module_remove_hook(HookHandle h)
{
    if (!h.module) return err_set(ERR_ARG, "removing a hook through an empty handle");
    if (drop(h.module->pre_hooks, &h.module->n_pre_hooks, h.id) ||
        drop(h.module->hooks, &h.module->n_hooks, h.id) ||
        drop(h.module->backward_hooks, &h.module->n_backward_hooks, h.id))
        return ERR_OK;
    return err_set(ERR_ARG, "%s: hook %u is not registered (removed twice?)", h.module->label,
                   h.id);
}

int module_call(Module *m, const Tensor *x, const Tensor **y)
{
    if (!m || !x || !y) return err_set(ERR_ARG, "module_call: NULL argument");
    if (m->n_pre_hooks == 0 && m->n_hooks == 0) return module_forward(m, x, y);
    *y = NULL;
    TRY(exercise_result(module_call_hooks(m, x, y), "04.3", "module_call_hooks"));
    if (!*y)
        return err_set(ERR_ARG, "exercise 04.3 module_call_hooks returned 0 for %s without "
                                "setting *y: set it to the output (forward's, or a hook's "
                                "replacement)",
                       m->label);
    return ERR_OK;
}

int module_forward(Module *m, const Tensor *x, const Tensor **y)
{
    if (!m || !x || !y) return err_set(ERR_ARG, "module_forward: NULL argument");
    int rc = m->ops->forward(m, x, y);
    if (!g_grad_enabled) m->input = NULL; /* inference: nothing kept for backward */
    /* (Device errors name the module already: "Linear fc1: expected all ...".) */
    if (rc != ERR_OK && rc != ERR_TODO && rc != ERR_DEVICE && m->n_children == 0)
        return err_context("%s %s forward", m->ops->kind, m->name);
    return rc;
}

int module_backward(Module *m, const Tensor *dy, const Tensor **dx)
{
    if (!m || !dy) return err_set(ERR_ARG, "module_backward: NULL argument");
    if (!m->input)
        return err_set(ERR_ARG, "%s: backward called before forward (or after a forward in "
                                "inference mode, with gradients disabled)",
                       m->label);
    int rc = m->ops->backward(m, dy, dx);
    if (rc != ERR_OK && rc != ERR_TODO && rc != ERR_DEVICE && m->n_children == 0)
        return err_context("%s %s backward", m->ops->kind, m->name);
    /* Its gradients are final for this pass: the backward hooks (Lesson 06's buckets). */
    for (int i = 0; rc == ERR_OK && i < m->n_backward_hooks; i++) {
        Value arg = value_ptr(m), r = value_none();
        rc = callable_call(m->backward_hooks[i].fn, &arg, 1, &r);
        if (rc != ERR_OK) return err_context("backward hook %d of %s", i + 1, m->label);
    }
    return rc;
}

int module_zero_grad(Module *m)
{
    for (int i = 0; i < m->n_params; i++) TRY(tensor_zero(m->params[i].grad));
    for (int i = 0; i < m->n_children; i++) TRY(module_zero_grad(m->children[i]));
    return ERR_OK;
}

Device module_device(const Module *m)
{
    if (m->n_params > 0) return m->params[0].value->device;
    for (int i = 0; i < m->n_children; i++) {
        if (module_parameters((Module *)m->children[i], NULL, 0) > 0)
            return module_device(m->children[i]);
    }
    return device_cpu();
}

/* Every tensor a module owns, in a fixed order: params, grads, then caches. */
static int owned_tensors(Module *m, Tensor ***slots, int cap, int count)
{
    for (int i = 0; i < m->n_params; i++) {
        if (count + 2 <= cap) {
            slots[count] = &m->params[i].value;
            slots[count + 1] = &m->params[i].grad;
        }
        count += 2;
    }
    if (count + 2 <= cap) {
        slots[count] = &m->output;
        slots[count + 1] = &m->grad_input;
    }
    count += 2;
    for (int i = 0; i < m->n_children; i++) count = owned_tensors(m->children[i], slots, cap, count);
    return count;
}

int module_to(Module *m, Device device)
{
    if (device_equal(module_device(m), device) && device_equal(m->output->device, device))
        return ERR_OK;
    int n = owned_tensors(m, NULL, 0, 0);
    Tensor ***slots = malloc((size_t)n * sizeof *slots);
    Tensor **moved = calloc((size_t)n, sizeof *moved);
    if (!slots || !moved) {
        free(slots);
        free(moved);
        return err_set(ERR_NOMEM, "module_to: out of memory");
    }
    owned_tensors(m, slots, n, 0);
    int rc = ERR_OK;
    for (int i = 0; i < n && rc == ERR_OK; i++)
        rc = tensor_to(*slots[i], device, &moved[i]);
    if (rc != ERR_OK) {
        char name[16];
        err_context("moving %s %s to %s", m->ops->kind, m->name,
                    device_str(device, name, sizeof name));
        for (int i = 0; i < n; i++) tensor_free(moved[i]);
    } else {
        for (int i = 0; i < n; i++) {
            tensor_free(*slots[i]);
            *slots[i] = moved[i];
        }
        m->input = NULL;
    }
    free(slots);
    free(moved);
    return rc;
}

void module_train(Module *m, bool training)
{
    m->training = training;
    for (int i = 0; i < m->n_children; i++) module_train(m->children[i], training);
}

static int collect(Module *m, const char *prefix, ParamRef *out, int cap, int count)
{
    for (int i = 0; i < m->n_params; i++, count++) {
        if (count < cap) {
            snprintf(out[count].name, sizeof out[count].name, "%s%s%s", prefix,
                     *prefix ? "." : "", m->params[i].name);
            out[count].param = &m->params[i];
        }
    }
    for (int i = 0; i < m->n_children; i++) {
        char sub[2 * MODULE_NAME_MAX + 1];
        snprintf(sub, sizeof sub, "%s%s%s", prefix, *prefix ? "." : "", m->children[i]->name);
        count = collect(m->children[i], sub, out, cap, count);
    }
    return count;
}

int module_parameters(Module *m, ParamRef *out, int cap)
{
    return collect(m, "", out, cap, 0);
}

Param *module_find_param(Module *m, const char *name)
{
    int n = module_parameters(m, NULL, 0);
    ParamRef *refs = malloc((size_t)(n ? n : 1) * sizeof *refs);
    if (!refs) return NULL;
    module_parameters(m, refs, n);
    Param *found = NULL;
    for (int i = 0; i < n && !found; i++)
        if (strcmp(refs[i].name, name) == 0) found = refs[i].param;
    free(refs);
    return found;
}

int64_t module_num_scalars(Module *m)
{
    int64_t total = 0;
    for (int i = 0; i < m->n_params; i++) total += m->params[i].value->numel;
    for (int i = 0; i < m->n_children; i++) total += module_num_scalars(m->children[i]);
    return total;
}

static void print_tree(const Module *m, FILE *out, int depth)
{
    char extra[160] = "";
    if (m->ops->extra_repr) m->ops->extra_repr(m, extra, sizeof extra);
    if (m->n_children == 0) {
        fprintf(out, "%s(%s)", m->ops->kind, extra);
        return;
    }
    fprintf(out, "%s(\n", m->ops->kind);
    for (int i = 0; i < m->n_children; i++) {
        fprintf(out, "%*s(%s): ", 2 * (depth + 1), "", m->children[i]->name);
        print_tree(m->children[i], out, depth + 1);
        fputc('\n', out);
    }
    fprintf(out, "%*s)", 2 * depth, "");
}

void module_print(const Module *m, FILE *out)
{
    print_tree(m, out, 0);
    fputc('\n', out);
}

/* ---- Sequential ------------------------------------------------------- */

static int sequential_forward(Module *self, const Tensor *x, const Tensor **y)
{
    const Tensor *h = x;
    /* Children are called, not forwarded: their hooks run (nn.Sequential calls module(x)). */
    for (int i = 0; i < self->n_children; i++) TRY(module_call(self->children[i], h, &h));
    self->input = x;
    *y = h;
    return ERR_OK;
}

static int sequential_backward(Module *self, const Tensor *dy, const Tensor **dx)
{
    const Tensor *g = dy;
    for (int i = self->n_children - 1; i >= 0; i--) {
        /* The first child's input gradient is only needed if our caller wants it. */
        const Tensor **want = (i > 0 || dx) ? &g : NULL;
        TRY(module_backward(self->children[i], g, want));
    }
    if (dx) *dx = g;
    return ERR_OK;
}

static const ModuleOps sequential_ops = {
    .kind = "Sequential",
    .forward = sequential_forward,
    .backward = sequential_backward,
};

Module *sequential_new(const char *name, int n, Module **children)
{
    Module *m = NULL;
    for (int i = 0; i < n; i++)
        if (!children[i]) {
            err_context("Sequential %s: child %d could not be made", name ? name : "", i);
            goto fail;
        }
    m = module_alloc(&sequential_ops, name);
    if (!m) goto fail;
    m->children = malloc((size_t)(n ? n : 1) * sizeof *m->children);
    if (!m->children) {
        err_set(ERR_NOMEM, "Sequential %s: out of memory", m->name);
        goto fail;
    }
    memcpy(m->children, children, (size_t)n * sizeof *children);
    m->n_children = n;
    return m;
fail:
    module_free(m); /* has no children yet: they are freed below */
    for (int i = 0; i < n; i++) module_free(children[i]);
    return NULL;
}
