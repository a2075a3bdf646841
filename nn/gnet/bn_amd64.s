#include "textflag.h"

// Batch norm's float32 loops in AVX2 + FMA, eight values an iteration
// (n a multiple of 8). Sums are kept in float64, in two running sums of
// four lanes each, reduced in a fixed order: runs repeat exactly.

// func sumSquaresAVX2(x *float32, n int, out *[2]float64)
// out[0] = Σx, out[1] = Σx².
TEXT ·sumSquaresAVX2(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ out+16(FP), DI
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	SHRQ $3, CX
	JZ   ssdone

ssloop:
	VCVTPS2PD (SI), Y0
	VCVTPS2PD 16(SI), Y1
	VADDPD    Y0, Y2, Y2
	VADDPD    Y1, Y3, Y3
	VFMADD231PD Y0, Y0, Y4
	VFMADD231PD Y1, Y1, Y5
	ADDQ $32, SI
	DECQ CX
	JNZ  ssloop

ssdone:
	VADDPD       Y3, Y2, Y2
	VEXTRACTF128 $1, Y2, X3
	VADDPD       X3, X2, X2
	VHADDPD      X2, X2, X2
	MOVSD        X2, 0(DI)
	VADDPD       Y5, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VADDPD       X5, X4, X4
	VHADDPD      X4, X4, X4
	MOVSD        X4, 8(DI)
	VZEROUPPER
	RET

// func affineReLUAVX2(x, skip, y *float32, n int, a, b float32)
// y = max(a·x + b [+ skip], 0), +0 where that is −0; skip may be nil.
TEXT ·affineReLUAVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ skip+8(FP), BX
	MOVQ y+16(FP), DI
	MOVQ n+24(FP), CX
	VBROADCASTSS a+32(FP), Y6
	VBROADCASTSS b+36(FP), Y7
	VXORPS Y5, Y5, Y5
	SHRQ $3, CX
	JZ   afdone
	TESTQ BX, BX
	JZ   afnoskip

afskip:
	VMOVUPS     (SI), Y0
	VFMADD213PS Y7, Y6, Y0 // a·x + b
	VADDPS      (BX), Y0, Y0
	VMAXPS      Y0, Y5, Y0 // a NaN passes as NaN
	VADDPS      Y5, Y0, Y0 // −0 + 0 = +0
	VMOVUPS     Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $32, DI
	DECQ CX
	JNZ  afskip
	JMP  afdone

afnoskip:
	VMOVUPS     (SI), Y0
	VFMADD213PS Y7, Y6, Y0
	VMAXPS      Y0, Y5, Y0
	VADDPS      Y5, Y0, Y0
	VMOVUPS     Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  afnoskip

afdone:
	VZEROUPPER
	RET

// func maskSumDotAVX2(y, dy, x, dz *float32, n int, out *[2]float64)
// dz = dy where y > 0, else 0; out[0] = Σdz, out[1] = Σdz·x.
TEXT ·maskSumDotAVX2(SB), NOSPLIT, $0-48
	MOVQ y+0(FP), AX
	MOVQ dy+8(FP), BX
	MOVQ x+16(FP), SI
	MOVQ dz+24(FP), DI
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), DX
	VXORPS Y15, Y15, Y15
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	SHRQ $3, CX
	JZ   msdone

msloop:
	VMOVUPS      (AX), Y0
	VCMPPS       $0x1e, Y15, Y0, Y0 // y > 0 (ordered)
	VANDPS       (BX), Y0, Y1
	VMOVUPS      Y1, (DI)
	VMOVUPS      (SI), Y2
	VCVTPS2PD    X1, Y3
	VEXTRACTF128 $1, Y1, X4
	VCVTPS2PD    X4, Y4
	VCVTPS2PD    X2, Y5
	VEXTRACTF128 $1, Y2, X6
	VCVTPS2PD    X6, Y6
	VADDPD       Y3, Y8, Y8
	VADDPD       Y4, Y9, Y9
	VFMADD231PD  Y3, Y5, Y10
	VFMADD231PD  Y4, Y6, Y11
	ADDQ $32, AX
	ADDQ $32, BX
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  msloop

msdone:
	VADDPD       Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD       X9, X8, X8
	VHADDPD      X8, X8, X8
	MOVSD        X8, 0(DX)
	VADDPD       Y11, Y10, Y10
	VEXTRACTF128 $1, Y10, X11
	VADDPD       X11, X10, X10
	VHADDPD      X10, X10, X10
	MOVSD        X10, 8(DX)
	VZEROUPPER
	RET

// func axpbycAVX2(dz, x, dx *float32, n int, a, b, c float32)
// dx = a·dz + b·x + c.
TEXT ·axpbycAVX2(SB), NOSPLIT, $0-44
	MOVQ dz+0(FP), SI
	MOVQ x+8(FP), BX
	MOVQ dx+16(FP), DI
	MOVQ n+24(FP), CX
	VBROADCASTSS a+32(FP), Y5
	VBROADCASTSS b+36(FP), Y6
	VBROADCASTSS c+40(FP), Y7
	SHRQ $3, CX
	JZ   axdone

axloop:
	VMOVUPS     (SI), Y0
	VMOVUPS     (BX), Y1
	VMOVAPS     Y7, Y2
	VFMADD231PS Y1, Y6, Y2 // c + b·x
	VFMADD231PS Y0, Y5, Y2 // + a·dz
	VMOVUPS     Y2, (DI)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $32, DI
	DECQ CX
	JNZ  axloop

axdone:
	VZEROUPPER
	RET
