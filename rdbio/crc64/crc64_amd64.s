#include "textflag.h"

// func fold(crc uint64, p []byte, k *[6]uint64, wide bool) (lo, hi uint64)
//
// Four lanes X0-X3 take 16 bytes each of every 64; each step multiplies a
// lane's halves by k[0] and k[1] (x^575, x^511: 512 bits ahead) and adds
// the lane's next 16 bytes. Then X0 is folded into X1, X2, X3 by k[2] and
// k[3] (x^191, x^127: 128 bits ahead), and so are the 16-byte pieces left.
//
// With wide (AVX-512 and VPCLMULQDQ; p at least 256 bytes) the bulk goes
// first through sixteen such lanes in Z0-Z3, 256 bytes a step, folded by
// k[4] and k[5] (x^2111, x^2047: 2048 bits ahead); Z0 is then folded into
// Z1, Z2, Z3 by k[0] and k[1], which leaves in Z0's four 16-byte parts
// what X0-X3 would hold at that point.
TEXT ·fold(SB), NOSPLIT, $0-64
	MOVQ crc+0(FP), AX
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX
	MOVQ k+32(FP), DX
	MOVB wide+40(FP), BX
	TESTB BX, BX
	JNZ  wide

	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	MOVQ  AX, X4
	PXOR  X4, X0
	ADDQ  $64, SI
	SUBQ  $64, CX
	MOVOU 0(DX), X5

lanes:
	CMPQ CX, $64
	JB   join

	MOVO      X0, X6
	MOVO      X1, X7
	MOVO      X2, X8
	MOVO      X3, X9
	PCLMULQDQ $0x00, X5, X0
	PCLMULQDQ $0x11, X5, X6
	PCLMULQDQ $0x00, X5, X1
	PCLMULQDQ $0x11, X5, X7
	PCLMULQDQ $0x00, X5, X2
	PCLMULQDQ $0x11, X5, X8
	PCLMULQDQ $0x00, X5, X3
	PCLMULQDQ $0x11, X5, X9
	MOVOU     0(SI), X10
	MOVOU     16(SI), X11
	MOVOU     32(SI), X12
	MOVOU     48(SI), X13
	PXOR      X6, X0
	PXOR      X7, X1
	PXOR      X8, X2
	PXOR      X9, X3
	PXOR      X10, X0
	PXOR      X11, X1
	PXOR      X12, X2
	PXOR      X13, X3
	ADDQ      $64, SI
	SUBQ      $64, CX
	JMP       lanes

join:
	MOVOU     16(DX), X5
	MOVO      X0, X6
	PCLMULQDQ $0x00, X5, X0
	PCLMULQDQ $0x11, X5, X6
	PXOR      X6, X0
	PXOR      X1, X0
	MOVO      X0, X6
	PCLMULQDQ $0x00, X5, X0
	PCLMULQDQ $0x11, X5, X6
	PXOR      X6, X0
	PXOR      X2, X0
	MOVO      X0, X6
	PCLMULQDQ $0x00, X5, X0
	PCLMULQDQ $0x11, X5, X6
	PXOR      X6, X0
	PXOR      X3, X0

single:
	CMPQ      CX, $16
	JB        done
	MOVO      X0, X6
	PCLMULQDQ $0x00, X5, X0
	PCLMULQDQ $0x11, X5, X6
	MOVOU     0(SI), X7
	PXOR      X6, X0
	PXOR      X7, X0
	ADDQ      $16, SI
	SUBQ      $16, CX
	JMP       single

done:
	MOVQ   X0, AX
	PSRLDQ $8, X0
	MOVQ   X0, BX
	MOVQ   AX, lo+48(FP)
	MOVQ   BX, hi+56(FP)
	RET

wide:
	VMOVDQU64       0(SI), Z0
	VMOVDQU64       64(SI), Z1
	VMOVDQU64       128(SI), Z2
	VMOVDQU64       192(SI), Z3
	VMOVQ           AX, X4
	VPXORQ          Z4, Z0, Z0
	ADDQ            $256, SI
	SUBQ            $256, CX
	VBROADCASTI32X4 32(DX), Z5

wlanes:
	CMPQ       CX, $256
	JB         wjoin
	VPCLMULQDQ $0x00, Z5, Z0, Z6
	VPCLMULQDQ $0x11, Z5, Z0, Z0
	VPCLMULQDQ $0x00, Z5, Z1, Z7
	VPCLMULQDQ $0x11, Z5, Z1, Z1
	VPCLMULQDQ $0x00, Z5, Z2, Z8
	VPCLMULQDQ $0x11, Z5, Z2, Z2
	VPCLMULQDQ $0x00, Z5, Z3, Z9
	VPCLMULQDQ $0x11, Z5, Z3, Z3
	VPTERNLOGQ $0x96, 0(SI), Z6, Z0
	VPTERNLOGQ $0x96, 64(SI), Z7, Z1
	VPTERNLOGQ $0x96, 128(SI), Z8, Z2
	VPTERNLOGQ $0x96, 192(SI), Z9, Z3
	ADDQ       $256, SI
	SUBQ       $256, CX
	JMP        wlanes

wjoin:
	VBROADCASTI32X4 0(DX), Z5
	VPCLMULQDQ      $0x00, Z5, Z0, Z6
	VPCLMULQDQ      $0x11, Z5, Z0, Z0
	VPTERNLOGQ      $0x96, Z1, Z6, Z0
	VPCLMULQDQ      $0x00, Z5, Z0, Z6
	VPCLMULQDQ      $0x11, Z5, Z0, Z0
	VPTERNLOGQ      $0x96, Z2, Z6, Z0
	VPCLMULQDQ      $0x00, Z5, Z0, Z6
	VPCLMULQDQ      $0x11, Z5, Z0, Z0
	VPTERNLOGQ      $0x96, Z3, Z6, Z0
	VEXTRACTI32X4   $1, Z0, X1
	VEXTRACTI32X4   $2, Z0, X2
	VEXTRACTI32X4   $3, Z0, X3
	VZEROUPPER
	MOVOU           0(DX), X5
	JMP             lanes
