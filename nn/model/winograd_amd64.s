#include "textflag.h"

// AVX2 Winograd F(2×2, 3×3) tile transforms, eight channels at a time
// (winograd_amd64.go); the Go versions in winograd.go are the reference.

// func inputTileAVX2(blocks int, d *[16]*float32, v *float32, stride int)
// v row ξ is at v + ξ·stride floats.
TEXT ·inputTileAVX2(SB), NOSPLIT, $0-32
	MOVQ blocks+0(FP), CX
	MOVQ d+8(FP), DI
	MOVQ v+16(FP), R8
	MOVQ stride+24(FP), R12
	SHLQ $2, R12              // S: a row of v in bytes
	LEAQ (R12)(R12*2), R13    // 3S
	LEAQ (R8)(R12*4), R9      // v + 4S
	LEAQ (R9)(R12*4), R10     // v + 8S
	LEAQ (R10)(R12*4), R11    // v + 12S
	XORQ AX, AX               // byte offset into each input row

// LOADROW loads the four patch points of row r into Y(a)..Y(a+3).
#define LOADROW(r, y0, y1, y2, y3) \
	MOVQ (r*32+0)(DI), R14; VMOVUPS (R14)(AX*1), y0; \
	MOVQ (r*32+8)(DI), R14; VMOVUPS (R14)(AX*1), y1; \
	MOVQ (r*32+16)(DI), R14; VMOVUPS (R14)(AX*1), y2; \
	MOVQ (r*32+24)(DI), R14; VMOVUPS (R14)(AX*1), y3

// VROW turns t (Y0..Y3) into V's row (t0−t2, t1+t2, t2−t1, t1−t3) and
// stores it through base register B.
#define VROW(B) \
	VSUBPS Y2, Y0, Y8; \
	VADDPS Y2, Y1, Y9; \
	VSUBPS Y1, Y2, Y10; \
	VSUBPS Y3, Y1, Y11; \
	VMOVUPS Y8, (B); \
	VMOVUPS Y9, (B)(R12*1); \
	VMOVUPS Y10, (B)(R12*2); \
	VMOVUPS Y11, (B)(R13*1)

inloop:
	TESTQ CX, CX
	JZ    indone
	// Rows of the patch: Y4..Y7 row 1, Y12..Y15 row 2.
	LOADROW(1, Y4, Y5, Y6, Y7)
	LOADROW(2, Y12, Y13, Y14, Y15)
	// t row 0 = d0 − d2
	LOADROW(0, Y0, Y1, Y2, Y3)
	VSUBPS Y12, Y0, Y0
	VSUBPS Y13, Y1, Y1
	VSUBPS Y14, Y2, Y2
	VSUBPS Y15, Y3, Y3
	VROW(R8)
	// t row 1 = d1 + d2
	VADDPS Y12, Y4, Y0
	VADDPS Y13, Y5, Y1
	VADDPS Y14, Y6, Y2
	VADDPS Y15, Y7, Y3
	VROW(R9)
	// t row 2 = d2 − d1
	VSUBPS Y4, Y12, Y0
	VSUBPS Y5, Y13, Y1
	VSUBPS Y6, Y14, Y2
	VSUBPS Y7, Y15, Y3
	VROW(R10)
	// t row 3 = d1 − d3
	LOADROW(3, Y12, Y13, Y14, Y15)
	VSUBPS Y12, Y4, Y0
	VSUBPS Y13, Y5, Y1
	VSUBPS Y14, Y6, Y2
	VSUBPS Y15, Y7, Y3
	VROW(R11)
	ADDQ $32, AX
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	DECQ CX
	JMP  inloop
indone:
	VZEROUPPER
	RET

// func outputTileAVX2(blocks int, m *float32, stride int, bias *float32, y, s *[4]*float32, lo float32)
// Y = Aᵀ M A + bias + s, then max with lo, for rows y[0..3].
TEXT ·outputTileAVX2(SB), NOSPLIT, $0-52
	MOVQ blocks+0(FP), CX
	MOVQ m+8(FP), R8
	MOVQ stride+16(FP), R12
	MOVQ bias+24(FP), BX
	MOVQ y+32(FP), DI
	MOVQ s+40(FP), SI
	SHLQ $2, R12
	LEAQ (R12)(R12*2), R13
	LEAQ (R8)(R12*4), R9
	LEAQ (R9)(R12*4), R10
	LEAQ (R10)(R12*4), R11
	XORQ AX, AX

#define LOADM(B, y0, y1, y2, y3) \
	VMOVUPS (B), y0; \
	VMOVUPS (B)(R12*1), y1; \
	VMOVUPS (B)(R12*2), y2; \
	VMOVUPS (B)(R13*1), y3

// FINISH adds bias (Y6) and s[i], takes the max with lo and stores y[i].
#define FINISH(i, yr) \
	VADDPS Y6, yr, yr; \
	MOVQ (i*8)(SI), R14; VADDPS (R14)(AX*1), yr, yr; \
	VMAXPS Y7, yr, yr; \
	MOVQ (i*8)(DI), R14; VMOVUPS yr, (R14)(AX*1)

outloop:
	TESTQ CX, CX
	JZ    outdone
	LOADM(R9, Y0, Y1, Y2, Y3)       // M row 1
	LOADM(R10, Y4, Y5, Y6, Y7)      // M row 2
	VADDPS Y4, Y0, Y8               // row1 + row2
	VADDPS Y5, Y1, Y9
	VADDPS Y6, Y2, Y10
	VADDPS Y7, Y3, Y11
	VSUBPS Y4, Y0, Y0               // row1 − row2
	VSUBPS Y5, Y1, Y1
	VSUBPS Y6, Y2, Y2
	VSUBPS Y7, Y3, Y3
	LOADM(R8, Y4, Y5, Y6, Y7)       // M row 0
	VADDPS Y4, Y8, Y8               // t0 = row0 + row1 + row2
	VADDPS Y5, Y9, Y9
	VADDPS Y6, Y10, Y10
	VADDPS Y7, Y11, Y11
	LOADM(R11, Y4, Y5, Y6, Y7)      // M row 3
	VSUBPS Y4, Y0, Y0               // t1 = row1 − row2 − row3
	VSUBPS Y5, Y1, Y1
	VSUBPS Y6, Y2, Y2
	VSUBPS Y7, Y3, Y3
	VADDPS Y9, Y8, Y12              // y00 = t00 + t01 + t02
	VADDPS Y10, Y12, Y12
	VSUBPS Y10, Y9, Y13             // y01 = t01 − t02 − t03
	VSUBPS Y11, Y13, Y13
	VADDPS Y1, Y0, Y14              // y10 = t10 + t11 + t12
	VADDPS Y2, Y14, Y14
	VSUBPS Y2, Y1, Y15              // y11 = t11 − t12 − t13
	VSUBPS Y3, Y15, Y15
	VMOVUPS (BX)(AX*1), Y6
	VBROADCASTSS lo+48(FP), Y7
	FINISH(0, Y12)
	FINISH(1, Y13)
	FINISH(2, Y14)
	FINISH(3, Y15)
	ADDQ $32, AX
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	DECQ CX
	JMP  outloop
outdone:
	VZEROUPPER
	RET
