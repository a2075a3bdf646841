#include "textflag.h"

// func outputGradTileAVX2(blocks int, y *[4]*float32, m *float32, stride int)
// One tile's dM = A dY Aᵀ (wgtrain.go's outputGradTile), 8 channels a
// block: y holds the tile's four output gradients, m receives dM's 16
// rows, stride floats apart.
TEXT ·outputGradTileAVX2(SB), NOSPLIT, $0-32
	MOVQ blocks+0(FP), CX
	MOVQ y+8(FP), AX
	MOVQ 0(AX), R8
	MOVQ 8(AX), R9
	MOVQ 16(AX), R10
	MOVQ 24(AX), R11
	MOVQ m+16(FP), DI
	MOVQ stride+24(FP), BX
	SHLQ $2, BX
	VXORPS Y15, Y15, Y15
	TESTQ CX, CX
	JZ   done

loop:
	VMOVUPS (R8), Y0
	VMOVUPS (R9), Y1
	VMOVUPS (R10), Y2
	VMOVUPS (R11), Y3
	VADDPS  Y2, Y0, Y7
	VADDPS  Y3, Y1, Y8
	VSUBPS  Y2, Y0, Y9
	VSUBPS  Y3, Y1, Y10
	VSUBPS  Y2, Y15, Y11
	VSUBPS  Y3, Y15, Y12
	MOVQ    DI, DX
	VADDPS  Y1, Y0, Y4
	VSUBPS  Y1, Y0, Y5
	VSUBPS  Y1, Y15, Y6
	VMOVUPS Y0, (DX)
	ADDQ    BX, DX
	VMOVUPS Y4, (DX)
	ADDQ    BX, DX
	VMOVUPS Y5, (DX)
	ADDQ    BX, DX
	VMOVUPS Y6, (DX)
	ADDQ    BX, DX
	VADDPS  Y8, Y7, Y4
	VSUBPS  Y8, Y7, Y5
	VSUBPS  Y8, Y15, Y6
	VMOVUPS Y7, (DX)
	ADDQ    BX, DX
	VMOVUPS Y4, (DX)
	ADDQ    BX, DX
	VMOVUPS Y5, (DX)
	ADDQ    BX, DX
	VMOVUPS Y6, (DX)
	ADDQ    BX, DX
	VADDPS  Y10, Y9, Y4
	VSUBPS  Y10, Y9, Y5
	VSUBPS  Y10, Y15, Y6
	VMOVUPS Y9, (DX)
	ADDQ    BX, DX
	VMOVUPS Y4, (DX)
	ADDQ    BX, DX
	VMOVUPS Y5, (DX)
	ADDQ    BX, DX
	VMOVUPS Y6, (DX)
	ADDQ    BX, DX
	VADDPS  Y12, Y11, Y4
	VSUBPS  Y12, Y11, Y5
	VSUBPS  Y12, Y15, Y6
	VMOVUPS Y11, (DX)
	ADDQ    BX, DX
	VMOVUPS Y4, (DX)
	ADDQ    BX, DX
	VMOVUPS Y5, (DX)
	ADDQ    BX, DX
	VMOVUPS Y6, (DX)
	ADDQ    BX, DX
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	ADDQ $32, DI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET
