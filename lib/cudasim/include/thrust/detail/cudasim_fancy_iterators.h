/*
 * Thrust for the CUDA simulator: the iterators made of other iterators.
 * zip_iterator (a tuple of iterators moving together; an element is a
 * tuple of their elements), transform_iterator (f of the element),
 * permutation_iterator (the elements of one iterator in the order another
 * gives), reverse_iterator, and discard_iterator (writes that go nowhere),
 * with their make_ functions and make_zip_function. An iterator made of
 * device iterators is a device iterator, so an algorithm given it runs as a
 * kernel and reaches the elements through the simulator's checked memory;
 * made of host iterators, a host one (mixing the two is refused when
 * compiled, as an algorithm given both is).
 */
#ifndef CUDASIM_THRUST_FANCY_ITERATORS_H
#define CUDASIM_THRUST_FANCY_ITERATORS_H

#include <cstddef>
#include <iterator>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cudasim_iterators.h"
#include "cudasim_memory.h"
#include "cudasim_tuple.h"

namespace thrust {

/* A template argument left to its default (transform_iterator's Reference
 * and Value). */
struct use_default {
};

namespace cudasim_detail {
template <typename It>
using reference_of = decltype(*std::declval<const It &>());
template <typename It>
struct element_of {
    typedef typename std::remove_cv<typename std::iterator_traits<It>::value_type>::type type;
};
/* The space of iterators taken together (HOST and DEVICE: refused). */
template <typename... It>
struct space_of_all {
    static const bool device = (false || ... || (space_of<It>::value == DEVICE));
    static const bool host = (false || ... || (space_of<It>::value == HOST));
    static_assert(!(device && host), "an iterator of Thrust made of iterators in host memory and in "
                                     "device memory: put the data on one side first (thrust::copy)");
    static const Space value = device ? DEVICE : host ? HOST : ANY;
};
} // namespace cudasim_detail

/* ---- zip_iterator ---- */

template <typename IteratorTuple>
class zip_iterator;

template <typename... It>
class zip_iterator<std::tuple<It...>> {
  public:
    typedef std::random_access_iterator_tag iterator_category;
    typedef std::tuple<typename cudasim_detail::element_of<It>::type...> value_type;
    typedef std::ptrdiff_t difference_type;
    typedef std::tuple<cudasim_detail::reference_of<It>...> reference;
    typedef value_type *pointer;
    typedef std::tuple<It...> iterator_tuple;

    zip_iterator() = default;
    zip_iterator(const iterator_tuple &its) : its_(its) {}
    template <typename... U, typename = typename std::enable_if<
                                 (true && ... && std::is_convertible<U, It>::value)>::type>
    zip_iterator(const zip_iterator<std::tuple<U...>> &o) : its_(o.get_iterator_tuple())
    {
    }
    const iterator_tuple &get_iterator_tuple() const { return its_; }

    reference operator*() const { return at(0); }
    reference operator[](difference_type n) const { return at(n); }
    zip_iterator &operator+=(difference_type n)
    {
        std::apply([n](It &...it) { ((void)(it += n), ...); }, its_);
        return *this;
    }
    zip_iterator &operator-=(difference_type n) { return *this += -n; }
    zip_iterator &operator++() { return *this += 1; }
    zip_iterator &operator--() { return *this += -1; }
    zip_iterator operator++(int)
    {
        zip_iterator old = *this;
        *this += 1;
        return old;
    }
    zip_iterator operator--(int)
    {
        zip_iterator old = *this;
        *this += -1;
        return old;
    }
    zip_iterator operator+(difference_type n) const
    {
        zip_iterator z = *this;
        return z += n;
    }
    zip_iterator operator-(difference_type n) const
    {
        zip_iterator z = *this;
        return z += -n;
    }
    difference_type operator-(const zip_iterator &o) const { return std::get<0>(its_) - std::get<0>(o.its_); }
    bool operator==(const zip_iterator &o) const { return std::get<0>(its_) == std::get<0>(o.its_); }
    bool operator!=(const zip_iterator &o) const { return !(*this == o); }
    bool operator<(const zip_iterator &o) const { return (*this - o) < 0; }
    bool operator>(const zip_iterator &o) const { return (*this - o) > 0; }
    bool operator<=(const zip_iterator &o) const { return (*this - o) <= 0; }
    bool operator>=(const zip_iterator &o) const { return (*this - o) >= 0; }

