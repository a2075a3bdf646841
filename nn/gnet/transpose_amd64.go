package gnet

import "golang.org/x/sys/cpu"

// haveTransposeAsm: the 8×8 block transpose in AVX2 (transpose_amd64.s),
// for the activations' moves between channel-major and point-major.
var haveTransposeAsm = cpu.X86.HasAVX2

//go:noescape
func transpose8AVX2(src *float32, ss int, dst *float32, ds int, blocks int)
