// Package splitmix derives independent 64-bit seeds from other numbers
// with splitmix64's finaliser, so that every game, batch and match gets
// randomness of its own that is the same in every run.
package splitmix

// Golden is 2^64 divided by the golden ratio, splitmix64's increment.
const Golden = 0x9e3779b97f4a7c15

// Finalize is splitmix64's finaliser: every input bit affects every output
// bit.
func Finalize(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	z ^= z >> 31
	return z
}

// Mix is a seed derived from a (a run's seed) and b (what it is for: a
// generation, a step, a pair).
func Mix(a, b uint64) uint64 {
	return Finalize(a ^ (b+Golden)*0xbf58476d1ce4e5b9)
}
