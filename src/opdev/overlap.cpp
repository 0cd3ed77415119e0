#include "opdev/overlap.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <utility>

namespace aclnn_cpu {

// Note [Overlap search]
// Both questions are one bounded linear Diophantine problem: do integers x_k in [0, bound_k]
// exist with lo <= sum_k coeff_k * x_k <= hi (every coeff_k > 0)?
//  * Two elements i != i' of one view start at the same address iff j = i - i' != 0 has
//    |j_k| < n_k and sum_k j_k * s_k = 0. j and -j are both solutions, so the first nonzero j_p
//    (in a fixed order of the dims) may be taken positive: one problem per p, with j_k = 0 before
//    p, j_p - 1 in [0, n_p - 2] and j_k + (n_k - 1) in [0, 2(n_k - 1)] after it.
//  * Elements i of a and j of b share a byte iff addr_a(i) - addr_b(j) lies in
//    (-element_bytes_a, element_bytes_b); y = (n - 1) - j turns b's negative coefficients positive.
// The search (Feasible) works on that form. At each node it
//  1. clips [lo, hi] to the reachable [0, sum coeff * bound] and divides everything by the gcd of
//     the coefficients (lo rounds up, hi down): a gcd that skips the target ends the branch;
//  2. merges two unknowns when one coefficient is q times the other and the smaller unknown fills
//     the gaps (bound >= q - 1): coeff_b * (q x_a + x_b) covers [0, q bound_a + bound_b] without a
//     hole, so they act as one. Contiguous and nested dims collapse into a single unknown this way;
//  3. decides one unknown (always feasible after 1) and two unknowns with a narrow target (the
//     extended Euclid algorithm per target value) in closed form;
//  4. otherwise enumerates the values of the unknown with the fewest values left possible by the
//     reach of the others (a dim whose stride exceeds the reach of all the smaller ones has at most
//     two, which is how nested views are peeled), and recurses on the rest.
// Each node is a step; past kMaxOverlapSearchSteps the answer is kUndecided. The problem is
// NP-hard in general (it contains subset sum), so some bound is needed; the usual layouts take a
// handful of steps.

namespace {

/// x in [0, bound] with weight coeff; both > 0 once normalised.
struct Term {  // no default values: Problem's array of them is not zeroed
  int64_t coeff;
  int64_t bound;
};

constexpr int kMaxTerms = 2 * kMaxOverlapViewDims;

/// Is there an x with lo <= sum coeff_k * x_k <= hi? sum coeff_k * bound_k must fit in int64.
struct Problem {
  std::array<Term, kMaxTerms> terms;  ///< the first `count` are set (not zeroed, as NormalView)
  int count = 0;
  int64_t lo = 0;
  int64_t hi = 0;

