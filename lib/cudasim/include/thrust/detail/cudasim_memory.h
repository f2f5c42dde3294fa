/*
 * Thrust for the CUDA simulator: memory. device_ptr and device_reference
 * (an element of device memory reached from host code: each read or write a
 * cudaMemcpy, as in Thrust), device_malloc and device_free, device_vector
 * (its elements in one cudaMalloc buffer, so every check of the simulator
 * sees them), host_vector (a std::vector), raw_pointer_cast, the execution
 * policies thrust::host and thrust::device, and thrust::system_error, which
 * a failed device operation throws as Thrust does.
 */
#ifndef CUDASIM_THRUST_MEMORY_H
#define CUDASIM_THRUST_MEMORY_H

#include <cstddef>
#include <iterator>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../../cuda_runtime.h"

#define THRUST_VERSION 300001
#define THRUST_MAJOR_VERSION 3
#define THRUST_MINOR_VERSION 0
#define THRUST_SUBMINOR_VERSION 1

/* Allocations made for the program are reported at its line: the calls that
 * allocate are inlined into it. */
#define CUDASIM_THRUST_ALLOC inline __attribute__((always_inline))

namespace thrust {

namespace system {
/* What Thrust throws when a CUDA call under it fails. */
class system_error : public std::runtime_error {
  public:
    system_error(cudaError_t e, const std::string &what)
        : std::runtime_error(what + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e)),
          error_(e)
    {
    }
    cudaError_t code() const { return error_; }

  private:
    cudaError_t error_;
};
} // namespace system
using system::system_error;

namespace cudasim_detail {
inline void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) throw system_error(e, what);
}
} // namespace cudasim_detail

/* Execution policies: where an algorithm on raw pointers runs. */
struct host_t {};
struct device_t {};
static const host_t host = {};
static const device_t device = {};
/* Sequential execution where the call is made: from host code, the host;
 * in a kernel, that thread. */
static const host_t seq = {};

template <typename T>
class device_ptr;

/* An element of device memory, from host code. */
template <typename T>
class device_reference {
  public:
    typedef typename std::remove_const<T>::type value_type;
    explicit device_reference(T *p) : p_(p) {}
    operator value_type() const
    {
        value_type v;
        cudasim_detail::check(cudaMemcpy(&v, p_, sizeof v, cudaMemcpyDeviceToHost),
                              "device_reference read");
        return v;
    }
    device_reference &operator=(const value_type &v)
    {
        cudasim_detail::check(cudaMemcpy(p_, &v, sizeof v, cudaMemcpyHostToDevice),
                              "device_reference write");
        return *this;
    }
    device_reference &operator=(const device_reference &o) { return *this = (value_type)o; }
    device_ptr<T> operator&() const { return device_ptr<T>(p_); }
    device_reference &operator+=(const value_type &v) { return *this = (value_type) * this + v; }
    device_reference &operator-=(const value_type &v) { return *this = (value_type) * this - v; }
    device_reference &operator*=(const value_type &v) { return *this = (value_type) * this * v; }
    device_reference &operator/=(const value_type &v) { return *this = (value_type) * this / v; }
    device_reference &operator++() { return *this += value_type(1); }
    device_reference &operator--() { return *this -= value_type(1); }
    value_type operator++(int)
    {
        value_type v = *this;
        *this = v + value_type(1);
        return v;
    }

  private:
    T *p_;
};

template <typename T>
std::ostream &operator<<(std::ostream &os, const device_reference<T> &r)
{
    return os << (typename device_reference<T>::value_type)r;
}

/* A pointer to device memory: an iterator over it for Thrust's algorithms. */
template <typename T>
class device_ptr {
  public:
    typedef std::random_access_iterator_tag iterator_category;
    typedef typename std::remove_const<T>::type value_type;
    typedef std::ptrdiff_t difference_type;
    typedef device_ptr pointer;
    typedef device_reference<T> reference;

