//go:build !race

package gnet

const raceEnabled = false