  private:
    iterator_tuple its_;
    reference at(difference_type n) const
    {
        return std::apply([n](const It &...it) { return reference(it[n]...); }, its_);
    }
};

template <typename... It>
zip_iterator<std::tuple<It...>> operator+(std::ptrdiff_t n, const zip_iterator<std::tuple<It...>> &z)
{
    return z + n;
}
template <typename... It>
zip_iterator<std::tuple<It...>> make_zip_iterator(const std::tuple<It...> &its)
{
    return zip_iterator<std::tuple<It...>>(its);
}
template <typename... It>
zip_iterator<std::tuple<It...>> make_zip_iterator(It... its)
{
    return zip_iterator<std::tuple<It...>>(std::make_tuple(its...));
}

/* f(a, b, ...) called with a tuple (a, b, ...): for zip_iterator's elements. */
template <typename F>
class zip_function {
  public:
    zip_function() = default;
    zip_function(F f) : f_(f) {}
    template <typename Tuple>
    auto operator()(Tuple &&t) const -> decltype(std::apply(std::declval<const F &>(), std::forward<Tuple>(t)))
    {
        return std::apply(f_, std::forward<Tuple>(t));
    }
    const F &underlying_function() const { return f_; }

  private:
    F f_;
};
template <typename F>
zip_function<typename std::decay<F>::type> make_zip_function(F &&f)
{
    return zip_function<typename std::decay<F>::type>(std::forward<F>(f));
}

/* ---- transform_iterator ---- */

template <typename F, typename Iterator, typename Reference = use_default, typename Value = use_default>
class transform_iterator {
    typedef decltype(std::declval<F &>()(std::declval<cudasim_detail::reference_of<Iterator>>())) result;

  public:
    typedef std::random_access_iterator_tag iterator_category;
    typedef typename std::conditional<std::is_same<Reference, use_default>::value, result, Reference>::type
        reference;
    typedef typename std::conditional<std::is_same<Value, use_default>::value,
                                      typename std::remove_cv<typename std::remove_reference<reference>::type>::type,
                                      Value>::type value_type;
    typedef std::ptrdiff_t difference_type;
    typedef value_type *pointer;

    transform_iterator(Iterator it, F f) : it_(it), f_(f) {}
    transform_iterator(const transform_iterator &o) : it_(o.it_), f_(o.f_) {}
    /* (a lambda cannot be assigned: the functor is made again) */
    transform_iterator &operator=(const transform_iterator &o)
    {
        if (this != &o) {
            it_ = o.it_;
            f_.~F();
            new (&f_) F(o.f_);
        }
        return *this;
    }
    ~transform_iterator() {}
    Iterator base() const { return it_; }
    F functor() const { return f_; }

    reference operator*() const { return f_(*it_); }
    reference operator[](difference_type n) const { return f_(it_[n]); }
    transform_iterator &operator+=(difference_type n) { return it_ += n, *this; }
    transform_iterator &operator-=(difference_type n) { return it_ -= n, *this; }
    transform_iterator &operator++() { return ++it_, *this; }
    transform_iterator &operator--() { return --it_, *this; }
    transform_iterator operator++(int) { return transform_iterator(it_++, f_); }
    transform_iterator operator--(int) { return transform_iterator(it_--, f_); }
    transform_iterator operator+(difference_type n) const { return transform_iterator(it_ + n, f_); }
    transform_iterator operator-(difference_type n) const { return transform_iterator(it_ - n, f_); }
    difference_type operator-(const transform_iterator &o) const { return it_ - o.it_; }
    bool operator==(const transform_iterator &o) const { return it_ == o.it_; }
    bool operator!=(const transform_iterator &o) const { return it_ != o.it_; }
    bool operator<(const transform_iterator &o) const { return it_ < o.it_; }
    bool operator>(const transform_iterator &o) const { return it_ > o.it_; }
    bool operator<=(const transform_iterator &o) const { return it_ <= o.it_; }
    bool operator>=(const transform_iterator &o) const { return it_ >= o.it_; }

  private:
    Iterator it_;
    mutable F f_;
};

template <typename F, typename Iterator>
transform_iterator<F, Iterator> make_transform_iterator(Iterator it, F f)
{
    return transform_iterator<F, Iterator>(it, f);
}

/* ---- permutation_iterator ---- */

template <typename ElementIterator, typename IndexIterator>
class permutation_iterator {
  public:
    typedef std::random_access_iterator_tag iterator_category;
    typedef typename cudasim_detail::element_of<ElementIterator>::type value_type;
    typedef cudasim_detail::reference_of<ElementIterator> reference;
    typedef std::ptrdiff_t difference_type;
    typedef value_type *pointer;

    permutation_iterator() = default;
    permutation_iterator(ElementIterator e, IndexIterator i) : elements_(e), index_(i) {}
    ElementIterator element_iterator() const { return elements_; }
    IndexIterator base() const { return index_; }
    IndexIterator index_iterator() const { return index_; }