    device_ptr() : p_(nullptr) {}
    explicit device_ptr(T *p) : p_(p) {}
    template <typename U, typename = typename std::enable_if<std::is_convertible<U *, T *>::value>::type>
    device_ptr(const device_ptr<U> &o) : p_(o.get())
    {
    }
    T *get() const { return p_; }
    reference operator*() const { return reference(p_); }
    reference operator[](difference_type i) const { return reference(p_ + i); }
    device_ptr &operator++() { return ++p_, *this; }
    device_ptr &operator--() { return --p_, *this; }
    device_ptr operator++(int) { return device_ptr(p_++); }
    device_ptr operator--(int) { return device_ptr(p_--); }
    device_ptr &operator+=(difference_type n) { return p_ += n, *this; }
    device_ptr &operator-=(difference_type n) { return p_ -= n, *this; }
    device_ptr operator+(difference_type n) const { return device_ptr(p_ + n); }
    device_ptr operator-(difference_type n) const { return device_ptr(p_ - n); }
    difference_type operator-(const device_ptr &o) const { return p_ - o.p_; }
    bool operator==(const device_ptr &o) const { return p_ == o.p_; }
    bool operator!=(const device_ptr &o) const { return p_ != o.p_; }
    bool operator<(const device_ptr &o) const { return p_ < o.p_; }
    bool operator>(const device_ptr &o) const { return p_ > o.p_; }
    bool operator<=(const device_ptr &o) const { return p_ <= o.p_; }
    bool operator>=(const device_ptr &o) const { return p_ >= o.p_; }

  private:
    T *p_;
};

template <typename T>
device_ptr<T> operator+(std::ptrdiff_t n, const device_ptr<T> &p)
{
    return p + n;
}
template <typename T>
device_ptr<T> device_pointer_cast(T *p)
{
    return device_ptr<T>(p);
}
template <typename T>
device_ptr<T> device_pointer_cast(const device_ptr<T> &p)
{
    return p;
}
template <typename T>
T *raw_pointer_cast(const device_ptr<T> &p)
{
    return p.get();
}
template <typename T>
T *raw_pointer_cast(T *p)
{
    return p;
}

template <typename T>
CUDASIM_THRUST_ALLOC device_ptr<T> device_malloc(std::size_t n)
{
    T *p = nullptr;
    cudasim_detail::check(cudaMalloc((void **)&p, n * sizeof(T)), "device_malloc");
    return device_ptr<T>(p);
}
CUDASIM_THRUST_ALLOC device_ptr<void> device_malloc(std::size_t bytes)
{
    void *p = nullptr;
    cudasim_detail::check(cudaMalloc(&p, bytes), "device_malloc");
    return device_ptr<void>(p);
}
template <typename T>
void device_free(device_ptr<T> p)
{
    cudasim_detail::check(cudaFree((void *)p.get()), "device_free");
}

template <typename T>
class device_vector;
template <typename T>
class host_vector;

