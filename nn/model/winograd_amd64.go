package model

import "golang.org/x/sys/cpu"

// The tile transforms in AVX2 (winograd_amd64.s), for channel counts that
// are a multiple of eight.
var haveAVX2 = cpu.X86.HasAVX2

//go:noescape
func inputTileAVX2(blocks int, d *[16]*float32, v *float32, stride int)

//go:noescape
func outputTileAVX2(blocks int, m *float32, stride int, bias *float32, y, s *[4]*float32, lo float32)
