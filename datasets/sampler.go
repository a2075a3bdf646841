package datasets

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
)

// WindowSize is KataGo's replay window (python/shuffle.py): how many of
// the most recent positions to train on when total have been generated.
// With N = total and m = minRows,
//
//	W(N) = m + expansion · (N^e − m^e) / (e · m^(e−1))   for N > m
//	W(N) = m                                               for N ≤ m
//
// so the window starts at m, grows at first by expansion positions per
// new position (the derivative at N = m is expansion), and then like
// N^e: with e = 0.65 a hundred times the data makes a window about 20
// times longer, so that old positions from weak networks age out while
// the window still grows. The result is rounded down, as KataGo's int().
// minRows below 1 counts as 1; exponent must be in (0, 1].
func WindowSize(total, minRows int, exponent, expansion float64) int {
	m := float64(max(minRows, 1))
	if total <= int(m) {
		return int(m)
	}
	e := exponent
	w := m + expansion*(math.Pow(float64(total), e)-math.Pow(m, e))/(e*math.Pow(m, e-1))
	if w != w || w < m {
		return int(m)
	}
	if w > math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int(w)
}

// Window defaults, KataGo's: a 250,000-position minimum growing like
// N^0.65 at 0.4 positions per position.
const (
	DefaultMinRows   = 250_000
	DefaultExponent  = 0.65
	DefaultExpansion = 0.4
)

// ErrNotEnough is returned by a sampler over fewer positions than the
// window's minimum: training waits for more self-play, as KataGo's does.
var ErrNotEnough = errors.New("datasets: fewer positions than the window's minimum")

// SamplerOption configures a Sampler; an invalid one makes NewSampler fail.
type SamplerOption func(*samplerOptions) error

type samplerOptions struct {
	seed                uint64
	minRows, maxRows    int
	exponent, expansion float64
	mirror              float64
	cacheBlocks         int
	replies             bool
}

// WithSeed seeds the sampler's random numbers: the same seed over the same
// shards draws the same samples.
func WithSeed(seed uint64) SamplerOption {
	return func(o *samplerOptions) error { o.seed = seed; return nil }
}

// WithWindow sets WindowSize's parameters.
func WithWindow(minRows int, exponent, expansion float64) SamplerOption {
	return func(o *samplerOptions) error {
		if minRows < 1 || !(exponent > 0 && exponent <= 1) || !(expansion >= 0) {
			return fmt.Errorf("datasets: window (min %d, exponent %v, expansion %v): want min ≥ 1, exponent in (0, 1], expansion ≥ 0", minRows, exponent, expansion)
		}
		o.minRows, o.exponent, o.expansion = minRows, exponent, expansion
		return nil
	}
}

// WithMaxWindow caps the window at rows positions (KataGo's max-rows); 0
// means no cap.
func WithMaxWindow(rows int) SamplerOption {
	return func(o *samplerOptions) error {
		if rows < 0 {
			return fmt.Errorf("datasets: max window %d is negative", rows)
		}
		o.maxRows = rows
		return nil
	}
}

// WithMirror sets the probability that a sample is mirrored left–right
// (default 0.5; 0 turns augmentation off).
func WithMirror(p float64) SamplerOption {
	return func(o *samplerOptions) error {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("datasets: mirror probability %v outside [0, 1]", p)
		}
		o.mirror = p
		return nil
	}
}

// WithReplies has every sample come with its reply (Sample.Reply): the
// record after it in its shard when that is the same game's next
// position, mirrored with it. Self-play writes a game's positions in
// order, so every position but a game's last has one.
func WithReplies() SamplerOption {
	return func(o *samplerOptions) error { o.replies = true; return nil }
}

// WithBlockCache sets how many decompressed blocks the sampler keeps
// (default 32).
func WithBlockCache(blocks int) SamplerOption {
	return func(o *samplerOptions) error {
		if blocks < 1 {
			return fmt.Errorf("datasets: block cache of %d blocks, want at least 1", blocks)
		}
		o.cacheBlocks = blocks
		return nil
	}
}

