// Calling a function on another stack, for the work-first spawn fast path
// (x86-64 only; elsewhere spawn uses two Boost.Context switches).
//
// A spawn must run the child at once on a stack of its own, so the parent's
// continuation can be stolen while the child runs. Two full context switches
// (parent -> child fiber -> parent) cost a few mispredicted returns each,
// because every switch leaves the other fiber's call sites in the return
// stack buffer. Instead, locus_call_on_stack saves the parent's callee-saved
// registers on the parent's own stack, records that stack pointer (the
// parent's continuation), moves to the child's stack and *calls* the child
// body: calls and returns stay paired. If nobody stole the parent, the body
// returns the saved stack pointer and the parent returns from
// locus_call_on_stack as from any call. If a thief stole it, the thief calls
// locus_resume_saved(saved_sp) on its own thread, which returns from the
// parent's locus_call_on_stack there, and the child's body never returns
// (its fiber goes on to the scheduling loop).
//
// The x87 control word and MXCSR are not saved: they are the same for the
// child (same thread), and a program that changes rounding modes inside
// tasks must restore them before spawning (documented in docs/usage.md).
#pragma once

#if defined(__x86_64__) && !defined(LOCUS_NO_STACK_CALL)
#define LOCUS_HAVE_STACK_CALL 1
#endif

extern "C" {
// body(arg) runs with its stack pointer at stack_top (16-byte aligned) and
// returns the stack pointer to go back to (the value stored in *saved_sp).
void locus_call_on_stack(void** saved_sp, void* stack_top, void* (*body)(void*), void* arg);
// Continues a context saved by locus_call_on_stack, on the calling thread.
[[noreturn]] void locus_resume_saved(void* saved_sp);
}
