// Package prefault maps in, ahead of use and with one system call each, the
// memory every mcpctl process is about to touch page by page: the rest of the
// heap memory the Go runtime has already mapped, and the program's code.
//
// Importing it is all there is to it (main does, for its side effect). Its
// initialisation runs early, before the libraries' own (jsonschema/v5 alone
// allocates about 1 MB while it initialises), because the package depends on
// nothing but syscall.
//
// Why: a process takes a page fault the first time it touches each page of
// memory. On the virtual machines CI runs on, the trap itself is what costs
// (about 11–14 µs a page here, even for a page of zeros, against 0.9 µs a
// page when madvise(MADV_POPULATE_WRITE) maps the same pages in one call),
// and mcpctl's start-up took about 880 of them. Populating the heap's
// mapped chunk and the code mapping takes about 450 of those away and
// made `mcpctl version` 10–13% faster there; see the README's Performance
// section for the figures and how to reproduce them. On hardware where a
// fault is cheap the two calls cost about what they save.
//
// MCPCTL_PREFAULT=off in the environment turns it off, to measure the
// difference or to rule it out. It does nothing on kernels older than 5.14
// (no MADV_POPULATE_*), and nothing outside Linux.
package prefault
