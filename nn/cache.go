package nn

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/palace-chess/palace/internal/memlimit"
	"github.com/palace-chess/palace/internal/splitmix"
)

// Cache remembers evaluations by Input.Key in a table of fixed size, so a
// position search reaches again (a transposition, the next move's subtree, a
// repeated opening) costs a table lookup instead of a network call.
//
// A Cache is an Evaluator safe for concurrent use by many goroutines. Hits are
// served under a short table lock; the misses of one call go to the backend
// as one batch, under a second lock, because backends serve one goroutine at
// a time. WithBackend gives further Caches on the same table with their own
// backends: the way to put one shared cache in front of many Batcher clients.
//
// Inputs with Key 0 always go to the backend. An entry records the legal
// list's length and a 64-bit hash of it, and a lookup whose list differs is a
// miss, so a hit never returns a policy over other moves (a false match needs
// two lists of the same length under the same key with equal 64-bit hashes).
type Cache struct {
	t       *cacheTable
	backend Evaluator
	mu      sync.Mutex // serialises backend calls and guards in, out
	in      []Input
	out     []Output
	idx     []int
}

// CacheStats counts lookups. Bypassed counts inputs that never consult the
// table: Key 0, or a legal list too long to store.
type CacheStats struct {
	Hits, Misses, Bypassed uint64
	Entries                int // the table's fixed size
}

// HitRate is Hits over the lookups that consulted the table.
func (s CacheStats) HitRate() float64 {
	if s.Hits+s.Misses == 0 {
		return 0
	}
	return float64(s.Hits) / float64(s.Hits+s.Misses)
}

// cacheMovesPerEntry sizes the shared policy store: a xiangqi position has
// about 40 legal moves and a janggi one rarely more than 60, so 64 floats per
// entry keeps nearly every entry's policy until its slot is reused.
const cacheMovesPerEntry = 64

// cacheMinStore is the smallest policy store, so a small table can still hold
// long policies.
const cacheMinStore = 4096

// cacheTable is the shared state. Policies of every length live in one ring
// of float32 instead of a fixed array per entry: memory is fixed and nothing
// is wasted on short lists or refused for long ones. The ring is written at a
// monotonically increasing position head; an entry's policy starts at
// absolute position start and is intact while head-start <= len(ring), after
// which newer policies have overwritten it and the entry reads as a miss.
type cacheTable struct {
	mu       sync.Mutex
	entries  []cacheEntry
	ring     []float32
	head     uint64
	maxMoves int // longer legal lists bypass the table so one cannot flush the ring
	stats    CacheStats
	scratch  sync.Pool // *[]int: indices a call missed, between the two locks
}

type cacheEntry struct {
	key   uint64 // 0: empty
	legal uint64 // hashLegal of the legal list
	start uint64 // absolute ring position of the policy
	n     uint32 // number of legal moves
	wdl   [3]float32
}

// MaxCacheEntries bounds a cache's size in every config and player spec:
// an entry takes about 300 bytes (its key, WDL and a share of the policy
// ring), so this is about 5 GB, where a mistyped size would otherwise run
// the machine out of memory.
const MaxCacheEntries = 1 << 24

// CacheBytes is the memory NewCache takes for entries.
func CacheBytes(entries int) uint64 {
	entries = max(entries, 1)
	return uint64(entries)*uint64(unsafe.Sizeof(cacheEntry{})) + uint64(max(entries*cacheMovesPerEntry, cacheMinStore))*4
}

// CheckCacheMemory refuses a cache of entries that this process has not
// the memory for (internal/memlimit: the address-space and cgroup limits,
// the machine's memory), with the numbers, where NewCache would die with
// the runtime's out of memory. Callers check a size from a user before
// NewCache.
func CheckCacheMemory(entries int) error {
	if err := memlimit.Check(fmt.Sprintf("an evaluation cache of %d entries", entries), CacheBytes(entries)); err != nil {
		return fmt.Errorf("nn: %w", err)
	}
	return nil
}

// NewCache returns a Cache of the given number of entries (at least 1) in
// front of backend. Its memory is fixed: about 300 bytes an entry. backend may
// be nil when the Cache only holds the table for WithBackend; its own Evaluate
// then returns an error.
func NewCache(backend Evaluator, entries int) *Cache {
	entries = max(entries, 1)
	t := &cacheTable{
		entries: make([]cacheEntry, entries),
		ring:    make([]float32, max(entries*cacheMovesPerEntry, cacheMinStore)),
	}
	t.maxMoves = len(t.ring) / 4
	t.stats.Entries = entries
	t.scratch.New = func() any { return new([]int) }
	return &Cache{t: t, backend: backend}
}

// WithBackend returns a Cache that shares c's table (entries and counters)
// but sends its misses to backend. Give each search goroutine its own, over
// its own Batcher client, so hits never wait for a batch.
func (c *Cache) WithBackend(backend Evaluator) *Cache {
	return &Cache{t: c.t, backend: backend}
}

func (c *Cache) InputSize() int {
	if c.backend == nil {
		return 0
	}
	return c.backend.InputSize()
}

func (c *Cache) PolicySize() int {
	if c.backend == nil {
		return 0
	}
	return c.backend.PolicySize()
}

// Stats returns the table's counters (shared by every Cache on the table).
func (c *Cache) Stats() CacheStats {
	c.t.mu.Lock()
	defer c.t.mu.Unlock()
	return c.t.stats
}