  void Add(int64_t coeff, int64_t bound) { terms[count++] = {coeff, bound}; }
};

/// Target widths up to this are solved value by value when two unknowns are left.
constexpr int64_t kMaxClosedFormTargets = 64;

int64_t FloorDiv(int64_t a, int64_t b) {  // b > 0
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
int64_t CeilDiv(int64_t a, int64_t b) {  // b > 0
  const int64_t q = a / b;
  return (a % b != 0 && a > 0) ? q + 1 : q;
}

/// Whether c1 x1 + c2 x2 = t for some x1 in [0, m1], x2 in [0, m2] (c1, c2 > 0, t >= 0).
bool TwoTermsHit(int64_t c1, int64_t m1, int64_t c2, int64_t m2, int64_t t) {
  // Extended Euclid: c1 * u = g (mod c2).
  int64_t old_r = c1, r = c2, old_u = 1, u = 0;
  while (r != 0) {
    const int64_t q = old_r / r;
    old_r = std::exchange(r, old_r - q * r);
    old_u = std::exchange(u, old_u - q * u);
  }
  const int64_t g = old_r;
  if (t % g != 0) return false;
  const int64_t period = c2 / g;  // x1 is determined modulo c2 / g
  // x1 = (t / g) * u (mod period); the product needs 128 bits (GCC and Clang have them).
  const int64_t u_mod = ((old_u % period) + period) % period;
  const auto x1_mod = static_cast<int64_t>(static_cast<unsigned __int128>((t / g) % period) *
                                           static_cast<unsigned __int128>(u_mod) % static_cast<unsigned __int128>(period));
  // x2 = (t - c1 x1) / c2 in [0, m2]  <=>  c1 x1 in [t - c2 m2, t].
  const int64_t first = std::max<int64_t>(0, CeilDiv(t - c2 * m2, c1));
  const int64_t last = std::min(m1, FloorDiv(t, c1));
  if (first > last) return false;
  const int64_t x1 = first + (((x1_mod - first) % period) + period) % period;
  return x1 <= last;
}

class Search {
 public:
  explicit Search(int64_t steps) : steps_left_(steps) {}
  /// True when a solution exists; false when none does, or when the steps ran out (exhausted()).
  bool Feasible(Problem p);
  bool exhausted() const { return exhausted_; }

 private:
  /// Steps 1 and 2 of Note [Overlap search]; false when no solution can exist.
  static bool Normalise(Problem& p);

  int64_t steps_left_;
  bool exhausted_ = false;
};

bool Search::Normalise(Problem& p) {
  int kept = 0;
  int64_t reach = 0;
  int64_t g = 0;
  for (int k = 0; k < p.count; ++k) {
    const Term t = p.terms[k];
    if (t.coeff == 0 || t.bound == 0) continue;
    p.terms[kept++] = t;
    reach += t.coeff * t.bound;  // fits: the caller checked the sum of the original problem
    g = std::gcd(g, t.coeff);
  }
  p.count = kept;
  p.lo = std::max<int64_t>(p.lo, 0);
  p.hi = std::min(p.hi, reach);
  if (p.lo > p.hi) return false;
  if (kept == 0) return true;
  p.lo = CeilDiv(p.lo, g);
  p.hi = FloorDiv(p.hi, g);
  if (p.lo > p.hi) return false;
  for (int k = 0; k < kept; ++k) p.terms[k].coeff /= g;
  std::sort(p.terms.begin(), p.terms.begin() + kept, [](const Term& a, const Term& b) { return a.coeff < b.coeff; });
  for (int small = 0; small < p.count; ++small) {
    for (int large = small + 1; large < p.count;) {
      Term& b = p.terms[small];
      const Term& a = p.terms[large];
      const int64_t q = a.coeff / b.coeff;
      if (a.coeff % b.coeff == 0 && q - 1 <= b.bound) {
        b.bound += q * a.bound;  // b.coeff * b.bound stays within the reach
        std::copy(p.terms.begin() + large + 1, p.terms.begin() + p.count, p.terms.begin() + large);
        --p.count;
        large = small + 1;  // b grew: earlier refusals may now merge
      } else {
        ++large;
      }
    }
  }
  return true;
}

bool Search::Feasible(Problem p) {
  if (exhausted_) return false;
  if (--steps_left_ < 0) {
    exhausted_ = true;
    return false;
  }
  if (!Normalise(p)) return false;
  if (p.count <= 1) return true;  // one unknown of coefficient 1 (the gcd) reaches all of [lo, hi]
  if (p.count == 2 && p.hi - p.lo < kMaxClosedFormTargets) {
    const Term a = p.terms[0], b = p.terms[1];
    for (int64_t t = p.lo; t <= p.hi; ++t) {
      if (TwoTermsHit(a.coeff, a.bound, b.coeff, b.bound, t)) return true;
    }
    return false;
  }
  int64_t reach = 0;
  for (int k = 0; k < p.count; ++k) reach += p.terms[k].coeff * p.terms[k].bound;
  // The unknown with the fewest values that the others' reach leaves possible.
  int best = -1;
  int64_t best_first = 0, best_last = -1;
  for (int k = 0; k < p.count; ++k) {
    const Term t = p.terms[k];
    const int64_t others = reach - t.coeff * t.bound;
    const int64_t first = std::max<int64_t>(0, CeilDiv(p.lo - others, t.coeff));
    const int64_t last = std::min(t.bound, FloorDiv(p.hi, t.coeff));
    if (first > last) return false;
    if (best < 0 || last - first < best_last - best_first) {
      best = k;
      best_first = first;
      best_last = last;
    }
  }
  Problem rest = p;
  const Term chosen = p.terms[best];
  std::copy(p.terms.begin() + best + 1, p.terms.begin() + p.count, rest.terms.begin() + best);
  --rest.count;
  for (int64_t x = best_first; x <= best_last; ++x) {
    rest.lo = p.lo - chosen.coeff * x;
    rest.hi = p.hi - chosen.coeff * x;
    if (Feasible(rest)) return true;
    if (exhausted_) return false;
  }
  return false;
}

/// A view's dims of size > 1 as (byte stride >= 0, size), with its lowest byte; false when a
/// byte offset passes 64 bits.
struct NormalView {
  /// A dim: its stride in bytes and its size, ordered by stride, then size.
  struct Dim {
    int64_t stride;
    int64_t size;
    friend bool operator<(const Dim& x, const Dim& y) {
      return x.stride != y.stride ? x.stride < y.stride : x.size < y.size;
    }
  };
  // The first `count` are set. Neither zeroed nor of std::pair (whose constructor zeroes): a
  // call normalizes two views, and zeroing both arrays (1 KiB) was most of the time of an
  // overlap check that the byte ranges settle at once.
  std::array<Dim, kMaxOverlapViewDims> dims;
  int count = 0;
  int64_t lowest = 0;  ///< lowest byte, relative to the first element
  int64_t reach = 0;   ///< sum (size - 1) * |stride| in bytes: the last element starts at lowest + reach
  bool empty = false;
};

bool Normalize(const MemoryView& v, NormalView& out) {
  if (v.dims.size() > static_cast<size_t>(kMaxOverlapViewDims) || v.strides.size() != v.dims.size()) return false;
  for (int64_t d : v.dims) out.empty |= d == 0;
  if (out.empty) return true;
  for (size_t k = 0; k < v.dims.size(); ++k) {
    if (v.dims[k] == 1) continue;
    int64_t stride = 0, span = 0;
    if (__builtin_mul_overflow(v.strides[k], v.element_bytes, &stride)) return false;
    if (stride == INT64_MIN) return false;
    if (__builtin_mul_overflow(v.dims[k] - 1, stride < 0 ? -stride : stride, &span)) return false;
    if (stride < 0 && __builtin_sub_overflow(out.lowest, span, &out.lowest)) return false;
    if (__builtin_add_overflow(out.reach, span, &out.reach)) return false;
    out.dims[out.count++] = {stride < 0 ? -stride : stride, v.dims[k]};
  }
  return true;
}

int64_t AddressOf(const void* p) { return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p)); }

}  // namespace