    reference operator*() const { return elements_[*index_]; }
    reference operator[](difference_type n) const { return elements_[index_[n]]; }
    permutation_iterator &operator+=(difference_type n) { return index_ += n, *this; }
    permutation_iterator &operator-=(difference_type n) { return index_ -= n, *this; }
    permutation_iterator &operator++() { return ++index_, *this; }
    permutation_iterator &operator--() { return --index_, *this; }
    permutation_iterator operator++(int) { return permutation_iterator(elements_, index_++); }
    permutation_iterator operator--(int) { return permutation_iterator(elements_, index_--); }
    permutation_iterator operator+(difference_type n) const { return permutation_iterator(elements_, index_ + n); }
    permutation_iterator operator-(difference_type n) const { return permutation_iterator(elements_, index_ - n); }
    difference_type operator-(const permutation_iterator &o) const { return index_ - o.index_; }
    bool operator==(const permutation_iterator &o) const { return index_ == o.index_; }
    bool operator!=(const permutation_iterator &o) const { return index_ != o.index_; }
    bool operator<(const permutation_iterator &o) const { return index_ < o.index_; }
    bool operator>(const permutation_iterator &o) const { return index_ > o.index_; }
    bool operator<=(const permutation_iterator &o) const { return index_ <= o.index_; }
    bool operator>=(const permutation_iterator &o) const { return index_ >= o.index_; }

  private:
    ElementIterator elements_;
    IndexIterator index_;
};

template <typename ElementIterator, typename IndexIterator>
permutation_iterator<ElementIterator, IndexIterator> make_permutation_iterator(ElementIterator e, IndexIterator i)
{
    return permutation_iterator<ElementIterator, IndexIterator>(e, i);
}

/* ---- reverse_iterator ---- */

template <typename Iterator>
using reverse_iterator = std::reverse_iterator<Iterator>;
template <typename Iterator>
std::reverse_iterator<Iterator> make_reverse_iterator(Iterator it)
{
    return std::reverse_iterator<Iterator>(it);
}

/* ---- discard_iterator ---- */

namespace cudasim_detail {
/* What a discard_iterator's element is: anything may be assigned to it. */
struct any_assign {
    template <typename T>
    const any_assign &operator=(const T &) const
    {
        return *this;
    }
};
} // namespace cudasim_detail

template <typename System = use_default>
class discard_iterator
    : public cudasim_value_iterator<discard_iterator<System>, cudasim_detail::any_assign> {
  public:
    discard_iterator() {}
    explicit discard_iterator(std::ptrdiff_t index) { this->at_ = index; }
    cudasim_detail::any_assign operator*() const { return cudasim_detail::any_assign(); }
    std::ptrdiff_t pos() const { return this->at_; }
};
inline discard_iterator<> make_discard_iterator(std::ptrdiff_t index = 0)
{
    return discard_iterator<>(index);
}

/* ---- where they are, and what device code iterates with ---- */

namespace cudasim_detail {
template <typename... It>
struct space_of<zip_iterator<std::tuple<It...>>> {
    static const Space value = space_of_all<It...>::value;
};
template <typename F, typename It, typename R, typename V>
struct space_of<transform_iterator<F, It, R, V>> {
    static const Space value = space_of<It>::value;
};
template <typename E, typename I>
struct space_of<permutation_iterator<E, I>> {
    static const Space value = space_of_all<E, I>::value;
};
template <typename It>
struct space_of<std::reverse_iterator<It>> {
    static const Space value = space_of<It>::value;
};
template <typename S>
struct space_of<discard_iterator<S>> {
    static const Space value = ANY;
};

template <typename... It>
struct Raw<zip_iterator<std::tuple<It...>>> {
    typedef zip_iterator<std::tuple<typename Raw<It>::type...>> type;
    static type get(const zip_iterator<std::tuple<It...>> &z)
    {
        return type(std::apply([](const It &...it) { return std::make_tuple(Raw<It>::get(it)...); },
                               z.get_iterator_tuple()));
    }
};
template <typename F, typename It, typename R, typename V>
struct Raw<transform_iterator<F, It, R, V>> {
    typedef transform_iterator<F, typename Raw<It>::type, R, V> type;
    static type get(const transform_iterator<F, It, R, V> &t) { return type(Raw<It>::get(t.base()), t.functor()); }
};
template <typename E, typename I>
struct Raw<permutation_iterator<E, I>> {
    typedef permutation_iterator<typename Raw<E>::type, typename Raw<I>::type> type;
    static type get(const permutation_iterator<E, I> &p)
    {
        return type(Raw<E>::get(p.element_iterator()), Raw<I>::get(p.index_iterator()));
    }
};
template <typename It>
struct Raw<std::reverse_iterator<It>> {
    typedef std::reverse_iterator<typename Raw<It>::type> type;
    static type get(const std::reverse_iterator<It> &r) { return type(Raw<It>::get(r.base())); }
};
} // namespace cudasim_detail

} // namespace thrust

#endif /* CUDASIM_THRUST_FANCY_ITERATORS_H */
