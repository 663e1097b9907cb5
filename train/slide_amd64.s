#include "textflag.h"

// func slideAsm(table, enter, leave []uint32, score, best uint64) (top uint64, at int)
//
// SI table, R8 len(table), DI enter, CX len(enter), DX leave, AX score,
// BX best, R9 at, R10 i; R11-R13 scratch. An entry's high 16 bits are its
// count, its low 16 bits how often it is in the window; it scores when it
// enters an empty window and stops when it leaves the last place in it.
// SCORE leaves in R12 what entry R12 scores: its count (high half) if its
// window count (low half) is 0, else 0, without a branch (R13 the mask).
#define SCORE \
	MOVL R12, R13 \
	ANDL $0xFFFF, R13 \
	SUBL $1, R13 \
	SHRL $31, R13 \
	NEGQ R13 \
	SHRL $16, R12 \
	ANDQ R13, R12

TEXT ·slideAsm(SB), NOSPLIT, $0-104
	MOVQ table_base+0(FP), SI
	MOVQ table_len+8(FP), R8
	MOVQ enter_base+24(FP), DI
	MOVQ enter_len+32(FP), CX
	MOVQ leave_base+48(FP), DX
	MOVQ score+72(FP), AX
	MOVQ best+80(FP), BX
	MOVQ $-1, R9
	XORQ R10, R10

loop:
	CMPQ R10, CX
	JGE  done

	// Fetch ahead the entry of enter[i+16].
	LEAQ 16(R10), R11
	CMPQ R11, CX
	JGE  enter
	MOVL (DI)(R11*4), R12
	CMPQ R12, R8
	JAE  enter
	PREFETCHT0 (SI)(R12*4)

enter:
	MOVL (DI)(R10*4), R11
	CMPL R11, $-1
	JEQ  leave
	CMPQ R11, R8
	JAE  outside
	MOVL (SI)(R11*4), R12
	LEAL 1(R12), R13
	MOVL R13, (SI)(R11*4)
	SCORE
	ADDQ R12, AX

leave:
	MOVL (DX)(R10*4), R11
	CMPL R11, $-1
	JEQ  judge
	CMPQ R11, R8
	JAE  outside
	MOVL (SI)(R11*4), R12
	DECL R12
	MOVL R12, (SI)(R11*4)
	SCORE
	SUBQ R12, AX

judge:
	CMPQ AX, BX
	JLS  next
	MOVQ AX, BX
	MOVQ R10, R9

next:
	INCQ R10
	JMP  loop

done:
	MOVQ BX, top+88(FP)
	MOVQ R9, at+96(FP)
	RET

outside:
	MOVQ BX, top+88(FP)
	MOVQ $-2, R9
	MOVQ R9, at+96(FP)
	RET
