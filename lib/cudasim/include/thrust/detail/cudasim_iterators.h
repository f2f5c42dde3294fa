/*
 * Thrust for the CUDA simulator: the computed iterators, counting_iterator
 * (first, first + 1, ...) and constant_iterator (one value), usable with
 * host and device iterators alike.
 */
#ifndef CUDASIM_THRUST_ITERATORS_H
#define CUDASIM_THRUST_ITERATORS_H

#include <cstddef>
#include <iterator>

#include "cudasim_memory.h"

namespace thrust {

/* A random-access iterator over a sequence of values: *it is the value. */
template <typename Derived, typename T>
class cudasim_value_iterator {
  public:
    typedef std::random_access_iterator_tag iterator_category;
    typedef T value_type;
    typedef std::ptrdiff_t difference_type;
    typedef const T *pointer;
    typedef T reference;

    Derived &operator++() { return at_ += 1, self(); }
    Derived &operator--() { return at_ -= 1, self(); }
    Derived operator++(int)
    {
        Derived d = self();
        ++at_;
        return d;
    }
    Derived operator--(int)
    {
        Derived d = self();
        --at_;
        return d;
    }
    Derived &operator+=(difference_type n) { return at_ += n, self(); }
    Derived &operator-=(difference_type n) { return at_ -= n, self(); }
    Derived operator+(difference_type n) const
    {
        Derived d = self();
        return d += n;
    }
    Derived operator-(difference_type n) const
    {
        Derived d = self();
        return d -= n;
    }
    difference_type operator-(const Derived &o) const { return self().pos() - o.pos(); }
    T operator[](difference_type n) const { return *(self() + n); }
    bool operator==(const Derived &o) const { return self().pos() == o.pos(); }
    bool operator!=(const Derived &o) const { return self().pos() != o.pos(); }
    bool operator<(const Derived &o) const { return self().pos() < o.pos(); }
    bool operator>(const Derived &o) const { return self().pos() > o.pos(); }
    bool operator<=(const Derived &o) const { return self().pos() <= o.pos(); }
    bool operator>=(const Derived &o) const { return self().pos() >= o.pos(); }

  protected:
    difference_type at_ = 0;

  private:
    Derived &self() { return static_cast<Derived &>(*this); }
    const Derived &self() const { return static_cast<const Derived &>(*this); }
};

template <typename T>
class counting_iterator : public cudasim_value_iterator<counting_iterator<T>, T> {
  public:
    counting_iterator() : first_() {}
    explicit counting_iterator(T first) : first_(first) {}
    T operator*() const { return static_cast<T>(first_ + this->at_); }
    /* where it is, for the distance between two of them */
    std::ptrdiff_t pos() const { return (std::ptrdiff_t)first_ + this->at_; }

  private:
    T first_;
};

template <typename T>
class constant_iterator : public cudasim_value_iterator<constant_iterator<T>, T> {
  public:
    constant_iterator() : value_() {}
    explicit constant_iterator(T value, std::ptrdiff_t index = 0) : value_(value)
    {
        this->at_ = index;
    }
    T operator*() const { return value_; }
    std::ptrdiff_t pos() const { return this->at_; }

  private:
    T value_;
};

template <typename T>
counting_iterator<T> make_counting_iterator(T first)
{
    return counting_iterator<T>(first);
}
template <typename T>
constant_iterator<T> make_constant_iterator(T value, std::ptrdiff_t index = 0)
{
    return constant_iterator<T>(value, index);
}

namespace cudasim_detail {
template <typename T>
struct space_of<counting_iterator<T>> {
    static const Space value = ANY;
};
template <typename T>
struct space_of<constant_iterator<T>> {
    static const Space value = ANY;
};
} // namespace cudasim_detail

} // namespace thrust

#endif /* CUDASIM_THRUST_ITERATORS_H */
