package model

//go:noescape
func outputGradTileAVX2(blocks int, y *[4]*float32, m *float32, stride int)
