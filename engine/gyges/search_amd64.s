//go:build amd64 && gygesasm && !purego

#include "textflag.h"
#include "go_asm.h"

#define chain_ps (chain_arch+chainArch_ps)

// func chainSearch(x *chain, c int, bounce uint64) uint64
//
// Registers:
//	AX  x
//	BX  &x.t.grp[0]
//	R8  x.h (heights by cell)
//	R11 x.occ
//	R12 x.known (stored back at the end)
//	R10 the outcomes
//	DX  the node's paths not looked at yet
//	SI  the node's paths (group.ps)
//	DI  boundaries crossed
//	R9  pieces not landed on yet
//	R13 top of the explicit stack (frames of DX, SI, DI, R9) in the local frame
//	CX, R14, R15 scratch
//
// A node is pushed at a bounce, which takes a piece out of R9, so the
// stack holds at most 36 frames of 32 bytes.
//
// TZCNT is only applied to non-zero values: on a processor without BMI1 it
// runs as BSF, which gives the same result for those.
TEXT ·chainSearch(SB), 0, $1152-32
	MOVQ x+0(FP), AX
	MOVQ c+8(FP), CX
	MOVQ bounce+16(FP), R9
	MOVQ chain_t(AX), BX
	LEAQ tables_grp(BX), BX
	MOVQ chain_h(AX), R8
	MOVQ chain_occ(AX), R11
	MOVQ chain_known(AX), R12
	XORL R10, R10
	XORL DI, DI
	MOVQ SP, R13

enter:
	// The node at cell CX: its paths from x.open and x.arch.ps when known.
	BTQ   CX, R12
	JCC   unknown
	MOVQ  chain_open(AX)(CX*8), DX
	MOVQ  chain_ps(AX)(CX*8), SI
	TESTQ DX, DX
	JNE   loop
	JMP   pop

unknown:
	// Its group is grp[3*c + h[c]]; the paths no piece blocks are
	// allowed[p] less the paths through every occupied cell nearby.
	MOVBQZX (R8)(CX*1), R14
	LEAQ    (CX)(CX*2), R15
	LEAQ    (R15)(R14*1), R15
	IMULQ   $group__size, R15
	LEAQ    (BX)(R15*1), SI
	BTSQ    CX, R12
	MOVQ    CX, 0(R13)          // the free stack slot holds c meanwhile
	MOVQ    group_inter(SI), R15
	ANDQ    R11, R15
	MOVQ    group_tp(SI), R14
	MOVQ    chain_p(AX), CX
	MOVQ    group_allowed(SI)(CX*8), DX
	TESTQ   R15, R15
	JEQ     blocked

blocking:
	// The blocking sets are stored complemented (tables.thr).
	TZCNTQ R15, CX
	BTRQ   CX, R15
	ANDQ   (R14)(CX*8), DX
	TESTQ  R15, R15
	JNE    blocking

blocked:
	MOVQ  0(R13), CX
	MOVQ  DX, chain_open(AX)(CX*8)
	MOVQ  group_ps(SI), SI
	MOVQ  SI, chain_ps(AX)(CX*8)
	TESTQ DX, DX
	JEQ   pop

	// The loop starts 32 bytes into a 64-byte block (PCALIGN makes the
	// function 64-byte aligned, so that this holds in every build): at 0
	// or 8 it ran 15-20% slower.
	PCALIGN $64
	BYTE    $0x90
	BYTE    $0x90
	BYTE    $0x90
	BYTE    $0x90
	BYTE    $0x90
	BYTE    $0x90
	BYTE    $0x90
	BYTE    $0x90
	PCALIGN $32

loop:
	// The next path: usable when it crosses no boundary crossed before
	// (a conditional move, not a branch).
	TZCNTQ  DX, CX
	LEAQ    -1(DX), R14
	ANDQ    R14, DX
	SHLQ    $4, CX
	MOVQ    path_edges(SI)(CX*1), R14
	XORL    R15, R15
	TESTQ   DI, R14
	CMOVQEQ path_end(SI)(CX*1), R15
	ORQ     R15, R10
	TESTQ   R15, R9
	JNE     bounce

next:
	TESTQ DX, DX
	JNE   loop

pop:
	CMPQ R13, SP
	JEQ  done
	SUBQ $32, R13
	MOVQ 0(R13), DX
	MOVQ 8(R13), SI
	MOVQ 16(R13), DI
	MOVQ 24(R13), R9
	JMP  next

bounce:
	// The path ends on a piece not landed on yet: search from there.
	MOVQ   DX, 0(R13)
	MOVQ   SI, 8(R13)
	MOVQ   DI, 16(R13)
	MOVQ   R9, 24(R13)
	ADDQ   $32, R13
	ORQ    R14, DI
	TZCNTQ R15, CX
	NOTQ   R15
	ANDQ   R15, R9
	JMP    enter

done:
	MOVQ R12, chain_known(AX)
	MOVQ R10, ret+24(FP)
	RET
