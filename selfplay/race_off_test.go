//go:build !race

package selfplay

const raceEnabled = false