namespace cudasim_detail {

/* Where an iterator's elements are: device memory, host memory, or
 * computed (counting and constant iterators, usable with either). */
enum Space { HOST, DEVICE, ANY };
template <typename It, typename = void>
struct space_of {
    static const Space value = HOST;
};
template <typename T>
struct space_of<device_ptr<T>> {
    static const Space value = DEVICE;
};

/* The same elements as a plain iterator of device code: device_ptr<T> as
 * T*, and an iterator made of others (zip, transform, permutation) made of
 * theirs (cudasim_fancy_iterators.h). */
template <typename It, typename = void>
struct Raw {
    typedef It type;
    static It get(const It &it) { return it; }
};
template <typename T>
struct Raw<device_ptr<T>> {
    typedef T *type;
    static T *get(const device_ptr<T> &p) { return p.get(); }
};
template <typename It>
typename Raw<It>::type raw(const It &it)
{
    return Raw<It>::get(it);
}
/* Whether an iterator's elements are plain memory, one after another. */
template <typename It>
struct is_contiguous : std::is_pointer<typename Raw<It>::type> {
};

template <typename It>
struct is_device {
    static const bool value = space_of<It>::value == DEVICE;
};

/* n elements in host memory, for a copy (an array, not a vector: a
 * vector<bool> has no data()). */
template <typename T>
struct HostArray {
    T *p;
    explicit HostArray(std::size_t n) : p(new T[n ? n : 1]) {}
    ~HostArray() { delete[] p; }
    HostArray(const HostArray &) = delete;
    HostArray &operator=(const HostArray &) = delete;
};

/* Copy between host iterators and device memory (one cudaMemcpy). */
template <typename InIt, typename T>
void to_device(InIt first, std::size_t n, T *dst)
{
    if (!n) return;
    HostArray<typename std::remove_const<T>::type> tmp(n);
    for (std::size_t i = 0; i < n; i++, ++first) tmp.p[i] = *first;
    check(cudaMemcpy(dst, tmp.p, n * sizeof(T), cudaMemcpyHostToDevice), "copy to the device");
}
template <typename T, typename OutIt>
OutIt from_device(const T *src, std::size_t n, OutIt out)
{
    if (!n) return out;
    HostArray<typename std::remove_const<T>::type> tmp(n);
    check(cudaMemcpy(tmp.p, src, n * sizeof(T), cudaMemcpyDeviceToHost), "copy from the device");
    for (std::size_t i = 0; i < n; i++) *out++ = tmp.p[i];
    return out;
}

/* n copies of value at p: a kernel (cudasim_algorithms.h). */
template <typename T>
void fill_device(T *p, const T &value, std::size_t n);
/* n elements of a device iterator into device memory at dst: a kernel
 * (cudasim_algorithms.h). */
template <typename It, typename T>
void gather_device(It first, std::size_t n, T *dst);

} // namespace cudasim_detail

/* A vector whose elements are device memory (one cudaMalloc buffer). */
template <typename T>
class device_vector {
  public:
    typedef T value_type;
    typedef std::size_t size_type;
    typedef device_ptr<T> iterator;
    typedef device_ptr<const T> const_iterator;
    typedef device_reference<T> reference;
    typedef device_reference<const T> const_reference;
    typedef device_ptr<T> pointer;

    device_vector() {}
    CUDASIM_THRUST_ALLOC explicit device_vector(size_type n) { resize(n); }
    CUDASIM_THRUST_ALLOC device_vector(size_type n, const T &value) { resize(n, value); }
    CUDASIM_THRUST_ALLOC device_vector(const device_vector &o) { assign_device(o.data_, o.size_); }
    device_vector(device_vector &&o) noexcept { swap(o); }
    CUDASIM_THRUST_ALLOC device_vector(const std::vector<T> &h) { assign_host(h.begin(), h.size()); }
    template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
    CUDASIM_THRUST_ALLOC device_vector(It first, It last)
    {
        assign(first, last);
    }
    ~device_vector() { release(); }

    device_vector &operator=(const device_vector &o)
    {
        if (this != &o) assign_device(o.data_, o.size_);
        return *this;
    }
    device_vector &operator=(device_vector &&o) noexcept
    {
        swap(o);
        return *this;
    }
    device_vector &operator=(const std::vector<T> &h)
    {
        assign_host(h.begin(), h.size());
        return *this;
    }
    template <typename It>
    CUDASIM_THRUST_ALLOC void assign(It first, It last)
    {
        size_type n = (size_type)std::distance(first, last);
        if constexpr (cudasim_detail::is_device<It>::value) {
            device_vector tmp(n);
            copy_within(first, n, tmp.data_);
            swap(tmp);
        } else {
            assign_host(first, n);
        }
    }

    size_type size() const { return size_; }
    size_type capacity() const { return capacity_; }
    bool empty() const { return size_ == 0; }
    iterator begin() { return iterator(data_); }
    iterator end() { return iterator(data_ + size_); }
    const_iterator begin() const { return const_iterator(data_); }
    const_iterator end() const { return const_iterator(data_ + size_); }
    const_iterator cbegin() const { return begin(); }
    const_iterator cend() const { return end(); }
    pointer data() { return pointer(data_); }
    device_ptr<const T> data() const { return device_ptr<const T>(data_); }
    reference operator[](size_type i) { return reference(data_ + i); }
    const_reference operator[](size_type i) const { return const_reference(data_ + i); }
    reference front() { return (*this)[0]; }
    reference back() { return (*this)[size_ - 1]; }