var errNoBackend = errors.New("nn: cache has no backend (made for WithBackend only)")

func (c *Cache) Evaluate(in []Input, out []Output) error {
	if c.backend == nil {
		return errNoBackend
	}
	if err := Validate(c.backend.InputSize(), c.backend.PolicySize(), in, out); err != nil {
		return err
	}
	t := c.t
	missp := t.scratch.Get().(*[]int)
	miss := (*missp)[:0]
	t.mu.Lock()
	for i := range in {
		if in[i].Key == 0 || len(in[i].Legal) > t.maxMoves {
			t.stats.Bypassed++
			miss = append(miss, i)
		} else if t.lookup(&in[i], &out[i]) {
			t.stats.Hits++
		} else {
			miss = append(miss, i) // counted below, after the second look
		}
	}
	t.mu.Unlock()
	var err error
	if len(miss) > 0 {
		err = c.fill(in, out, miss)
	}
	*missp = miss
	t.scratch.Put(missp)
	return err
}

// fill evaluates the inputs in miss (indices into in) on the backend.
func (c *Cache) fill(in []Input, out []Output, miss []int) error {
	t := c.t
	c.mu.Lock()
	defer c.mu.Unlock()
	// Look again: while this call waited for the backend, another may have
	// stored the same positions (searches sharing a table meet transpositions).
	c.in, c.out, c.idx = c.in[:0], c.out[:0], c.idx[:0]
	t.mu.Lock()
	for _, i := range miss {
		if in[i].Key != 0 && len(in[i].Legal) <= t.maxMoves {
			if t.lookup(&in[i], &out[i]) {
				t.stats.Hits++
				continue
			}
			t.stats.Misses++
		}
		c.in = append(c.in, in[i])
		// The backend writes the policy straight into the caller's buffer.
		c.out = append(c.out, Output{Policy: out[i].Policy})
		c.idx = append(c.idx, i)
	}
	t.mu.Unlock()
	if len(c.in) == 0 {
		return nil
	}
	err := c.backend.Evaluate(c.in, c.out)
	if err == nil {
		t.mu.Lock()
		for j, i := range c.idx {
			out[i].WDL = c.out[j].WDL
			if in[i].Key != 0 && len(in[i].Legal) <= t.maxMoves {
				t.store(&in[i], &out[i])
			}
		}
		t.mu.Unlock()
	} else {
		err = fmt.Errorf("nn: cache backend: %w", err)
	}
	// Drop references to the caller's slices so the Cache does not keep them alive.
	clear(c.in)
	clear(c.out)
	return err
}

// slot maps a key to an entry. Keys are usually Zobrist hashes already, but
// mixing costs little and protects against keys with structure.
func (t *cacheTable) slot(key uint64) *cacheEntry {
	hi, _ := bits.Mul64(splitmix.Finalize(key), uint64(len(t.entries)))
	return &t.entries[hi]
}

func (t *cacheTable) lookup(x *Input, o *Output) bool {
	e := t.slot(x.Key)
	if e.key != x.Key || int(e.n) != len(x.Legal) || t.head-e.start > uint64(len(t.ring)) {
		return false
	}
	if e.legal != hashLegal(x.Legal) {
		return false
	}
	off := e.start % uint64(len(t.ring))
	copy(o.Policy, t.ring[off:off+uint64(e.n)])
	o.WDL = e.wdl
	return true
}

// store always replaces what the slot held: the newest position is the one
// search is most likely to ask for again.
func (t *cacheTable) store(x *Input, o *Output) {
	n := uint64(len(o.Policy))
	size := uint64(len(t.ring))
	if off := t.head % size; off+n > size {
		t.head += size - off // keep each policy contiguous: skip the ring's tail
	}
	off := t.head % size
	copy(t.ring[off:off+n], o.Policy)
	e := t.slot(x.Key)
	*e = cacheEntry{key: x.Key, legal: hashLegal(x.Legal), start: t.head, n: uint32(n), wdl: o.WDL}
	t.head += n
}

// hashLegal is a polynomial hash mod 2^64 with an odd multiplier, then
// mixed: order matters, and lists differing in one index never collide.
func hashLegal(legal []int32) uint64 {
	h := uint64(len(legal))
	for _, m := range legal {
		h = (h + uint64(uint32(m)) + 1) * 0x9e3779b97f4a7c15
	}
	return splitmix.Finalize(h)
}

// Prefault writes to every page of a new table's memory, which the Go
// runtime takes fresh from the kernel and never touches itself. The first
// write to each page faults; a long run (self-play) calls Prefault at its
// start so that its searches do not take those faults one policy store at a
// time over its first tens of seconds (a 262,144-entry table is some 19,000
// pages: about 0.2 s here, where the stores took a microsecond each). On a
// table that has stored anything it does nothing.
func (c *Cache) Prefault() {
	t := c.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.head != 0 {
		return // the zeros written below would overwrite policies
	}
	const page = 4096
	step := max(page/int(unsafe.Sizeof(cacheEntry{})), 1)
	for i := 0; i < len(t.entries); i += step {
		t.entries[i] = cacheEntry{}
	}
	for i := 0; i < len(t.ring); i += page / 4 {
		t.ring[i] = 0
	}
}