Overlap InternalOverlap(const MemoryView& view) {
  NormalView v;
  if (!Normalize(view, v)) return Overlap::kUndecided;
  if (v.empty) return Overlap::kNone;
  auto* dims = v.dims.data();
  std::sort(dims, dims + v.count);
  if (v.count > 0 && dims[0].stride == 0) return Overlap::kShared;  // one element again and again
  // Peel the largest strides that pass the reach of all the smaller ones: their j is 0.
  int core = v.count;
  while (core > 1) {
    int64_t below = 0;
    bool overflow = false;
    for (int k = 0; k + 1 < core; ++k) {
      int64_t span = 0;
      overflow |= __builtin_mul_overflow(dims[k].size - 1, dims[k].stride, &span);
      overflow |= __builtin_add_overflow(below, span, &below);
    }
    if (overflow || dims[core - 1].stride <= below) break;
    --core;
  }
  if (core <= 1) return Overlap::kNone;
  Search search(kMaxOverlapSearchSteps);
  for (int p = 0; p < core; ++p) {
    Problem problem;
    int64_t target = -dims[p].stride, reach = 0;  // the search needs sum coeff * bound in int64
    bool overflow = __builtin_mul_overflow(dims[p].size - 2, dims[p].stride, &reach);
    problem.Add(dims[p].stride, dims[p].size - 2);
    for (int k = p + 1; k < core; ++k) {
      int64_t span = 0;
      overflow |= __builtin_mul_overflow(dims[k].size - 1, dims[k].stride, &span);
      overflow |= __builtin_add_overflow(target, span, &target);
      overflow |= __builtin_add_overflow(reach, span, &reach);
      overflow |= __builtin_add_overflow(reach, span, &reach);
      problem.Add(dims[k].stride, 2 * (dims[k].size - 1));
    }
    if (overflow) return Overlap::kUndecided;
    problem.lo = problem.hi = target;
    if (search.Feasible(problem)) return Overlap::kShared;
    if (search.exhausted()) return Overlap::kUndecided;
  }
  return Overlap::kNone;
}