    CUDASIM_THRUST_ALLOC void reserve(size_type n)
    {
        if (n <= capacity_) return;
        T *p = nullptr;
        cudasim_detail::check(cudaMalloc((void **)&p, n * sizeof(T)), "device_vector");
        if (size_)
            cudasim_detail::check(cudaMemcpy(p, data_, size_ * sizeof(T), cudaMemcpyDeviceToDevice),
                                  "device_vector");
        if (data_) cudaFree(data_);
        data_ = p;
        capacity_ = n;
    }
    CUDASIM_THRUST_ALLOC void resize(size_type n, const T &value = T())
    {
        reserve(n);
        if (n > size_) cudasim_detail::fill_device(data_ + size_, value, n - size_);
        size_ = n;
    }
    void clear() { size_ = 0; }
    void shrink_to_fit() {}
    void push_back(const T &v)
    {
        if (size_ == capacity_) reserve(capacity_ ? 2 * capacity_ : 4);
        (*this)[size_++] = v;
    }
    void pop_back() { --size_; }
    void swap(device_vector &o) noexcept
    {
        std::swap(data_, o.data_);
        std::swap(size_, o.size_);
        std::swap(capacity_, o.capacity_);
    }

  private:
    T *data_ = nullptr;
    size_type size_ = 0, capacity_ = 0;

    void release()
    {
        if (data_) cudaFree(data_);
        data_ = nullptr;
        size_ = capacity_ = 0;
    }
    template <typename It>
    CUDASIM_THRUST_ALLOC void assign_host(It first, size_type n)
    {
        device_vector tmp;
        tmp.reserve(n);
        cudasim_detail::to_device(first, n, tmp.data_);
        tmp.size_ = n;
        swap(tmp);
    }
    CUDASIM_THRUST_ALLOC void assign_device(const T *src, size_type n)
    {
        device_vector tmp;
        tmp.reserve(n);
        if (n) cudasim_detail::check(cudaMemcpy(tmp.data_, src, n * sizeof(T), cudaMemcpyDeviceToDevice),
                                     "device_vector copy");
        tmp.size_ = n;
        swap(tmp);
    }
    template <typename It>
    static void copy_within(It first, size_type n, T *dst)
    {
        if constexpr (cudasim_detail::is_contiguous<It>::value) {
            if (n)
                cudasim_detail::check(cudaMemcpy(dst, cudasim_detail::raw(first), n * sizeof(T),
                                                 cudaMemcpyDeviceToDevice),
                                      "device_vector copy");
        } else if (n) {
            cudasim_detail::gather_device(first, n, dst);
        }
    }
};

/* A vector in host memory; constructible from device_vector and device
 * iterators (a copy from the device). */
template <typename T>
class host_vector : public std::vector<T> {
  public:
    using std::vector<T>::vector;
    host_vector() {}
    host_vector(const std::vector<T> &v) : std::vector<T>(v) {}
    host_vector(const device_vector<T> &d) : std::vector<T>(d.size())
    {
        cudasim_detail::from_device(raw_pointer_cast(d.data()), d.size(), this->begin());
    }
    template <typename U>
    host_vector(device_ptr<U> first, device_ptr<U> last) : std::vector<T>(last - first)
    {
        cudasim_detail::from_device(first.get(), this->size(), this->begin());
    }
    host_vector &operator=(const device_vector<T> &d)
    {
        this->resize(d.size());
        cudasim_detail::from_device(raw_pointer_cast(d.data()), d.size(), this->begin());
        return *this;
    }
};

} // namespace thrust

#undef CUDASIM_THRUST_ALLOC

#endif /* CUDASIM_THRUST_MEMORY_H */
