package loadtest

import (
	"math/bits"
	"time"
)

// subBits sets the histogram's precision: each power of two is split into
// 2^subBits buckets, so a recorded value is known to within 1/2^subBits of
// itself (below 1%), whatever its magnitude, as in an HDR histogram.
const subBits = 7

const subCount = 1 << subBits

// Histogram records durations in log-linear buckets: values below
// 2^subBits nanoseconds exactly, larger ones with a relative error below
// 1/2^subBits. The exact minimum, maximum and sum are kept beside. The zero
// value is empty and ready; it is not safe for concurrent use (each worker
// keeps its own and they are merged).
type Histogram struct {
	counts   []uint64
	n        uint64
	sum      time.Duration
	min, max time.Duration
}

// bucket is the index of v's bucket.
func bucket(v uint64) int {
	if v < subCount {
		return int(v)
	}
	shift := bits.Len64(v) - 1 - subBits
	return shift*subCount + int(v>>uint(shift))
}

// bucketValue is the middle of bucket i's range of values.
func bucketValue(i int) uint64 {
	if i < subCount {
		return uint64(i)
	}
	shift := i/subCount - 1
	low := uint64(i-shift*subCount) << uint(shift)
	return low + (uint64(1)<<uint(shift))/2
}

// Record adds one duration; negative ones count as zero.
func (h *Histogram) Record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	i := bucket(uint64(d))
	if i >= len(h.counts) {
		grown := make([]uint64, i+1)
		copy(grown, h.counts)
		h.counts = grown
	}
	h.counts[i]++
	if h.n == 0 || d < h.min {
		h.min = d
	}
	if d > h.max {
		h.max = d
	}
	h.n++
	h.sum += d
}

// Merge adds every value recorded in o.
func (h *Histogram) Merge(o *Histogram) {
	if o.n == 0 {
		return
	}
	if len(o.counts) > len(h.counts) {
		grown := make([]uint64, len(o.counts))
		copy(grown, h.counts)
		h.counts = grown
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	if o.max > h.max {
		h.max = o.max
	}
	h.n += o.n
	h.sum += o.sum
}

// Count is the number of values recorded.
func (h *Histogram) Count() uint64 { return h.n }

// Min and Max are the exact extremes, zero when empty.
func (h *Histogram) Min() time.Duration { return h.min }

// Max is the largest value recorded, zero when empty.
func (h *Histogram) Max() time.Duration { return h.max }

// Mean is the exact mean, zero when empty.
func (h *Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return h.sum / time.Duration(h.n)
}

// Quantile returns the value at quantile q (0 < q <= 1): the smallest
// bucket value with at least q of the values at or below it, clamped to
// the exact extremes. Zero when empty.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.5)
	if rank < 1 {
		rank = 1
	}
	if rank > h.n {
		rank = h.n
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			v := time.Duration(bucketValue(i))
			return min(max(v, h.min), h.max)
		}
	}
	return h.max
}
