package signing

import (
	"container/heap"
	"errors"
	"sync"
	"time"
)

// DefaultNonceCapacity is the number of live nonces a [NonceCache] holds when
// no capacity is given.
const DefaultNonceCapacity = 100_000

// ErrNonceCacheFull is returned by [NonceCache.Use] when the cache holds as
// many unexpired nonces as it may. The request is refused rather than an
// unexpired nonce forgotten, which would let that nonce be replayed.
var ErrNonceCacheFull = errors.New("nonce cache is full; refusing the request rather than forgetting an unexpired nonce")

// NonceCache remembers the nonces of accepted requests so that a replayed
// request is refused. A nonce is kept only while its timestamp could still
// pass the skew check; after that the timestamp check alone refuses a replay,
// so memory stays bounded by the request rate times the skew window, and by a
// hard capacity. It is safe for concurrent use. The zero value is not usable:
// call [NewNonceCache].
type NonceCache struct {
	mu       sync.Mutex
	capacity int
	until    map[string]time.Time
	byExpiry expiryHeap
}

// NewNonceCache returns an empty cache holding at most capacity unexpired
// nonces (capacity <= 0 means [DefaultNonceCapacity]).
func NewNonceCache(capacity int) *NonceCache {
	if capacity <= 0 {
		capacity = DefaultNonceCapacity
	}
	return &NonceCache{capacity: capacity, until: map[string]time.Time{}}
}

// Use records nonce as used until the time until, and fails with
// [ErrNonceReplayed] if it is already recorded and not yet expired, or with
// [ErrNonceCacheFull]. [VerifyRequest] calls it with until set to the
// signature's timestamp plus the allowed skew. Entries that expired by now are
// dropped first.
func (c *NonceCache) Use(nonce string, until, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.byExpiry) > 0 && !c.byExpiry[0].until.After(now) {
		e := heap.Pop(&c.byExpiry).(nonceEntry)
		delete(c.until, e.nonce)
	}
	if _, ok := c.until[nonce]; ok {
		return ErrNonceReplayed
	}
	if len(c.until) >= c.capacity {
		return ErrNonceCacheFull
	}
	c.until[nonce] = until
	heap.Push(&c.byExpiry, nonceEntry{nonce: nonce, until: until})
	return nil
}

// Len returns how many nonces the cache holds, expired ones not yet dropped
// included.
func (c *NonceCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.until)
}

type nonceEntry struct {
	nonce string
	until time.Time
}

// expiryHeap is a min-heap of entries by expiry, so expired entries are
// found without scanning the whole cache.
type expiryHeap []nonceEntry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].until.Before(h[j].until) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(nonceEntry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