Overlap MutualOverlap(const MemoryView& a, const MemoryView& b) {
  NormalView va, vb;
  if (!Normalize(a, va) || !Normalize(b, vb)) return Overlap::kUndecided;
  if (va.empty || vb.empty) return Overlap::kNone;
  // Byte ranges relative to a's first element: [low_a, high_a] and [low_b, high_b].
  const auto delta = static_cast<int64_t>(static_cast<uint64_t>(AddressOf(b.first)) -
                                          static_cast<uint64_t>(AddressOf(a.first)));
  int64_t low_a = va.lowest, high_a = 0, low_b = 0, high_b = 0;
  bool overflow = __builtin_add_overflow(va.lowest, va.reach, &high_a);
  overflow |= __builtin_add_overflow(high_a, a.element_bytes - 1, &high_a);
  overflow |= __builtin_add_overflow(delta, vb.lowest, &low_b);
  overflow |= __builtin_add_overflow(low_b, vb.reach, &high_b);
  overflow |= __builtin_add_overflow(high_b, b.element_bytes - 1, &high_b);
  if (overflow) return Overlap::kUndecided;
  if (high_a < low_b || high_b < low_a) return Overlap::kNone;
  // Elements share a byte iff addr_a(x) - addr_b(j) in [-(ea - 1), eb - 1], where addr_a(x) =
  // low_a + sum sa x and addr_b(j) = low_b + sum sb j; with y = (n - 1) - j:
  // sum sa x + sum sb y in [low_b - low_a + reach_b - (ea - 1), low_b - low_a + reach_b + (eb - 1)].
  Problem problem;
  for (int k = 0; k < va.count; ++k) problem.Add(va.dims[k].stride, va.dims[k].size - 1);
  for (int k = 0; k < vb.count; ++k) problem.Add(vb.dims[k].stride, vb.dims[k].size - 1);
  int64_t reach = 0, center = 0;  // the search needs sum coeff * bound (= reach_a + reach_b) in int64
  overflow |= __builtin_add_overflow(va.reach, vb.reach, &reach);
  overflow |= __builtin_sub_overflow(low_b, low_a, &center);
  overflow |= __builtin_add_overflow(center, vb.reach, &center);
  overflow |= __builtin_sub_overflow(center, a.element_bytes - 1, &problem.lo);
  overflow |= __builtin_add_overflow(center, b.element_bytes - 1, &problem.hi);
  if (overflow) return Overlap::kUndecided;
  Search search(kMaxOverlapSearchSteps);
  if (search.Feasible(problem)) return Overlap::kShared;
  return search.exhausted() ? Overlap::kUndecided : Overlap::kNone;
}

bool SameView(const MemoryView& a, const MemoryView& b) {
  if (a.first != b.first || a.element_bytes != b.element_bytes) return false;
  size_t ka = 0, kb = 0;
  while (true) {
    while (ka < a.dims.size() && a.dims[ka] == 1) ++ka;
    while (kb < b.dims.size() && b.dims[kb] == 1) ++kb;
    if (ka == a.dims.size() || kb == b.dims.size()) return ka == a.dims.size() && kb == b.dims.size();
    if (a.dims[ka] != b.dims[kb] || a.strides[ka] != b.strides[kb]) return false;
    ++ka;
    ++kb;
  }
}

}  // namespace aclnn_cpu