// Sample is one drawn training position.
type Sample struct {
	Record
	RuleSet  string // the shard's rule set, name@hash
	Mirrored bool   // Record has been mirrored
	Shard    string // the shard's path
	Index    int64  // the record's index in its shard
	// Reply is the position after the move played, with its search's
	// policy (WithReplies), valid when HasReply: a game's last position
	// has none.
	Reply    Record
	HasReply bool
}

type shardRef struct {
	path  string
	info  ShardInfo
	start int64 // global index of the shard's first record
	r     *Reader
}

type cachedBlock struct {
	shard, block int
	used         uint64
	blk          decodedBlock
}

// Sampler draws positions uniformly at random from the replay window (the
// most recent WindowSize positions) of the shards that the manifests of
// its directories list. It keeps the shards' block indexes and a few
// decompressed blocks in memory, never the data. A Sampler is not safe
// for concurrent use; give each loader goroutine its own, seeded apart.
type Sampler struct {
	dirs   []string
	opt    samplerOptions
	rng    *rand.Rand
	shards []shardRef
	open   map[string]*Reader
	total  int64
	window int64
	cache  []cachedBlock
	tick   uint64
	picks  []pick
}

type pick struct {
	global int64
	slot   int
	mirror bool
}

// NewSampler is a sampler over the shards listed in dirs' manifests;
// positions are ordered by when their shards were listed.
func NewSampler(dirs []string, opts ...SamplerOption) (*Sampler, error) {
	o := samplerOptions{minRows: DefaultMinRows, exponent: DefaultExponent, expansion: DefaultExpansion, mirror: 0.5, cacheBlocks: 32}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("datasets: sampler without directories")
	}
	s := &Sampler{dirs: slices.Clone(dirs), opt: o, rng: rand.New(rand.NewPCG(o.seed, 0x70616c6163650002)), open: map[string]*Reader{}}
	if err := s.Refresh(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Refresh rereads the manifests, so that shards completed since join the
// window, and closes the shards that have left it.
func (s *Sampler) Refresh() error {
	lists := make([][]ShardInfo, len(s.dirs))
	for i, d := range s.dirs {
		m, err := ReadManifest(d)
		if err != nil {
			return err
		}
		lists[i] = m.Shards
	}
	// Merge the directories by the time each shard was listed, keeping
	// each manifest's own order.
	s.shards = s.shards[:0]
	next := make([]int, len(lists))
	var total int64
	for {
		best := -1
		for i, l := range lists {
			if next[i] < len(l) && (best < 0 || l[next[i]].Added.Before(lists[best][next[best]].Added)) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		info := lists[best][next[best]]
		next[best]++
		if info.Records == 0 {
			continue
		}
		s.shards = append(s.shards, shardRef{path: filepath.Join(s.dirs[best], info.Name), info: info, start: total})
		total += info.Records
	}
	s.total = total
	w := int64(WindowSize(int(min(total, math.MaxInt64/2)), s.opt.minRows, s.opt.exponent, s.opt.expansion))
	if s.opt.maxRows > 0 {
		w = min(w, int64(s.opt.maxRows))
	}
	s.window = min(w, total)
	lo := s.total - s.window
	keep := map[string]bool{}
	for i := range s.shards {
		sh := &s.shards[i]
		if sh.start+sh.info.Records > lo {
			keep[sh.path] = true
			sh.r = s.open[sh.path]
		}
	}
	for p, r := range s.open {
		if !keep[p] {
			r.Close()
			delete(s.open, p)
		}
	}
	for i := range s.cache {
		s.cache[i].shard = -1 // shard numbers change with the list
	}
	return nil
}

// Total is the number of positions the manifests list: KataGo's N.
func (s *Sampler) Total() int64 { return s.total }

// Window is the number of most recent positions samples come from.
func (s *Sampler) Window() int64 { return s.window }

// Close closes the open shards.
func (s *Sampler) Close() error {
	var first error
	for p, r := range s.open {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
		delete(s.open, p)
	}
	return first
}

// Next draws one sample into dst.
func (s *Sampler) Next(dst *Sample) error {
	one := [1]Sample{*dst} // shares dst's policy storage
	err := s.Fill(one[:])
	*dst = one[0]
	return err
}

// Fill draws len(dst) samples, each uniform over the window and
// independently mirrored with the mirror probability, reusing dst's
// storage. It reads the samples in file order, so that samples that share
// a block decompress it once.
func (s *Sampler) Fill(dst []Sample) error {
	if s.total < int64(s.opt.minRows) || s.window == 0 {
		return fmt.Errorf("%w: %d positions listed, the window needs %d", ErrNotEnough, s.total, s.opt.minRows)
	}
	lo := s.total - s.window
	s.picks = s.picks[:0]
	for k := range dst {
		g := lo + s.rng.Int64N(s.window)
		s.picks = append(s.picks, pick{global: g, slot: k, mirror: s.rng.Float64() < s.opt.mirror})
	}
	slices.SortFunc(s.picks, func(a, b pick) int { return cmp.Compare(a.global, b.global) })
	for _, p := range s.picks {
		d := &dst[p.slot]
		if err := s.fetch(p.global, d); err != nil {
			return err
		}
		d.Mirrored = p.mirror
		if p.mirror {
			d.Record.Mirror()
		}
		d.HasReply = false
		if s.opt.replies {
			if err := s.fetchReply(p.global, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// fetchReply sets d's reply from the record after global g, when that is
// in the same shard and the same game's next position.
func (s *Sampler) fetchReply(g int64, d *Sample) error {
	si := sort.Search(len(s.shards), func(i int) bool { return s.shards[i].start+s.shards[i].info.Records > g })
	if si == len(s.shards) || g+1 >= s.shards[si].start+s.shards[si].info.Records {
		return nil
	}
	var next Sample
	next.Record = d.Reply // reuses its policy's storage
	if err := s.fetch(g+1, &next); err != nil {
		return err
	}
	d.Reply = next.Record
	if d.Reply.GameID != d.GameID || d.Reply.Ply != d.Ply+1 {
		return nil
	}
	if d.Mirrored {
		d.Reply.Mirror()
	}
	d.HasReply = true
	return nil
}

func (s *Sampler) fetch(g int64, dst *Sample) error {
	si := sort.Search(len(s.shards), func(i int) bool { return s.shards[i].start+s.shards[i].info.Records > g })
	if si == len(s.shards) {
		return fmt.Errorf("datasets: sample %d beyond the %d positions listed", g, s.total)
	}
	sh := &s.shards[si]
	if sh.r == nil {
		r, err := Open(sh.path)
		if err != nil {
			return err
		}
		if r.Len() != sh.info.Records || r.Header().RuleSet() != sh.info.RuleSet {
			r.Close()
			return &FileError{Path: sh.path, Block: -1, Err: fmt.Errorf("%w: %d records of %s, the manifest says %d of %s",
				ErrCorrupt, r.Len(), r.Header().RuleSet(), sh.info.Records, sh.info.RuleSet)}
		}
		sh.r = r
		s.open[sh.path] = r
	}
	idx := g - sh.start
	b, j := sh.r.locate(idx)
	blk, err := s.block(si, b)
	if err != nil {
		return err
	}
	if err := sh.r.parse(blk, j, &dst.Record); err != nil {
		return err
	}
	dst.RuleSet = sh.info.RuleSet
	dst.Shard = sh.path
	dst.Index = idx
	return nil
}

// block is block b of shard si, from the cache or decompressed into the
// least recently used entry.
func (s *Sampler) block(si, b int) (*decodedBlock, error) {
	s.tick++
	victim := -1
	for i := range s.cache {
		c := &s.cache[i]
		if c.shard == si && c.block == b {
			c.used = s.tick
			return &c.blk, nil
		}
		if victim < 0 || c.used < s.cache[victim].used {
			victim = i
		}
	}
	if len(s.cache) < s.opt.cacheBlocks {
		s.cache = append(s.cache, cachedBlock{blk: decodedBlock{index: -1}})
		victim = len(s.cache) - 1
	}
	c := &s.cache[victim]
	c.shard, c.block = -1, -1
	if err := s.shards[si].r.load(b, &c.blk); err != nil {
		return nil, err
	}
	c.shard, c.block, c.used = si, b, s.tick
	return &c.blk, nil
}
