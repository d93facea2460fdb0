// See stack_call.hpp. System V x86-64: rbx, rbp, r12-r15 are callee-saved.
#include "core/stack_call.hpp"

#ifdef LOCUS_HAVE_STACK_CALL
asm(R"(
  .text
  .globl locus_call_on_stack
  .type locus_call_on_stack, @function
  .p2align 4
locus_call_on_stack:
  .cfi_startproc
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  movq %rcx, %rdi
  callq *%rdx
  movq %rax, %rdi
  jmp locus_resume_saved
  .cfi_endproc
  .size locus_call_on_stack, .-locus_call_on_stack

  .globl locus_resume_saved
  .type locus_resume_saved, @function
  .p2align 4
locus_resume_saved:
  .cfi_startproc
  movq %rdi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  retq
  .cfi_endproc
  .size locus_resume_saved, .-locus_resume_saved
  .section .note.GNU-stack,"",@progbits
  .text
)");
#endif
