#include "textflag.h"

// Batch norm's statistics of a point-major block ([point][channel]: a
// Winograd product's output chunk, bnstats.go) in AVX2: eight channels
// over rows ld floats apart, two rows at a time into separate float64
// sums, added at the end in a fixed order: runs repeat exactly.

// func colSumSquaresAVX2(x *float32, rows, ld int, out *[16]float64)
// For the 8 channels at x: out[0:8] = Σx, out[8:16] = Σx².
TEXT ·colSumSquaresAVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ rows+8(FP), CX
	MOVQ ld+16(FP), DX
	MOVQ out+24(FP), DI
	SHLQ $2, DX
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	MOVQ CX, BX
	SHRQ $1, BX
	JZ   cstail

csloop:
	VCVTPS2PD   (SI), Y0
	VCVTPS2PD   16(SI), Y1
	VADDPD      Y0, Y2, Y2
	VADDPD      Y1, Y3, Y3
	VFMADD231PD Y0, Y0, Y4
	VFMADD231PD Y1, Y1, Y5
	VCVTPS2PD   (SI)(DX*1), Y10
	VCVTPS2PD   16(SI)(DX*1), Y11
	VADDPD      Y10, Y6, Y6
	VADDPD      Y11, Y7, Y7
	VFMADD231PD Y10, Y10, Y8
	VFMADD231PD Y11, Y11, Y9
	LEAQ (SI)(DX*2), SI
	DECQ BX
	JNZ  csloop

cstail:
	TESTQ $1, CX
	JZ    csdone
	VCVTPS2PD   (SI), Y0
	VCVTPS2PD   16(SI), Y1
	VADDPD      Y0, Y2, Y2
	VADDPD      Y1, Y3, Y3
	VFMADD231PD Y0, Y0, Y4
	VFMADD231PD Y1, Y1, Y5

csdone:
	VADDPD  Y6, Y2, Y2
	VADDPD  Y7, Y3, Y3
	VADDPD  Y8, Y4, Y4
	VADDPD  Y9, Y5, Y5
	VMOVUPD Y2, 0(DI)
	VMOVUPD Y3, 32(DI)
	VMOVUPD Y4, 64(DI)
	VMOVUPD Y5, 96(DI)
	VZEROUPPER
	RET

