//go:build !race

package mcts

const raceEnabled = false
